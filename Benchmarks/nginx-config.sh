#!/usr/bin/env bash
# Benchmarks/nginx-config.sh MODE PORT DIR: writes the configuration of the `nginx` bench server
# into DIR (DIR/nginx-MODE.conf; its pid file, error log and temporary folders in DIR too) and prints
# the file's path. bench.sh (MODE h1) and bench-h2.sh (h2c, tls) start it as
# `nginx -p DIR -c FILE`, pinned to the server core like the others.
#
# The ceiling of the table: Debian's nginx answering the CatService's URLs with no generated code
# and no validation. GET /api/emoji (and so ?count=3: a location ignores the query) answers a fixed
# cat as text/plain, as Whisker does; /api/clip is the 1 MiB clip by sendfile; everything else
# 404. One process (`master_process off`: the process bench.sh starts is the one that serves, so
# its /proc CPU counts are the server's), no access log, keep-alive without a request limit (nginx
# closes a connection after 1000 requests by default, which would make wrk reconnect).
#   MODE h1   HTTP/1.1 on 127.0.0.1:PORT
#   MODE h2c  HTTP/2 with prior knowledge on 127.0.0.1:PORT (nginx 1.22: `listen ... http2`
#             without ssl; HTTP/1.1 is not served there)
#   MODE tls  HTTPS on 127.0.0.1:PORT, ALPN h2 or http/1.1, Tests/Certificates' localhost certificate
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
mode=$1 port=$2 dir=$3
clip=${CAT_CLIP:-$here/Shared/clip-1MiB.mp4}
case $mode in
    h1)  listen="listen 127.0.0.1:$port;" tls="" ;;
    h2c) listen="listen 127.0.0.1:$port http2;" tls="" ;;
    tls) listen="listen 127.0.0.1:$port ssl http2;"
         tls="ssl_certificate $root/Tests/Certificates/localhost.pem; ssl_certificate_key $root/Tests/Certificates/localhost-key.pem;" ;;
    *) echo "nginx-config.sh: unknown mode '$mode' (h1, h2c, tls)" >&2; exit 2 ;;
esac
[[ -r $clip ]] || { echo "nginx-config.sh: no clip at $clip" >&2; exit 1; }
mkdir -p "$dir/nginx-temp"
conf=$dir/nginx-$mode.conf
cat >"$conf" <<CONF
# Written by Benchmarks/nginx-config.sh $mode $port (bench server "nginx").
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx-$mode.pid;
error_log $dir/nginx-$mode-error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $dir/nginx-temp/body;
    proxy_temp_path $dir/nginx-temp/proxy;
    fastcgi_temp_path $dir/nginx-temp/fastcgi;
    uwsgi_temp_path $dir/nginx-temp/uwsgi;
    scgi_temp_path $dir/nginx-temp/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000000;
    keepalive_timeout 75s;
    server {
        $listen
        $tls
        location = /api/emoji { default_type text/plain; return 200 "😻"; }
        location = /api/clip { default_type video/mp4; alias $clip; }
        location / { return 404; }
    }
}
CONF
echo "$conf"
