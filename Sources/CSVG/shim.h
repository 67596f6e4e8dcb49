#ifndef SWITCHYARD_CSVG_SHIM_H
#define SWITCHYARD_CSVG_SHIM_H

// SVG logos for PNG QR codes: librsvg (Debian librsvg2-dev) parses an operator's SVG once, when
// the configuration is read, and draws it into a cairo image surface. Only the calls that needs
// are declared here, as the libraries' stable C interfaces have them, so the build takes no
// pkg-config flags (GLib's carry -pthread, which SwiftPM refuses with a warning on every build).
// Errors come back as GError values, never longjmp.
#include <stddef.h>
#include <stdint.h>

typedef struct SwitchyardGError { uint32_t domain; int code; char *message; } GError;
typedef struct _RsvgHandle RsvgHandle;
typedef struct { double x; double y; double width; double height; } RsvgRectangle;
typedef struct _cairo cairo_t;
typedef struct _cairo_surface cairo_surface_t;

/// cairo's CAIRO_FORMAT_ARGB32: one native-endian 32-bit word per pixel, alpha premultiplied.
#define SWITCHYARD_CAIRO_FORMAT_ARGB32 0

RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, size_t data_len, GError **error);
int rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);
void g_object_unref(void *object);
void g_error_free(GError *error);

cairo_surface_t *cairo_image_surface_create(int format, int width, int height);
cairo_t *cairo_create(cairo_surface_t *target);
void cairo_destroy(cairo_t *cr);
void cairo_surface_destroy(cairo_surface_t *surface);
void cairo_surface_flush(cairo_surface_t *surface);
unsigned char *cairo_image_surface_get_data(cairo_surface_t *surface);
int cairo_image_surface_get_stride(cairo_surface_t *surface);

#endif
