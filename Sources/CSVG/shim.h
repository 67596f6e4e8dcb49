#ifndef SWITCHYARD_CSVG_SHIM_H
#define SWITCHYARD_CSVG_SHIM_H

// SVG logos for PNG QR codes: librsvg (Debian librsvg2-dev) parses an operator's SVG once, when
// the configuration is read, and draws it into a cairo image surface. Errors come back as
// GError values, never longjmp.
#include <librsvg/rsvg.h>
#include <cairo.h>

#endif
