#ifndef SWITCHYARD_CQRCODE_SHIM_H
#define SWITCHYARD_CQRCODE_SHIM_H

// QR codes: libqrencode (Debian libqrencode-dev) encodes, libpng (libpng-dev) writes PNG through
// its simplified API (png_image_write_to_memory), which reports errors by return value instead
// of longjmp — safe to call from Swift.
#include <qrencode.h>
#include <png.h>

// PNG_FORMAT_RGBA is a macro of two flags, which Swift does not import.
static const png_uint_32 switchyard_png_format_rgba = PNG_FORMAT_RGBA;

#endif
