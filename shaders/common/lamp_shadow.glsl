// Lamp shadows (docs/SHADING.md "Lamp shadows", as cpu_lamp_shadow.c): the
// budget's slots and faces, a lamp's lit fraction at a surface point, and
// the atlas as --debug lamp-shadows shows it.
#ifndef OAK_LAMP_SHADOW_GLSL
#define OAK_LAMP_SHADOW_GLSL

#include "common/bindings.glsl"

OAK_SSBO(OAK_B_LAMP_SHADOWS) readonly buffer LampShadowBlock { oak_gpu_lamp_shadows lamp; };

#ifndef OAK_LAMP_SHADOW_BLOCK_ONLY
OAK_BINDING(OAK_B_LAMP_ATLAS) uniform sampler2D lamp_atlas;

// Face of a cube (+x -x +y -y +z -z) that direction d falls in.
uint oak_cube_face(vec3 d) {
    vec3 a = abs(d);
    if (a.x >= a.y && a.x >= a.z) return d.x >= 0.0 ? 0u : 1u;
    if (a.y >= a.z) return d.y >= 0.0 ? 2u : 3u;
    return d.z >= 0.0 ? 4u : 5u;
}

// Metres from the lamp (along the face's axis) that a stored depth means.
float oak_lamp_metres(float z, float n, float f) {
    return n * f / (z * (f - n) + n);
}

float oak_lamp_texel(uint tile, int i, int j) {
    ivec2 origin = ivec2(int(tile % uint(OAK_LAMP_ATLAS_TILES)),
                         int(tile / uint(OAK_LAMP_ATLAS_TILES))) * OAK_LAMP_SHADOW_FACE;
    return texelFetch(lamp_atlas, origin + ivec2(i, j), 0).r;
}

// Lit fraction of the lamp in slot `slot` at P (geometric normal Ng).
float oak_lamp_shadow(uint slot, vec3 P, vec3 Ng) {
    oak_gpu_lamp_slot ls = lamp.slots[slot];
    vec3 lp = ls.position.xyz;
    float near = ls.position.w, far = ls.info.x, th = ls.info.y;
    uint first = uint(ls.info.z), count = uint(ls.info.w);
    vec3 dv = P - lp;
    float dist = length(dv);
    float fade = clamp((dist / far - (1.0 - float(OAK_LAMP_SHADOW_FADE))) /
                           float(OAK_LAMP_SHADOW_FADE),
                       0.0, 1.0);
    if (fade >= 1.0) return 1.0;
    const float F = float(OAK_LAMP_SHADOW_FACE);
    uint k = count == 6u ? oak_cube_face(dv) : 0u;
    vec4 q = lamp.faces[first + k].view * vec4(P, 1.0);
    float texel = 2.0 * th * max(-q.z, 0.0) / F;
    vec3 Pw = P + Ng * (float(OAK_LAMP_SHADOW_NORMAL_OFFSET) * texel);
    if (count == 6u) k = oak_cube_face(Pw - lp);
    mat4 V = lamp.faces[first + k].view;
    uint tile = lamp.faces[first + k].info.x;
    vec3 pv = (V * vec4(Pw, 1.0)).xyz;
    float d = -pv.z;
    if (!(d > near * 0.5)) return 1.0;
    vec3 nv = mat3(V) * Ng;
    float u = (pv.x / d / th) * 0.5 + 0.5, w = (pv.y / d / th) * 0.5 + 0.5;
    if (!(u >= 0.0 && u <= 1.0 && w >= 0.0 && w <= 1.0)) return 1.0;
    texel = 2.0 * th * d / F;
    float bias = float(OAK_LAMP_SHADOW_BIAS) * texel;
    float np = dot(nv, pv);
    float lim = 16.0 * texel;
    const int K = OAK_LAMP_SHADOW_PCF_SIZE, S = OAK_LAMP_SHADOW_FACE;
    float us = u * F, ws = w * F;
    float tu = us - 0.5 - 0.5 * float(K - 1), tw = ws - 0.5 - 0.5 * float(K - 1);
    float fi = floor(tu), fj = floor(tw), gi = tu - fi, gj = tw - fj;
    int i0 = int(fi), j0 = int(fj);
    float lit = 0.0;
    OAK_DONT_UNROLL for (int bj = 0; bj <= K; bj++) {
        float wy = bj == 0 ? 1.0 - gj : bj == K ? gj : 1.0;
        int jj = clamp(j0 + bj, 0, S - 1);
        float ry = ((float(j0 + bj) + 0.5) / F * 2.0 - 1.0) * th;
        float row = 0.0;
        OAK_DONT_UNROLL for (int bi = 0; bi <= K; bi++) {
            float wx = bi == 0 ? 1.0 - gi : bi == K ? gi : 1.0;
            int ii = clamp(i0 + bi, 0, S - 1);
            // the receiver's plane along the ray through this texel's centre
            float rx = ((float(i0 + bi) + 0.5) / F * 2.0 - 1.0) * th;
            float den = nv.x * rx + nv.y * ry - nv.z;
            float t = den < -1e-6 ? clamp(np / den, d - lim, d + lim) : d;
            float occ = oak_lamp_metres(oak_lamp_texel(tile, ii, jj), near, far);
            if (t - bias <= occ) row += wx;
        }
        lit += wy * row;
    }
    float s = lit / float(K * K);
    return s + (1.0 - s) * fade;
}

// --debug lamp-shadows: the atlas in a square at the picture's left, as
// tall as the picture (cpu_lamp_shadow.c says how it maps).
bool oak_lamp_atlas_debug(ivec2 px, out vec3 rgb) {
    uint H = view.size.y;
    rgb = vec3(0.0, 0.0, 0.05);
    if (uint(px.x) >= H) return false;
    const uint A = uint(OAK_LAMP_ATLAS_TILES * OAK_LAMP_SHADOW_FACE), F = uint(OAK_LAMP_SHADOW_FACE);
    uint ax = ((uint(px.x) * 2u + 1u) * A) / (2u * H), ay = ((uint(px.y) * 2u + 1u) * A) / (2u * H);
    uint tile = (ay / F) * uint(OAK_LAMP_ATLAS_TILES) + ax / F;
    for (uint s = 0u; s < lamp.head.x; s++) {
        oak_gpu_lamp_slot ls = lamp.slots[s];
        uint first = uint(ls.info.z), count = uint(ls.info.w);
        for (uint k = 0u; k < count; k++) {
            if (lamp.faces[first + k].info.x != tile) continue;
            float m = oak_lamp_metres(oak_lamp_texel(tile, int(ax % F), int(F - 1u - ay % F)),
                                      ls.position.w, ls.info.x);
            rgb = vec3(clamp(1.0 - m / ls.info.x, 0.0, 1.0));
            return true;
        }
    }
    return true;
}
#endif

#endif
