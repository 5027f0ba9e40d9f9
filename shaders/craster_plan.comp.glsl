#version 450
// The compute raster's work plan (docs/ARCHITECTURE.md "Compute
// rasterization", oak_gpu.h OAK_GPU_CRASTER_PLAN): before each pass's
// camera bands, one invocation walks the bands in table order and gives
// each its first item and its work groups from its list's VISIBLE count,
// which instcull wrote. The host knows only the streams' whole record
// counts: an item budget over those sent whole bands of a large stream
// (the meadow's 1.3 million grass records at 1,270 m) back to the hardware
// though few of them were in view, and a grid sized by the widest band's
// worst case launched thousands of empty groups per band.
#extension GL_GOOGLE_include_directive : require
#include "common/draw.glsl"

layout(local_size_x = 1) in;

OAK_SSBO(OAK_B_CRASTER) buffer CrasterBlock { uvec4 craster_table[]; };

void main() {
    const uint at = uint(OAK_GPU_CRASTER_PLAN);
    uvec4 head = craster_table[0];
    uint cap = craster_table[at].w, item = 0u, group = 0u;
    for (uint b = 0u; b < head.x; b++) {
        uvec4 a = craster_table[1u + 2u * b], m = craster_table[2u + 2u * b];
        // a per-instance band draws in pass 1 only (oak_gpu.h)
        bool skip = (m.w & OAK_GPU_CRASTER_SPLIT) != 0u && head.w != 0u;
        uint count = skip ? 0u : stream_words[m.z + head.w + 1u];
        // whole instances while every item stays below 2^32 (an item is
        // the low word of the raster's key; 256 below it, so a group's
        // g0 + 63 cannot wrap); the rest are not drawn
        uint items = min(count, (OAK_GPU_CRASTER_ITEMS - item) / a.z) * a.z;
        uint groups = min(items / 64u + ((items & 63u) != 0u ? 1u : 0u), cap);
        craster_table[at + 2u + b] = uvec4(item, group, groups, items);
        item += items;
        group += groups;
    }
    craster_table[at].x = min(group, OAK_GPU_CRASTER_DISPATCH);
    craster_table[at + 1u] = uvec4(group, item, 0u, 0u);
}
