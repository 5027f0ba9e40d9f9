// Screen-space reflections (docs/SHADING.md "Screen-space reflections"):
// the mirror buffer the resolve writes (OAK_B_SSR: two vec4 a pixel, the
// split-sum weight with the reflected direction's octahedral x, then the
// reflection it replaces with its y) and the march of a reflected ray
// against the depth buffer. backend/cpu/cpu_pass_ssr.c is the C of the same
// arithmetic. The includer defines OAK_SSR_DEPTH(px), the device depth
// (reversed-Z, 0 far) at pixel px, before calling oak_ssr_march; the forward
// pass (water) may call it over the opaque copy later.
#ifndef OAK_SSR_GLSL
#define OAK_SSR_GLSL

#include "common/bindings.glsl"

#ifdef OAK_SSR_WRITE
OAK_SSBO(OAK_B_SSR) writeonly buffer SsrBlock { vec4 ssr_texels[]; };
#elif defined(OAK_SSR_READ)
OAK_SSBO(OAK_B_SSR) readonly buffer SsrBlock { vec4 ssr_texels[]; };
#endif

// unit n to the octahedron's square [-1, 1]^2, and back
vec2 oak_ssr_oct(vec3 n) {
    n /= abs(n.x) + abs(n.y) + abs(n.z);
    if (n.y < 0.0) {
        vec2 f = vec2(n.x >= 0.0 ? 1.0 : -1.0, n.z >= 0.0 ? 1.0 : -1.0);
        return (1.0 - abs(n.zx)) * f;
    }
    return n.xz;
}
vec3 oak_ssr_unoct(vec2 e) {
    vec3 n = vec3(e.x, 1.0 - abs(e.x) - abs(e.y), e.y);
    if (n.y < 0.0) {
        vec2 f = vec2(n.x >= 0.0 ? 1.0 : -1.0, n.z >= 0.0 ? 1.0 : -1.0);
        n.xz = (1.0 - abs(vec2(e.y, e.x))) * f;
    }
    return normalize(n);
}

// world point of NDC (x, y) at device depth d
vec3 oak_ssr_unproject(vec2 xy, float d) {
    vec4 r = view.inv_view_proj * vec4(xy, d, 1.0);
    return r.xyz / r.w;
}

// the world point seen at pixel px's jittered centre at device depth d
vec3 oak_ssr_point(ivec2 px, float d) {
    vec2 xy = vec2((float(px.x) + 0.5 - view.taa.x) / float(view.size.x) * 2.0 - 1.0,
                   1.0 - (float(px.y) + 0.5 - view.taa.y) / float(view.size.y) * 2.0);
    return oak_ssr_unproject(xy, d);
}

// the pixel whose jittered centre NDC xy falls in (may lie off screen)
ivec2 oak_ssr_pixel(vec2 xy) {
    vec2 s = vec2(view.size.xy);
    return ivec2(floor(vec2((xy.x + 1.0) * 0.5 * s.x + view.taa.x,
                            (1.0 - xy.y) * 0.5 * s.y + view.taa.y)));
}

#ifdef OAK_SSR_DEPTH
// The ray from pixel px (device depth d0) along unit R, marched on screen:
// `steps` even steps to where it leaves OAK_SSR_DISTANCE (or the eye's
// near side), then `halvings` halvings between the last miss and the
// first step behind a surface (within OAK_SSR_THICKNESS of it). Returns the
// hit's pixel and in fade its weight (the screen's edge, the ray's length);
// false on a miss.
// oak_ssr_march_from starts at world point P0 seen in pixel px (water's
// surface, which the depth does not hold), at water's counts
// (OAK_SSR_WATER_STEPS and _HALVINGS); the puddles' pass takes OAK_SSR_STEPS
// and OAK_SSR_HALVINGS.
bool oak_ssr_march_from(vec3 P0, ivec2 px, vec3 R, int steps, int halvings, out ivec2 hit,
                        out float fade) {
    hit = px;
    fade = 0.0;
    uint W = view.size.x, H = view.size.y;
    vec4 c0 = view.view_proj * vec4(P0, 1.0);
    float L = OAK_SSR_DISTANCE;
    vec4 c1 = view.view_proj * vec4(P0 + R * L, 1.0);
    float wmin = 0.05; // the end kept in front of the eye
    if (c1.w < wmin) {
        if (c0.w <= wmin) return false;
        L *= (c0.w - wmin) / (c0.w - c1.w);
        c1 = view.view_proj * vec4(P0 + R * L, 1.0);
    }
    vec3 n0 = c0.xyz / c0.w, n1 = c1.xyz / c1.w;
    float lo = 0.0, hi = -1.0;
    for (int i = 1; i <= steps; i++) {
        float s = float(i) * (1.0 / float(steps));
        vec3 n = mix(n0, n1, s);
        ivec2 q = oak_ssr_pixel(n.xy);
        if (q.x < 0 || q.y < 0 || q.x >= int(W) || q.y >= int(H)) return false;
        float ds = OAK_SSR_DEPTH(q);
        if (q != px && ds > 0.0 && n.z < ds) { // behind the surface there
            vec3 Pr = oak_ssr_unproject(n.xy, n.z), Q = oak_ssr_unproject(n.xy, ds);
            if (dot(view.view_depth.xyz, Pr - Q) < OAK_SSR_THICKNESS) {
                hi = s;
                break;
            }
        }
        lo = s;
    }
    if (hi < 0.0) return false;
    for (int i = 0; i < halvings; i++) {
        float s = (lo + hi) * 0.5;
        vec3 n = mix(n0, n1, s);
        ivec2 q = oak_ssr_pixel(n.xy);
        float ds = OAK_SSR_DEPTH(q);
        if (ds > 0.0 && n.z < ds)
            hi = s;
        else
            lo = s;
    }
    vec3 n = mix(n0, n1, hi);
    hit = oak_ssr_pixel(n.xy);
    float ds = OAK_SSR_DEPTH(hit);
    if (hit == px || ds <= 0.0) return false;
    vec2 uv = (vec2(hit) + 0.5) / vec2(float(W), float(H));
    float e = min(min(uv.x, 1.0 - uv.x), min(uv.y, 1.0 - uv.y));
    float dist = length(oak_ssr_unproject(n.xy, ds) - P0);
    fade = clamp(e * (1.0 / OAK_SSR_EDGE), 0.0, 1.0) *
           clamp((1.0 - dist * (1.0 / OAK_SSR_DISTANCE)) * (1.0 / OAK_SSR_FADE), 0.0, 1.0);
    return true;
}

bool oak_ssr_march(ivec2 px, float d0, vec3 R, out ivec2 hit, out float fade) {
    return oak_ssr_march_from(oak_ssr_point(px, d0), px, R, OAK_SSR_STEPS, OAK_SSR_HALVINGS, hit,
                              fade);
}
#endif

#endif
