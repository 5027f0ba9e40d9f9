#version 450
// The cull-and-LOD kernel of render/stream_cull.c in compute: one invocation
// per instance, one row of work groups per stream (gl_WorkGroupID.y). Record
// to matrix, LOD by distance, the LOD mesh's sphere against the camera's
// frustum and each cascade's map volume (render/shadow_fit.c's static-caster
// box, which holds its movers' test too); in each view it meets the instance
// counts into that (view, LOD)'s indirect command and joins its list (list
// order is the atomics', the count is exact). A list word is instance |
// stream << 24 | LOD << 30 (oak_gpu.h "Visibility ids"): the stream raster
// (vis_stream.vert, shadow_stream.vert) reads it at its command's
// firstInstance. The occlusion slot: the frontend's coarse depth grid
// (render/occlusion.c, the same test as _oak_occ_sphere_visible) when a head
// names one; the per-instance LOD override (tiers) is CPU-side for now.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(local_size_x = 64) in;

OAK_SSBO(OAK_B_INSTANCES) readonly buffer InstanceBlock { oak_gpu_instance instances[]; };
OAK_SSBO(OAK_B_INSTANCE_OUT) buffer InstanceOutBlock {
    oak_gpu_instcull heads[OAK_STREAM_MAX_PER_VIEW];
    uint words[];
};
#define OAK_BEND_HEADS heads
#include "common/bend.glsl"

bool meets(uint s, uint first, vec3 c, float rad) {
    for (uint p = 0u; p < 6u; p++) {
        vec4 pl = first == 0u ? heads[s].planes[p] : heads[s].cascade_planes[first - 6u + p];
        if (pl.x * c.x + pl.y * c.y + pl.z * c.z + pl.w < -rad) return false;
    }
    return true;
}

// False when the sphere lies behind the occlusion grid: its world box's
// corners give a screen rectangle (grown a pixel) and its nearest depth, and
// every texel under it holds a nearer full layer.
bool occ_visible(uint s, vec3 c, float rad) {
    uint g = heads[s].prev.y;
    if (g == 0u) return true;
    g -= 1u;
    mat4 vp;
    for (uint k = 0u; k < 16u; k++) vp[k / 4u][k % 4u] = uintBitsToFloat(words[g + k]);
    uint tw = words[g + 16u], th = words[g + 17u];
    float W = float(words[g + 18u]), H = float(words[g + 19u]);
    vec2 lo = vec2(3.0e38), hi = vec2(-3.0e38);
    float zn = 0.0;
    for (uint k = 0u; k < 8u; k++) {
        vec3 p = c + rad * vec3((k & 1u) != 0u ? 1.0 : -1.0, (k & 2u) != 0u ? 1.0 : -1.0,
                                (k & 4u) != 0u ? 1.0 : -1.0);
        vec4 q = vp * vec4(p, 1.0);
        if (!(q.w > 1e-6)) return true;
        vec2 xy = (q.xy / q.w * 0.5 + 0.5) * vec2(W, H);
        lo = min(lo, xy);
        hi = max(hi, xy);
        zn = max(zn, q.z / q.w);
    }
    if (!(zn < 1.0)) return true;
    lo -= 1.0;
    hi += 1.0;
    if (!(hi.x >= 0.0) || !(hi.y >= 0.0) || !(lo.x < W) || !(lo.y < H)) return true;
    float T = float(OAK_OCC_TEXEL);
    uint tx0 = lo.x > 0.0 ? uint(lo.x / T) : 0u, ty0 = lo.y > 0.0 ? uint(lo.y / T) : 0u;
    uint tx1 = min(hi.x < W ? uint(hi.x / T) : tw - 1u, tw - 1u);
    uint ty1 = min(hi.y < H ? uint(hi.y / T) : th - 1u, th - 1u);
    float need = zn + zn * 1e-5 + 1e-7;
    for (uint ty = ty0; ty <= ty1; ty++)
        for (uint tx = tx0; tx <= tx1; tx++)
            if (!(uintBitsToFloat(words[g + 20u + ty * tw + tx]) > need)) return true;
    return false;
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
    if ((lod + 1u == lods && last > 0.0 && dist >= last) || !(sc > 0.0)) return;
    vec4 b = heads[s].bounds[lod];
    vec3 c = R * b.xyz + M[3].xyz;
    float rad = b.w * max(length(R[0]), max(length(R[1]), length(R[2])));
    uint word = i | (s << OAK_GPU_ID_STREAM_SHIFT) | (lod << OAK_GPU_ID_LOD_SHIFT);
    if (meets(s, 0u, c, rad) && occ_visible(s, c, rad)) append(s, 0u, lod, word);
    // casters: every instance drawn at all (in view or not), as the CPU's
    // expanded draws cast
    uint cascades = heads[s].draw.w;
    for (uint v = 1u; v <= cascades; v++)
        if (meets(s, v * 6u, c, rad)) append(s, v, lod, word);
}
