#version 450
// The skin pass: each mesh posed by joint palettes (asset.h
// oak_mesh_update_palette) skinned into its own range of the vertex pools,
// this pose and the previous one (motion vectors), from the rest pose kept
// in the attributes' second half (oak_gpu.h "The skin pass"). Everything
// that draws or re-fetches the mesh then reads posed vertices as for a mesh
// posed on the CPU. The arithmetic is the CPU's (asset/pose_rows.h
// _oak_pose_vertex): the rest morphed by each target's weight in order, the
// 4 (or 8) joints' rows weighed and summed in order, then three dot products.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(local_size_x = OAK_GPU_SKIN_GROUP) in;

OAK_SSBO(OAK_B_SKIN) readonly buffer SkinBlock { uvec4 skin[]; };
OAK_SSBO(OAK_B_POSITIONS) buffer PositionBlock { vec4 positions[]; };
// the attributes as bits: 4 uvec4 a vertex (oak_gpu_vertex)
OAK_SSBO(OAK_B_ATTRIBUTES) buffer AttributeBlock { uvec4 attribute_words[]; };

// k times joint j's three rows (palette at `at`), added to r.
void skin_add(uint at, uint j, float k, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
    uint a = at + j * 3u;
    r0 += k * uintBitsToFloat(skin[a]);
    r1 += k * uintBitsToFloat(skin[a + 1u]);
    r2 += k * uintBitsToFloat(skin[a + 2u]);
}

void skin_rows(uint at, uvec4 j, vec4 w, out vec4 r0, out vec4 r1, out vec4 r2) {
    r0 = vec4(0.0);
    r1 = vec4(0.0);
    r2 = vec4(0.0);
    skin_add(at, j.x, w.x, r0, r1, r2);
    skin_add(at, j.y, w.y, r0, r1, r2);
    skin_add(at, j.z, w.z, r0, r1, r2);
    skin_add(at, j.w, w.w, r0, r1, r2);
}

// the second set of 4 joints (influences 5..8), after the first
void skin_more(uint at, uvec4 j, vec4 w, inout vec4 r0, inout vec4 r1, inout vec4 r2) {
    skin_add(at, j.x, w.x, r0, r1, r2);
    skin_add(at, j.y, w.y, r0, r1, r2);
    skin_add(at, j.z, w.z, r0, r1, r2);
    skin_add(at, j.w, w.w, r0, r1, r2);
}

vec3 skin_dir(vec4 r0, vec4 r1, vec4 r2, vec3 d) {
    vec3 o = vec3(dot(r0.xyz, d), dot(r1.xyz, d), dot(r2.xyz, d));
    float l = length(o);
    return l > 0.0 ? o / l : d;
}

float morph_weight(uint at, uint t) {
    return uintBitsToFloat(skin[at + t / 4u][t % 4u]);
}

void main() {
    uint slot = 1u + 2u * gl_WorkGroupID.y;
    uvec4 job = skin[slot], more = skin[slot + 1u];
    uint v = gl_GlobalInvocationID.x;
    if (v >= job.y) return;
    uint n = job.y;
    uint dst = job.x + v, src = (job.x + n + v) * 4u;
    uvec4 a0 = attribute_words[src], a1 = attribute_words[src + 1u];
    uvec4 a2 = attribute_words[src + 2u], a3 = attribute_words[src + 3u];
    uvec4 j = uvec4(a0.w & 0xffffu, a0.w >> 16, a3.w & 0xffffu, a3.w >> 16);
    vec4 w = uintBitsToFloat(a2);
    vec4 t = uintBitsToFloat(a1);
    vec3 p = uintBitsToFloat(a3.xyz), nr = uintBitsToFloat(a0.xyz), tn = t.xyz;
    vec3 pp = p; // the previous pose's, morphed by the previous weights
    uint extra = job.x + 2u * n; // the second set of joints, then the morph deltas
    uvec4 j1 = uvec4(0u);
    vec4 w1 = vec4(0.0);
    if (more.x != 0u) {
        uvec4 b0 = attribute_words[(extra + v) * 4u], b1 = attribute_words[(extra + v) * 4u + 1u];
        w1 = uintBitsToFloat(b0);
        j1 = uvec4(b1.x & 0xffffu, b1.x >> 16, b1.y & 0xffffu, b1.y >> 16);
        extra += n;
    }
    for (uint k = 0u; k < more.y; k++) { // rest + w x delta, target by target
        float wk = morph_weight(more.z, k), wp = morph_weight(more.z, more.y + k);
        if (wk == 0.0 && wp == 0.0) continue;
        uint s = (extra + k * n + v) * 4u;
        vec3 dp = uintBitsToFloat(attribute_words[s].xyz);
        if (wk != 0.0) {
            p += wk * dp;
            nr += wk * uintBitsToFloat(attribute_words[s + 1u].xyz);
            tn += wk * uintBitsToFloat(attribute_words[s + 2u].xyz);
        }
        if (wp != 0.0) pp += wp * dp;
    }
    vec4 r0, r1, r2;
    skin_rows(job.z, j, w, r0, r1, r2);
    if (more.x != 0u) skin_more(job.z, j1, w1, r0, r1, r2);
    vec4 p4 = vec4(p, 1.0);
    positions[dst] = vec4(dot(r0, p4), dot(r1, p4), dot(r2, p4), 1.0);
    attribute_words[dst * 4u] = uvec4(floatBitsToUint(skin_dir(r0, r1, r2, nr)), 0u);
    attribute_words[dst * 4u + 1u] = uvec4(floatBitsToUint(skin_dir(r0, r1, r2, tn)), floatBitsToUint(t.w));
    uint prev = job.z + job.w * 3u; // the previous pose
    skin_rows(prev, j, w, r0, r1, r2);
    if (more.x != 0u) skin_more(prev, j1, w1, r0, r1, r2);
    p4 = vec4(pp, 1.0);
    positions[dst + n] = vec4(dot(r0, p4), dot(r1, p4), dot(r2, p4), 1.0);
}
