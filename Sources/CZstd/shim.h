// Zstandard from the system (Debian 12's libzstd-dev, 1.5.4) for WhiskerCompression: the encoder
// for responses, the decoder for uploads. Only the stable API (no ZSTD_STATIC_LINKING_ONLY), whose
// functions and enums import as they are: nothing to shim.
#ifndef WHISKER_CZSTD_SHIM_H
#define WHISKER_CZSTD_SHIM_H

#include <zstd.h>
#include <zstd_errors.h>

#endif
