/* The bloom pyramid's layout, shared by the backends (shaders/common/
 * bloom.glsl mirrors it): level 0 is the output, level l is
 * ceil(w_{l-1} / 2) x ceil(h_{l-1} / 2); the buffer holds RGBA32F texels, the
 * down levels 1 .. OAK_BLOOM_LEVELS, then the up levels 1 .. OAK_BLOOM_LEVELS - 1
 * (the last up level is the last down level itself). */
#ifndef OAK_RENDER_BLOOM_H
#define OAK_RENDER_BLOOM_H

#include <stdbool.h>
#include <stdint.h>

#include <oak/config.h>

#include "render/pyramid.h"

/* The pass runs 2 * levels - 1 steps: downsamples to levels 1 .. L, then
   upsamples to levels L - 1 .. 1, one dispatch (or job batch) each. */
#define OAK_BLOOM_STEPS (2 * OAK_BLOOM_LEVELS - 1)

/* The first texel of down level l (up: its up level), l >= 1: the down
   levels 1 .. L come first, then the up levels. */
static inline uint64_t _oak_bloom_offset(uint32_t width, uint32_t height, uint32_t level, bool up) {
    uint64_t at = _oak_pyramid_span(width, height, 1, level);
    return up ? at + _oak_pyramid_span(width, height, 1, OAK_BLOOM_LEVELS + 1) : at;
}

/* Step s's level (downsamples make levels 1 .. L, upsamples L - 1 .. 1);
   true for a downsample. */
static inline bool _oak_bloom_step_level(uint32_t step, uint32_t *level) {
    bool down = step < OAK_BLOOM_LEVELS;
    *level = down ? step + 1 : 2 * OAK_BLOOM_LEVELS - 1 - step;
    return down;
}

/* Texels in the whole buffer. */
static inline uint64_t _oak_bloom_texels(uint32_t width, uint32_t height) {
    return _oak_bloom_offset(width, height, OAK_BLOOM_LEVELS, true);
}

#endif
