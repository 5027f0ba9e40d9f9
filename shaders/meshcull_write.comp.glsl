#version 450
// The meshcull pass's write step (docs/ARCHITECTURE.md "Regions placed in
// the frame"): a work group per job writes the triangles of its kept
// meshlets (their meshlet words, the count step's, meshcull.comp) in
// meshlet order into the region the scan placed (meshcull_scan.comp, job
// word 3), no further than its command's count: the mesh's indices (from
// the index pool) into the expanded index buffer and each triangle's index
// in the mesh's own list into the triangle map. A scan in shared memory
// orders them, so a frame draws the same triangles in the same order every
// time. Under two-pass Hi-Z the LATE step (OAK_MC_STEP 1) leaves the shadow
// jobs as EARLY wrote them.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/meshcull_block.glsl"
#include "common/meshcull_step.glsl"

layout(local_size_x = OAK_GPU_MESHCULL_GROUP) in;

shared uint s_n[OAK_GPU_MESHCULL_GROUP];
shared uint s_base;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint jobs = mc[4], index_word = mc[5], map_word = mc[6];
    for (uint job = gl_WorkGroupID.x; job < jobs; job += gl_NumWorkGroups.x) {
        uint j = OAK_GPU_MESHCULL_HEAD_WORDS + job * OAK_GPU_MESHCULL_JOB_WORDS;
        bool shadow = ((mc[j + 2u] >> 29) & 1u) != 0u;
        if (shadow && OAK_MC_STEP == OAK_GPU_HIZ_STEP_LATE) continue;
        uint draw = mc[j], rec0 = mc[j + 1u], count = mc[j + 2u] & 0xffffu;
        uint region = mc[j + 3u], words = mc[j + 10u], room = mc[mc[j + 8u]] / 3u;
        uint first_index = draws[draw].info.y;
        if (lane == 0u) s_base = 0u;
        barrier();
        for (uint m0 = 0u; m0 < count; m0 += OAK_GPU_MESHCULL_GROUP) {
            uint m = m0 + lane, n = m < count ? mc[words + m] : 0u, first_tri = 0u;
            if (n != 0u) first_tri = ml_pool[rec0 + m * OAK_GPU_MESHLET_UVEC4 + 6u].x;
            s_n[lane] = n;
            barrier();
            // inclusive scan of the kept triangle counts (Hillis-Steele)
            for (uint off = 1u; off < OAK_GPU_MESHCULL_GROUP; off <<= 1) {
                uint v = lane >= off ? s_n[lane - off] : 0u;
                barrier();
                s_n[lane] += v;
                barrier();
            }
            uint at = s_base + s_n[lane] - n, dst = region + at;
            // the command's count (the room may have clamped it)
            uint fit = at >= room ? 0u : min(n, room - at);
            for (uint k = 0u; k < fit; k++) {
                uint tw = first_tri + k;
                uint orig = ml_pool[tw >> 2][tw & 3u];
                uint src = first_index + 3u * orig, d = dst + k;
                mc[map_word + d] = orig;
                mc[index_word + 3u * d] = indices[src];
                mc[index_word + 3u * d + 1u] = indices[src + 1u];
                mc[index_word + 3u * d + 2u] = indices[src + 2u];
            }
            barrier();
            if (lane == OAK_GPU_MESHCULL_GROUP - 1u) s_base += s_n[lane];
            barrier();
        }
        barrier();
    }
}
