// hiredis from the system (Debian 12's libhiredis-dev, 0.14.1) for WhiskerRedis: the blocking
// API (connect with a timeout, a command as an argument vector, its reply), which 1.x keeps too.
#ifndef WHISKER_CHIREDIS_SHIM_H
#define WHISKER_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>

#endif
