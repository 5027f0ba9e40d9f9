#version 450
// The compute raster's pixels into the visibility buffer (docs/ARCHITECTURE.md
// "Compute rasterization"): where craster.comp drew, its nearest item becomes
// the stream instance's visibility id, exactly as vis_stream writes it
// (oak_gpu.h "Visibility ids"), at its depth; the pipeline's depth test
// (reversed-Z, greater) settles it against the hardware raster's.
#extension GL_GOOGLE_include_directive : require
#include "common/draw.glsl"

OAK_SSBO(OAK_B_CRASTER) readonly buffer CrasterBlock { uvec4 craster_head; uvec4 craster_bands[]; };
// each pixel's uint64 as (low word: item, high word: depth bits)
OAK_SSBO(OAK_B_CRASTER_DEPTH) readonly buffer CrasterDepthBlock { uvec2 craster_depth[]; };

layout(location = 0) out uvec2 o_id;

void main() {
    uvec2 px = uvec2(gl_FragCoord.xy);
    uvec2 key = craster_depth[px.y * craster_head.y + px.x];
    if (key.y == 0u) discard;
    // the item's band: the last whose first item (the GPU's plan,
    // craster_plan.comp) is at or below it; one without items has the
    // next's first item, so it is never the last
    const uint plan = uint(OAK_GPU_CRASTER_PLAN) + 1u; // craster_bands' index of band 0's
    uint lo = 0u, hi = craster_head.x - 1u;
    while (lo < hi) {
        uint mid = (lo + hi + 1u) / 2u;
        if (craster_bands[plan + mid].x <= key.x)
            lo = mid;
        else
            hi = mid - 1u;
    }
    uvec4 a = craster_bands[lo * 2u], m = craster_bands[lo * 2u + 1u];
    uint i = key.x - craster_bands[plan + lo].x, p = i / a.z, t = i - p * a.z;
    uint word = stream_words[stream_words[m.z + craster_head.w + 4u] + p];
    uint rec = stream_heads[a.x].info.z + (word & OAK_GPU_ID_TRIANGLE_MASK);
    o_id = uvec2(OAK_GPU_ID_INSTANCE | rec,
                 t | (a.x << OAK_GPU_ID_STREAM_SHIFT) | (a.y << OAK_GPU_ID_LOD_SHIFT));
    gl_FragDepth = uintBitsToFloat(key.y);
}
