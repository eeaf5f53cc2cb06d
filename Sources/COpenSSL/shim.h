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

#endif
