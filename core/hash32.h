/* lowbias32 (Chris Wellons' hash-prospector): a 32-bit integer hash whose
 * every output bit flips with about half of the input bits, the one integer
 * hash C uses for noise and scatter. shaders/common/hash.glsl is the same
 * arithmetic for the GPUs, so both give the same bits. */
#ifndef OAK_CORE_HASH32_H
#define OAK_CORE_HASH32_H

#include <stdint.h>

static inline uint32_t _oak_lowbias32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

#endif
