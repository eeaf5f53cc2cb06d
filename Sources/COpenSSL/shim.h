// OpenSSL 3.0 for WhiskerTLS. The headers import as they are, except for the few calls that are
// macros over SSL_CTX_ctrl / BIO_ctrl (Swift cannot call a function-like macro) and the option
// bits built with SSL_OP_BIT(n); each gets a static inline function here, named with a
// `whisker_` prefix so it is obvious at the call site that it is a shim.
#ifndef WHISKER_COPENSSL_SHIM_H
#define WHISKER_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <string.h>

/// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline int whisker_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// SSL_CTX_set_mode is a macro over SSL_CTX_ctrl.
static inline long whisker_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

/// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl.
static inline long whisker_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

/// BIO_set_mem_eof_return is a macro over BIO_ctrl: with -1, an empty memory BIO reads as
/// "retry" rather than end of file, which is what a BIO fed from a socket must say.
static inline long whisker_BIO_set_mem_eof_return(BIO *bio, int value) {
    return BIO_set_mem_eof_return(bio, value);
}

/// Per-connection version bounds (macros over SSL_ctrl); WhiskerTesting's client uses them to
/// offer exactly one old version.
static inline int whisker_SSL_set_min_proto_version(SSL *ssl, int version) {
    return (int)SSL_set_min_proto_version(ssl, version);
}
static inline int whisker_SSL_set_max_proto_version(SSL *ssl, int version) {
    return (int)SSL_set_max_proto_version(ssl, version);
}

/// SNI for a client (a macro over SSL_ctrl).
static inline int whisker_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// The option bits are SSL_OP_BIT(n) expressions, which the importer does not evaluate.
static inline uint64_t whisker_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t whisker_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline uint64_t whisker_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t whisker_SSL_OP_IGNORE_UNEXPECTED_EOF(void) { return SSL_OP_IGNORE_UNEXPECTED_EOF; }

/// The verified certificate the peer (a client, for mutual TLS) presented: its subject in RFC 2253
/// form into `subject`, and its subject alternative names, one per line as "DNS:name",
/// "email:address", "URI:uri" or "IP:address", into `names` (each NUL-terminated, cut to fit).
/// Returns 1, or 0 when the peer presented none or it did not verify.
static inline int whisker_verified_peer_certificate(SSL *ssl, char *subject, int subjectCapacity, char *names, int namesCapacity) {
    if (subjectCapacity < 1 || namesCapacity < 1) return 0;
    subject[0] = 0;
    names[0] = 0;
    X509 *certificate = SSL_get1_peer_certificate(ssl);
    if (certificate == NULL) return 0;
    if (SSL_get_verify_result(ssl) != X509_V_OK) { X509_free(certificate); return 0; }
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio != NULL) {
        X509_NAME_print_ex(bio, X509_get_subject_name(certificate), 0, XN_FLAG_RFC2253);
        int length = BIO_read(bio, subject, subjectCapacity - 1);
        subject[length > 0 ? length : 0] = 0;
        BIO_free(bio);
    }
    GENERAL_NAMES *alternatives = X509_get_ext_d2i(certificate, NID_subject_alt_name, NULL, NULL);
    int used = 0;
    for (int i = 0; alternatives != NULL && i < sk_GENERAL_NAME_num(alternatives); i++) {
        GENERAL_NAME *name = sk_GENERAL_NAME_value(alternatives, i);
        int type = 0;
        ASN1_STRING *value = GENERAL_NAME_get0_value(name, &type);
        char text[INET6_ADDRSTRLEN + 4];
        const char *prefix;
        const char *data;
        int size;
        if (type == GEN_DNS || type == GEN_EMAIL || type == GEN_URI) {
            prefix = type == GEN_DNS ? "DNS:" : type == GEN_EMAIL ? "email:" : "URI:";
            data = (const char *)ASN1_STRING_get0_data(value);
            size = ASN1_STRING_length(value);
        } else if (type == GEN_IPADD && (ASN1_STRING_length(value) == 4 || ASN1_STRING_length(value) == 16)) {
            prefix = "IP:";
            int family = ASN1_STRING_length(value) == 4 ? AF_INET : AF_INET6;
            if (inet_ntop(family, ASN1_STRING_get0_data(value), text, sizeof(text)) == NULL) continue;
            data = text;
            size = (int)strlen(text);
        } else {
            continue;
        }
        int need = (int)strlen(prefix) + size + 1;
        if (used + need >= namesCapacity) break;
        memcpy(names + used, prefix, strlen(prefix));
        memcpy(names + used + strlen(prefix), data, size);
        used += need;
        names[used - 1] = '\n';
        names[used] = 0;
    }
    GENERAL_NAMES_free(alternatives);
    X509_free(certificate);
    return 1;
}

#endif
