#version 450
// The meshcull pass's count step (docs/ARCHITECTURE.md "Meshlet culling"):
// a work group per job (a plain draw culled by meshlets, oak_gpu.h
// OAK_B_MESHCULL) tests its meshlets 64 at a time and writes, per meshlet,
// the triangles it keeps (its meshlet word) and the job's sum (job word
// 12). meshcull_scan.comp then places every job's region exactly, one after
// the other, and meshcull_write.comp writes the kept meshlets' triangles
// there in meshlet order: the mesh's indices (from the index pool) into the
// expanded index buffer and each triangle's index in the mesh's own list
// into the triangle map (vis.frag writes that as the visibility id). No
// atomics order a region, so a frame draws the same triangles in the same
// order every time. A cluster-LOD mesh's meshlets are its every level's:
// those out of the cut (common/clod.glsl, the CPU's test) are dropped first
// and counted apart (docs/ARCHITECTURE.md "Cluster LOD"). A shadow job (job
// word 2's bit 29: a cluster-LOD caster of a cascade) makes its map's cut
// alone, by its own view (words 4-6, 13, 14, bit 28 ortho), as the CPU's
// _oak_cpu_meshcull_lod: no frustum, cone or Hi-Z, its counters apart.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/meshcull.glsl"
#include "common/clod.glsl"

layout(local_size_x = OAK_GPU_MESHCULL_GROUP) in;

// Hi-Z per meshlet under two-pass Hi-Z (reads the head: common/meshcull.glsl's block)
#include "common/meshcull_hiz.glsl"

shared uint s_kept, s_frustum, s_cone, s_lod;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint jobs = mc[4];
    vec4 planes[5];
    vec3 view_eye;
    float lod_px, znear;
    bool ortho;
    oak_meshcull_head_view(planes, view_eye, lod_px, znear, ortho); // common/meshcull.glsl
    for (uint job = gl_WorkGroupID.x; job < jobs; job += gl_NumWorkGroups.x) {
        uint j = OAK_GPU_MESHCULL_HEAD_WORDS + job * OAK_GPU_MESHCULL_JOB_WORDS;
        uint draw = mc[j], rec0 = mc[j + 1], count = mc[j + 2] & 0xffffu;
        bool cone = (mc[j + 2] >> 31) != 0u;
        bool uncut = ((mc[j + 2] >> 30) & 1u) != 0u; // a world not culled by: the finest level
        bool shadow = ((mc[j + 2] >> 29) & 1u) != 0u;
        // Hi-Z's LATE step leaves shadow jobs as EARLY wrote them
        if (oak_meshcull_skips(shadow)) continue;
        vec3 jeye = view_eye;
        float jpx = lod_px, jnear = znear;
        bool jortho = ortho;
        if (shadow) {
            jeye = uintBitsToFloat(uvec3(mc[j + 4], mc[j + 5], mc[j + 6]));
            jpx = uintBitsToFloat(mc[j + OAK_GPU_MESHCULL_JOB_LOD_PX]);
            jnear = uintBitsToFloat(mc[j + OAK_GPU_MESHCULL_JOB_LOD_PX + 1u]);
            jortho = ((mc[j + 2] >> 28) & 1u) != 0u;
        }
        uint finest = mc[j + 9], words = mc[j + 10];
        vec3 eye = uintBitsToFloat(uvec3(mc[j + 4], mc[j + 5], mc[j + 6]));
        float scale = uintBitsToFloat(mc[j + 7]);
        mat4 world = draws[draw].world;
        if (lane == 0u) {
            s_kept = 0u;
            s_frustum = 0u;
            s_cone = 0u;
            s_lod = 0u;
        }
        barrier();
        for (uint m0 = 0u; m0 < count; m0 += OAK_GPU_MESHCULL_GROUP) {
            uint m = m0 + lane;
            if (m < count) {
                uint at = rec0 + m * OAK_GPU_MESHLET_UVEC4;
                oak_gpu_meshlet ml = oak_meshlet_unpack(ml_pool[at], ml_pool[at + 1], ml_pool[at + 2],
                                                        ml_pool[at + 3], ml_pool[at + 4],
                                                        ml_pool[at + 5], ml_pool[at + 6]);
                // the cut, the frustum and the cone (common/meshcull.glsl)
                uint t = oak_meshcull_verdict(planes, world, scale, cone, eye, shadow, uncut, m,
                                              finest, jeye, jpx, jnear, jortho, ml);
                bool keep = t == OAK_MESHCULL_KEEP;
                if (t == OAK_MESHCULL_LOD) atomicAdd(s_lod, 1u);
                if (t == OAK_MESHCULL_FRUSTUM) atomicAdd(s_frustum, 1u);
                if (t == OAK_MESHCULL_CONE) atomicAdd(s_cone, 1u);
                // under two-pass Hi-Z: this step's share (common/meshcull_hiz.glsl)
                if (!shadow) keep = oak_meshcull_hiz(keep, j, m, world, scale, ml);
                uint n = keep ? ml.offsets.y : 0u;
                mc[words + m] = n; // the write step's (meshcull_write.comp)
                if (n != 0u) atomicAdd(s_kept, n);
            }
        }
        barrier();
        if (lane == 0u) {
            if (shadow) { /* the maps' own counters (oak_gpu.h); their triangles the scan's */
                atomicAdd(mc[OAK_GPU_MESHCULL_SHADOW_LOD], s_lod);
                atomicAdd(mc[OAK_GPU_MESHCULL_SHADOW_TESTED], count);
            } else {
                uint cw = oak_meshcull_counters(); /* Hi-Z's pass 1: its own */
                atomicAdd(mc[cw], count);
                atomicAdd(mc[cw + 1u], s_frustum);
                atomicAdd(mc[cw + 2u], s_cone);
                atomicAdd(mc[cw + 3u], s_kept);
                if (cw == 0u) atomicAdd(mc[7], s_lod); /* the step that tests every meshlet */
            }
            // what this step keeps of the job: the scan places its region
            mc[j + 12u] = s_kept;
        }
        barrier();
    }
}
