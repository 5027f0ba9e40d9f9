#version 450
// The meshcull pass (docs/ARCHITECTURE.md "Meshlet culling"): a work group
// per job (a plain draw culled by meshlets, oak_gpu.h OAK_B_MESHCULL) tests
// its meshlets 64 at a time, then writes the kept ones' triangles in
// meshlet order into the job's region: the mesh's indices (from the index
// pool) into the expanded index buffer and each triangle's index in the
// mesh's own list into the triangle map (vis.frag writes that as the
// visibility id). The order is fixed (a scan in shared memory, no atomics
// on the region), so a frame draws the same triangles in the same order
// every time. The job's command gets 3 x the triangles kept. A
// cluster-LOD mesh's meshlets are its every level's: those out of the
// cut (common/clod.glsl, the CPU's test) are dropped first and counted
// apart (docs/ARCHITECTURE.md "Cluster LOD"). A shadow job (job word 2's
// bit 29: a cluster-LOD caster of a cascade) makes its map's cut alone,
// by its own view (words 4-6, 13, 14, bit 28 ortho), as the CPU's
// _oak_cpu_meshcull_lod: no frustum, cone or Hi-Z, its counters apart.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/meshcull.glsl"
#include "common/clod.glsl"

layout(local_size_x = OAK_GPU_MESHCULL_GROUP) in;

OAK_SSBO(OAK_B_MESHLETS) readonly buffer MeshletPool { uvec4 ml_pool[]; };
OAK_SSBO(OAK_B_MESHCULL) buffer MeshcullBlock { uint mc[]; };
// Hi-Z per meshlet under two-pass Hi-Z (reads the head above)
#include "common/meshcull_hiz.glsl"

shared uint s_n[OAK_GPU_MESHCULL_GROUP];
shared uint s_base, s_frustum, s_cone, s_lod;

void main() {
    uint lane = gl_LocalInvocationID.x;
    uint jobs = mc[4], index_word = mc[5], map_word = mc[6];
    vec4 planes[5];
    for (int i = 0; i < 5; i++)
        planes[i] = uintBitsToFloat(uvec4(mc[8 + 4 * i], mc[9 + 4 * i], mc[10 + 4 * i], mc[11 + 4 * i]));
    // cluster LOD's view (oak_gpu.h: from word 28)
    vec3 view_eye = uintBitsToFloat(uvec3(mc[28], mc[29], mc[30]));
    float lod_px = uintBitsToFloat(mc[31]), znear = uintBitsToFloat(mc[32]);
    bool ortho = mc[33] != 0u;
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
        uint finest = mc[j + 9], room = mc[j + 10];
        uint region = mc[j + 3];
        vec3 eye = uintBitsToFloat(uvec3(mc[j + 4], mc[j + 5], mc[j + 6]));
        float scale = uintBitsToFloat(mc[j + 7]);
        uint cmd_word = mc[j + 8];
        mat4 world = draws[draw].world;
        uint first_index = draws[draw].info.y;
        if (lane == 0u) {
            s_base = 0u;
            s_frustum = 0u;
            s_cone = 0u;
            s_lod = 0u;
        }
        barrier();
        for (uint m0 = 0u; m0 < count; m0 += OAK_GPU_MESHCULL_GROUP) {
            uint m = m0 + lane, n = 0u, first_tri = 0u;
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
                n = keep ? ml.offsets.y : 0u;
                first_tri = ml.offsets.x;
            }
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
            // the region's end bounds it (a cut keeps no more than its
            // finest level: this only guards the buffer)
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
            if (lane == OAK_GPU_MESHCULL_GROUP - 1) s_base += s_n[lane];
            barrier();
        }
        if (lane == 0u) {
            mc[cmd_word] = 3u * min(s_base, room);
            if (shadow) { /* the maps' own counters (oak_gpu.h) */
                atomicAdd(mc[OAK_GPU_MESHCULL_SHADOW_TRIS], min(s_base, room));
                atomicAdd(mc[OAK_GPU_MESHCULL_SHADOW_LOD], s_lod);
                atomicAdd(mc[OAK_GPU_MESHCULL_SHADOW_TESTED], count);
            } else {
                uint cw = oak_meshcull_counters(); /* Hi-Z's pass 1: its own */
                atomicAdd(mc[cw], count);
                atomicAdd(mc[cw + 1u], s_frustum);
                atomicAdd(mc[cw + 2u], s_cone);
                atomicAdd(mc[cw + 3u], s_base);
                if (cw == 0u) atomicAdd(mc[7], s_lod); /* the step that tests every meshlet */
            }
            // the region sized by last frame's cut (vk_meshcull.c): what
            // did not fit is counted, and the job's count kept for the host
            // to grow the region by (under Hi-Z the larger of the two steps',
            // which write the same region one after the other)
            if (s_base > room) atomicAdd(mc[OAK_GPU_MESHCULL_OVERFLOW_WORD], s_base - room);
            mc[j + 12u] = max(mc[j + 12u], s_base);
        }
        barrier();
    }
}
