#ifndef SWITCHYARD_CMAXMINDDB_SHIM_H
#define SWITCHYARD_CMAXMINDDB_SHIM_H

// MaxMind-format databases (.mmdb): libmaxminddb (Debian libmaxminddb-dev) maps the file and
// looks addresses up. Swift calls MMDB_aget_value (a path as an array), never the variadic
// MMDB_get_value.
#include <maxminddb.h>

#endif
