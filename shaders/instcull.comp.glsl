#version 450
// The cull-and-LOD kernel of render/stream_cull.c in compute: one invocation
// per instance, one row of work groups per stream (gl_WorkGroupID.y). Record
// to matrix, LOD by distance, the LOD mesh's sphere against the camera's
// frustum and each cascade's caster volume (oak_gpu.h cascade_planes: the
// map's box for a stream that stands still, the movers' rule for one that
// moved, as render/shadow_fit.c culls draws); in each view it meets the instance
// counts into that (view, LOD)'s indirect command and joins its list (list
// order is the atomics', the count is exact). A list word is instance |
// stream << 24 | LOD << 30 (oak_gpu.h "Visibility ids"): the stream raster
// (vis_stream.vert, shadow_stream.vert) reads it at its command's
// firstInstance. The occlusion slot is two-pass Hi-Z (docs/ARCHITECTURE.md
// "Occlusion culling"), for a stream whose head says so (prev.y), in two
// steps (OAK_HIZ_STEP): EARLY, before the raster, lists for the camera
// (pass 1) only the instances visible last frame (their word in
// OAK_B_HIZ_KEEP); LATE, after the pyramid, tests every instance in the
// frustum against it (common/hiz.glsl hiz_visible, the draws' test too),
// writes its word for next frame and lists the newly visible for pass 2
// (view OAK_GPU_INSTCULL_LATE). Without Hi-Z, an instance small on screen
// in a band the hardware draws joins the camera's SMALL list instead
// (small_one; the compute raster draws it). The cascades' lists are EARLY's alone: the
// camera's occlusion never removes a caster. The per-instance LOD override
// (tiers) is CPU-side for now.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"
#include "common/hiz.glsl"

layout(local_size_x = 64) in;

OAK_SSBO(OAK_B_INSTANCES) readonly buffer InstanceBlock { oak_gpu_instance instances[]; };
OAK_SSBO(OAK_B_INSTANCE_OUT) buffer InstanceOutBlock {
    oak_gpu_instcull heads[OAK_STREAM_MAX_PER_VIEW];
    uint words[];
};
#define OAK_BEND_HEADS heads
#include "common/bend.glsl"

// View 0: the camera's frustum (6 planes); view v > 0: cascade v - 1's
// OAK_CASCADE_MOVER_PLANES (oak_gpu_instcull.cascade_planes).
bool meets(uint s, uint v, vec3 c, float rad) {
    uint n = v == 0u ? 6u : uint(OAK_CASCADE_MOVER_PLANES);
    for (uint p = 0u; p < n; p++) {
        vec4 pl = v == 0u ? heads[s].planes[p]
                          : heads[s].cascade_planes[(v - 1u) * uint(OAK_CASCADE_MOVER_PLANES) + p];
        if (pl.x * c.x + pl.y * c.y + pl.z * c.z + pl.w < -rad) return false;
    }
    return true;
}

// The compute raster's per-instance split (oak_gpu.h small_at): an instance
// of a band the host left on the hardware whose own triangles are small on
// screen (the band rule per instance: from small_at x its scale on) and whose
// sphere lies clear of the near plane (by its radius + znear: the raster
// has no clipping) is drawn by the compute raster from the SMALL list.
bool small_one(uint s, uint lod, float dist, float sc, vec3 c, float rad) {
    float at = heads[s].small_at[lod];
    if (!(at > 0.0) || dist < at * sc) return false;
    vec4 near = heads[s].planes[5]; // oak_frustum_planes: depth - znear
    return near.x * c.x + near.y * c.y + near.z * c.z + near.w > rad + heads[s].eye.w;
}

// The Hi-Z head's stream counters (oak_gpu_hiz_head.streams): k = 0 tested,
// 1 hidden, 2 drawn in pass 1, 3 in pass 2.
void count_in(uint k) {
    atomicAdd(hw[H_STREAMS + k], 1u);
}

void append(uint s, uint v, uint lod, uint word) {
    uvec4 info = heads[s].info;
    uint list = v * uint(OAK_STREAM_LODS) + lod;
    uint slot = atomicAdd(words[info.w + list * 5u + 1u], 1u);
    words[info.w + uint(OAK_GPU_INSTCULL_HEAD_WORDS) + list * info.x + slot] = word;
}

void main() {
    uint s = gl_WorkGroupID.y, i = gl_GlobalInvocationID.x;
    uvec4 info = heads[s].info;
    if (i >= info.x) return;
    oak_gpu_instance r = instances[info.z + i];
    // the matrix the raster draws (wind, benders, sink), so the sphere holds it
    mat4 M = oak_bent_instance(r, s, heads[s].bend_gust.z);
    mat3 R = mat3(M);
    float sc = r.position_scale.w;
    vec3 pos = r.position_scale.xyz;
    vec3 d = pos - heads[s].eye.xyz;
    float dist = sqrt(dot(d, d));
    uint lods = info.y, lod = 0u;
    while (lod + 1u < lods && dist >= heads[s].lod_distance[lod]) lod++;
    float last = heads[s].lod_distance[lods - 1u];
    uint hiz = heads[s].prev.y, bit = heads[s].prev.z + i;
    // a cut or a stale stream draws none of it in pass 1, and LATE rewrites
    // every word (as a cut empties the draws' pass 1)
    bool fresh = hiz != OAK_GPU_INSTCULL_HIZ_OFF &&
                 (hw[H_CUT] != 0u || hiz == OAK_GPU_INSTCULL_HIZ_EMPTY);
    if ((lod + 1u == lods && last > 0.0 && dist >= last) || !(sc > 0.0)) {
        if (fresh && OAK_HIZ_STEP == OAK_GPU_HIZ_STEP_LATE) keep[bit] = 0u;
        return;
    }
    vec4 b = heads[s].bounds[lod];
    vec3 c = R * b.xyz + M[3].xyz;
    float rad = b.w * max(length(R[0]), max(length(R[1]), length(R[2])));
    uint word = i | (s << OAK_GPU_ID_STREAM_SHIFT) | (lod << OAK_GPU_ID_LOD_SHIFT);
    bool seen = meets(s, 0u, c, rad);
    if (hiz == OAK_GPU_INSTCULL_HIZ_OFF) {
        if (seen && OAK_HIZ_STEP == OAK_GPU_HIZ_STEP_EARLY)
            append(s, small_one(s, lod, dist, sc, c, rad) ? uint(OAK_GPU_INSTCULL_SMALL) : 0u, lod,
                   word);
    } else {
        // pass 1: visible last frame (its word)
        bool early = seen && !fresh && keep[bit] != 0u;
        if (OAK_HIZ_STEP == OAK_GPU_HIZ_STEP_LATE) {
            bool vis = false;
            if (seen) {
                vis = hiz_visible(c, rad);
                count_in(0u);
                if (!vis) count_in(1u);
                if (vis && !early) {
                    append(s, uint(OAK_GPU_INSTCULL_LATE), lod, word);
                    count_in(3u);
                }
            }
            // outside the frustum it keeps its word, unless stale
            if (seen || fresh) keep[bit] = vis ? 1u : 0u;
            return;
        }
        if (early) {
            append(s, 0u, lod, word);
            count_in(2u);
        }
    }
    if (OAK_HIZ_STEP != OAK_GPU_HIZ_STEP_EARLY) return;
    // casters: every instance drawn at all (in view or not), as the CPU's
    // expanded draws cast
    uint cascades = heads[s].draw.w;
    for (uint v = 1u; v <= cascades; v++)
        if (meets(s, v, c, rad)) append(s, v, lod, word);
}
