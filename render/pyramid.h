/* A halving pyramid's layout, shared by the bloom chain (render/bloom.h) and
 * the opaque frame's copy (render/opaque_copy.h); shaders/common/pyramid.glsl
 * is the GLSL of the same arithmetic. Level 0 is the base size, level l is
 * ceil(w_{l-1} / 2) x ceil(h_{l-1} / 2), and levels lie one after another. */
#ifndef OAK_RENDER_PYRAMID_H
#define OAK_RENDER_PYRAMID_H

#include <stdint.h>

/* Level l's size. */
static inline void _oak_pyramid_size(uint32_t width, uint32_t height, uint32_t level, uint32_t *w,
                                     uint32_t *h) {
    for (uint32_t l = 0; l < level; l++) width = (width + 1) >> 1, height = (height + 1) >> 1;
    *w = width, *h = height;
}

/* Texels in levels from .. to - 1. */
static inline uint64_t _oak_pyramid_span(uint32_t width, uint32_t height, uint32_t from,
                                         uint32_t to) {
    uint64_t n = 0;
    for (uint32_t l = 0; l < to; l++) {
        if (l >= from) n += (uint64_t)width * height;
        width = (width + 1) >> 1, height = (height + 1) >> 1;
    }
    return n;
}

#endif
