#version 450
// The meshcull pass's scan (docs/ARCHITECTURE.md "Regions placed in the
// frame"): one work group places every job's region at the sum of the
// triangles the jobs before it kept (job word 12, the count step's,
// meshcull.comp), the shadow jobs first, then the view's, each in job
// order, and writes each job's region (job word 3) and its command's index
// count and first index. The room (head word 5 less word 6) bounds the
// regions: what passes it is clamped and counted (head word 34). Under
// two-pass Hi-Z the LATE step (OAK_MC_STEP 1) places the view's jobs anew
// after the same shadow regions, which EARLY placed and counted.
#extension GL_GOOGLE_include_directive : require
#include "common/meshcull_block.glsl"
#include "common/meshcull_step.glsl"

layout(local_size_x = OAK_GPU_MESHCULL_GROUP) in;

shared uint s_n[OAK_GPU_MESHCULL_GROUP];
shared uint s_base, s_over, s_shadow;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint jobs = mc[4], index_word = mc[5], map_word = mc[6];
    uint room = index_word - map_word;
    bool late = OAK_MC_STEP == OAK_GPU_HIZ_STEP_LATE;
    if (lane == 0u) {
        s_base = 0u;
        s_over = 0u;
        s_shadow = 0u;
    }
    barrier();
    for (uint part = 0u; part < 2u; part++) { // the shadow jobs, then the view's
        for (uint j0 = 0u; j0 < jobs; j0 += OAK_GPU_MESHCULL_GROUP) {
            uint job = j0 + lane, j = OAK_GPU_MESHCULL_HEAD_WORDS + job * OAK_GPU_MESHCULL_JOB_WORDS;
            bool mine = false;
            uint n = 0u;
            if (job < jobs) {
                bool shadow = ((mc[j + 2u] >> 29) & 1u) != 0u;
                mine = shadow == (part == 0u);
                n = mine ? mc[j + 12u] : 0u;
            }
            s_n[lane] = n;
            barrier();
            // inclusive scan of the jobs' kept triangles (Hillis-Steele)
            for (uint off = 1u; off < OAK_GPU_MESHCULL_GROUP; off <<= 1) {
                uint v = lane >= off ? s_n[lane - off] : 0u;
                barrier();
                s_n[lane] += v;
                barrier();
            }
            if (mine) {
                uint at = s_base + s_n[lane] - n;
                uint kept = at >= room ? 0u : min(n, room - at);
                uint first = min(at, room), cw = mc[j + 8u];
                mc[j + 3u] = first;
                mc[cw] = 3u * kept;
                mc[cw + 2u] = index_word + 3u * first;
                // EARLY counts the shadow jobs' (LATE places them again alike)
                bool counts = part == 1u || !late;
                if (counts && n > kept) atomicAdd(s_over, n - kept);
                if (part == 0u && !late) atomicAdd(s_shadow, kept);
            }
            barrier();
            if (lane == OAK_GPU_MESHCULL_GROUP - 1u) s_base += s_n[lane];
            barrier();
        }
    }
    if (lane == 0u) {
        if (s_over != 0u) atomicAdd(mc[OAK_GPU_MESHCULL_OVERFLOW_WORD], s_over);
        if (s_shadow != 0u) atomicAdd(mc[OAK_GPU_MESHCULL_SHADOW_TRIS], s_shadow);
    }
}
