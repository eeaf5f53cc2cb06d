// OpenSSL 3.0 for the allocation budget's h2-over-TLS client (TLSBudget.swift): Whisker's own
// COpenSSL module is a system library target of the library's package, which a dependent package
// cannot import. The functions the client calls are plain functions; no macro is used.
#ifndef WHISKER_BUDGET_OPENSSL_SHIM_H
#define WHISKER_BUDGET_OPENSSL_SHIM_H

#include <openssl/err.h>
#include <openssl/ssl.h>

#endif
