/* Private to render/: the render scale resolved per frame and the stretch of
 * a scaled frame to the output size (render/render_scale.c). */
#ifndef OAK_RENDER_SCALE_H
#define OAK_RENDER_SCALE_H

#include <oak/render.h>

/* The scale a frame with these post settings runs at (a channel: 1); an
   error for NaN or a negative scale. */
oak_result _oak_render_scale_resolve(const oak_post *post, float *scale);
/* The render size of a w x h output at `scale`: rounded, 1 .. w (h). */
void _oak_render_scale_size(float scale, uint32_t w, uint32_t h, uint32_t *rw, uint32_t *rh);
/* Bilinear stretch of sw x sh RGBA8 to dw x dh (texel centres matched,
   edges clamped, 8-bit weights, integer arithmetic: the same bytes
   everywhere); alpha 255. columns: dw * 3 words of scratch. */
void _oak_stretch_rgba8(uint8_t *dst, uint32_t dw, uint32_t dh, const uint8_t *src, uint32_t sw,
                        uint32_t sh, uint32_t *columns);

#endif
