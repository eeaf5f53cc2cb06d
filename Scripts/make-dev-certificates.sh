#!/usr/bin/env bash
# Scripts/make-dev-certificates.sh [DIR]: a development CA and a certificate for localhost signed by
# it, made with openssl, for tests and for trying HTTPS locally. Never use them in production.
#
# Writes into DIR (default ./dev-certificates):
#   ca.pem              the CA certificate: trust it (curl --cacert DIR/ca.pem)
#   ca-key.pem          the CA's private key
#   localhost.pem       the server certificate for localhost, 127.0.0.1 and ::1 (EC P-256)
#   localhost-key.pem   its private key (give both to cat-service --tls-certificate/--tls-private-key)
#   localhost-renewed.pem, localhost-renewed-key.pem
#                       a second certificate for the same names (subject "localhost renewed"), as a
#                       renewal would bring: the certificate-reload tests swap it in
#   client.pem, client-key.pem
#                       a client certificate (mutual TLS: cat-service --tls-client-ca DIR/ca.pem),
#                       subject "CN=cat client,O=Whisker development", with the names
#                       URI:spiffe://cats.example/client and email:client@cats.example
#                       (curl --cert DIR/client.pem --key DIR/client-key.pem)
# Valid for DAYS days (default 3650). Existing files in DIR are replaced.
set -euo pipefail

dir=${1:-dev-certificates}
days=${DAYS:-3650}
mkdir -p "$dir"
cd "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 -days "$days" \
    -subj "/CN=Whisker development CA" -keyout ca-key.pem -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null

cat >"$work/server.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
EXT
cat >"$work/client.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
subjectAltName=URI:spiffe://cats.example/client,email:client@cats.example
EXT
# leaf NAME SUBJECT KIND: NAME.pem and NAME-key.pem, a server (localhost) or client certificate,
# signed by the CA.
leaf() {
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
        -subj "$2" -keyout "$1-key.pem" -out "$work/$1.csr" 2>/dev/null
    openssl x509 -req -in "$work/$1.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -CAserial "$work/ca.srl" \
        -days "$days" -sha256 -extfile "$work/$3.ext" -out "$1.pem" 2>/dev/null
    chmod 600 "$1-key.pem"
}
leaf localhost /CN=localhost server
leaf localhost-renewed "/CN=localhost renewed" server
leaf client "/O=Whisker development/CN=cat client" client
chmod 600 ca-key.pem
echo "made a development CA, a localhost certificate and a client certificate in $(pwd), valid for $days days"
