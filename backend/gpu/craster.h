/* Compute rasterization of small stream triangles (docs/ARCHITECTURE.md
 * "Compute rasterization"): which LOD bands of the natively drawn instance
 * streams a GPU backend rasterizes in compute, one rule for Vulkan and GL. */
#ifndef OAK_GPU_CRASTER_H
#define OAK_GPU_CRASTER_H

#include <oak/backend.h>

typedef enum _oak_craster_mode {
    OAK_CRASTER_MODE_OFF, /* the hardware raster draws every band */
    OAK_CRASTER_MODE_ON,  /* bands whose triangles are small (the default) */
    OAK_CRASTER_MODE_ALL, /* every band that may go (tests, measuring) */
} _oak_craster_mode;

/* OAK_CRASTER in the environment: off, on or all (unset: on; anything else
   warns once and reads as on). */
_oak_craster_mode _oak_craster_mode_get(void);
const char *_oak_craster_mode_name(_oak_craster_mode m);
/* OAK_CRASTER_PIXELS in the environment (a positive number), else the
   config constant of that name. */
float _oak_craster_pixels(void);
/* Whether stream rs's LOD band k (a mesh of `triangles` triangles in a
   sphere of `radius`) is small in view v under mode m: its triangles at
   most `pixels` across (the sphere's diameter over sqrt(triangles)) at the
   band's nearest distance, which lies clear of the near plane. Perspective
   views only; an instance's own scale is not looked at (taken as 1). */
bool _oak_craster_small(const oak_render_view *v, const oak_render_stream *rs, uint32_t k,
                        float radius, uint32_t triangles, float pixels, _oak_craster_mode m);
/* The same rule for a shadow cascade (orthographic, so no distance): a
   triangle of the band (the sphere's diameter over sqrt(triangles)) at
   most `pixels` of the cascade's texels (texel_world metres each) across.
   Every band of every cascade may go, the near one too. */
bool _oak_craster_shadow_small(const oak_shadow_cascade *c, float radius, uint32_t triangles,
                               float pixels, _oak_craster_mode m);
/* `oak info`'s words for the cascades' compute raster: which bands go and
   why, or why none (`has_int64` false: the edge functions' 64-bit
   integers, named `what`). */
const char *_oak_craster_shadow_words(bool has_int64, const char *what);

#endif
