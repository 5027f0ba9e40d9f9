// Two-pass Hi-Z's buffers as its two kernels read them (oak_gpu.h
// oak_gpu_hiz_head): the head's words, a candidate's first word, and the
// pyramid's levels in OAK_B_HIZ_KEEP (after the keys).
#ifndef OAK_HIZ_GLSL
#define OAK_HIZ_GLSL

#include "common/oak_gpu.h"

// coherent: the compaction's scan reads what its work group wrote
OAK_SSBO(OAK_B_HIZ) coherent buffer HizBlock {
    uint hw[];
};
OAK_SSBO(OAK_B_HIZ_KEEP) buffer HizKeepBlock {
    uint keep[];
};

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_HIZ_STEP, 0u)
#else
layout(location = 0) uniform uint oak_hiz_step; // GL: set per dispatch
#define OAK_HIZ_STEP oak_hiz_step
#endif

// head words
#define H_COUNT   0u
#define H_CUT     1u
#define H_COMPACT 2u
#define H_KEYS    3u
#define H_FIRST   4u
#define H_SIZE    12u
#define H_VP      16u
#define H_EARLY   32u
#define H_LATE    36u
#define H_STATS   40u

uint cand(uint j) {
    return uint(OAK_GPU_HIZ_HEAD_WORDS) + j * uint(OAK_GPU_HIZ_DRAW_WORDS);
}

// Level k's size and first word in keep[].
uvec3 level_of(uint k) {
    uint w = hw[H_SIZE], h = hw[H_SIZE + 1u], at = hw[H_KEYS];
    for (uint i = 0u; i <= k; i++) {
        w = (w + 1u) / 2u;
        h = (h + 1u) / 2u;
        if (i < k) at += w * h;
    }
    return uvec3(w, h, at);
}

// A texel of level L (size, first word), coordinates clamped to its edges.
float level_texel(uvec3 L, uint x, uint y) {
    return uintBitsToFloat(keep[L.z + min(y, L.y - 1u) * L.x + min(x, L.x - 1u)]);
}

#endif
