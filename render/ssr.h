/* Screen-space reflections on puddles, shared by the backends
 * (shaders/common/ssr.glsl is the GLSL of the march, backend/cpu/cpu_pass_ssr.c
 * its C): when the pass runs, and the mirror buffer the resolve writes for
 * it, two RGBA32F texels a pixel: the split-sum weight of the pixel's
 * reflection (0: no mirror) with the reflected direction's octahedral x,
 * then the reflection itself with its y (docs/SHADING.md "Screen-space
 * reflections"). */
#ifndef OAK_RENDER_SSR_H
#define OAK_RENDER_SSR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <oak/backend.h>
#include <oak/config.h>

/* puddles lie: wetness past OAK_SSR_WETNESS, and the frame shows light (no
   capture channel, no debug view) */
static inline bool _oak_ssr_on(const oak_render_view *v) {
    return v->env.wetness > (float)OAK_SSR_WETNESS && v->post.channel == OAK_CHANNEL_NONE &&
           v->post.debug == OAK_DEBUG_NONE;
}

/* the mirror buffer's floats for a frame of width x height */
static inline uint64_t _oak_ssr_floats(uint32_t width, uint32_t height) {
    return (uint64_t)width * height * 8;
}

/* unit n to the octahedron's square [-1, 1]^2 about +y, and back
   (ssr.glsl's oak_ssr_oct and oak_ssr_unoct, operation for operation) */
static inline void _oak_ssr_oct(const float n[3], float e[2]) {
    float a = fabsf(n[0]) + fabsf(n[1]) + fabsf(n[2]);
    float x = n[0] / a, y = n[1] / a, z = n[2] / a;
    if (y < 0) {
        e[0] = (1.0f - fabsf(z)) * (x >= 0 ? 1.0f : -1.0f);
        e[1] = (1.0f - fabsf(x)) * (z >= 0 ? 1.0f : -1.0f);
        return;
    }
    e[0] = x, e[1] = z;
}
static inline void _oak_ssr_unoct(const float e[2], float n[3]) {
    n[0] = e[0], n[1] = 1.0f - fabsf(e[0]) - fabsf(e[1]), n[2] = e[1];
    if (n[1] < 0) {
        float sx = n[0] >= 0 ? 1.0f : -1.0f, sz = n[2] >= 0 ? 1.0f : -1.0f;
        n[0] = (1.0f - fabsf(e[1])) * sx;
        n[2] = (1.0f - fabsf(e[0])) * sz;
    }
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) n[k] /= l;
}

#endif
