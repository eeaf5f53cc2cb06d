// The Brotli encoder from the system (Debian 12's libbrotli-dev, 1.0.9) for WhiskerCompression.
// Its API is plain functions and enums that import as they are: nothing to shim.
#ifndef WHISKER_CBROTLI_SHIM_H
#define WHISKER_CBROTLI_SHIM_H

#include <brotli/encode.h>

#endif
