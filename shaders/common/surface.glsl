// A surface pixel shaded as the contract says, from a (draw, triangle) and
// the pixel: the triangle comes from the pools, perspective-correct
// barycentrics and their screen derivatives (for texture LOD) are rebuilt
// from its clip positions, then material, lights, shadow, ambient and fog.
// Used by the visibility resolve and by the forward pass of BLEND surfaces.
#ifndef OAK_SURFACE_GLSL
#define OAK_SURFACE_GLSL

#include "common/bindings.glsl"
#include "common/draw.glsl"
#include "common/textures.glsl"
#include "common/material_fx.glsl"
#include "common/shading.glsl"
#include "common/light_grid.glsl"
#include "common/lamp_shadow.glsl"
#include "common/cloud_shadow.glsl"
#include "common/fog.glsl"
#include "common/aerial.glsl"
#include "common/water_side.glsl"
#ifdef OAK_FORWARD
#include "common/transmission.glsl"
// water's reflections march against the opaque copy's depth (level 0's w)
#define OAK_SSR_DEPTH(q) opaque_texels[uint(q.y) * view.size.x + uint(q.x)].w
#include "common/ssr.glsl"
#endif

OAK_BINDING(OAK_B_SHADOW) uniform sampler2D shadow_map; // the 2 x 2 cascade atlas

// The gtao term at a pixel (the resolve defines it from the ao buffer;
// BLEND surfaces, drawn over the opaque frame, take 1).
#ifndef OAK_GTAO_AT
#define OAK_GTAO_AT(px) 1.0
#endif

#ifdef OAK_SSR_OUT
// The resolve's mirror pixel (a puddle, docs/SHADING.md "Screen-space
// reflections"): the split-sum weight of its reflection (ao, Fresnel, the
// puddle's share, the fog's transmittance; 0: no mirror), the reflection
// itself and the reflected direction; oak_shade_draw sets them.
vec3 oak_ssr_w = vec3(0.0), oak_ssr_r = vec3(0.0), oak_ssr_dir = vec3(0.0, 1.0, 0.0);
#endif

// Lit fraction in cascade c (docs/SHADING.md "Shadow", as cpu_shadow.c).
// L: unit, towards the sun.
float oak_cascade_lit(int c, vec3 P, vec3 Ng, vec3 L) {
    mat4 M = view.shadow_view_proj[c];
    int S = int(view.flags.z);
    float T = view.shadow_texel[c], R = view.shadow_depth[c];
    float cosT = dot(Ng, L);
    float sinT = sqrt(clamp(1.0 - cosT * cosT, 0.0, 1.0));
    float tanT = cosT > 0.0 ? sinT / cosT : float(OAK_SHADOW_MAX_SLOPE);
    tanT = clamp(tanT, 0.0, float(OAK_SHADOW_MAX_SLOPE));
    float off = float(OAK_SHADOW_NORMAL_OFFSET) * T * sinT;
    vec4 q = M * vec4(P + Ng * off, 1.0);
    float u = q.x * 0.5 + 0.5, w = q.y * 0.5 + 0.5, z = q.z;
    if (!(u >= 0.0 && u <= 1.0 && w >= 0.0 && w <= 1.0 && z >= 0.0 && z <= 1.0)) return 1.0;
    // the receiver's plane in map space: its normal by the cofactors of M's 3x3
    vec3 ax = vec3(M[0][0], M[1][0], M[2][0]), ay = vec3(M[0][1], M[1][1], M[2][1]);
    vec3 az = vec3(M[0][2], M[1][2], M[2][2]);
    float nx = dot(cross(ay, az), Ng), ny = dot(cross(az, ax), Ng), nz = dot(cross(ax, ay), Ng);
    float lim = float(OAK_SHADOW_MAX_SLOPE) * T / R, per = 2.0 / float(S);
    float dzdi = nz != 0.0 ? clamp(-nx / nz * per, -lim, lim) : 0.0;
    float dzdj = nz != 0.0 ? clamp(-ny / nz * per, -lim, lim) : 0.0;
    float bias = (float(OAK_SHADOW_CONST_BIAS) + float(OAK_SHADOW_SLOPE_BIAS) * tanT) * T / R;
    int K = int(view.shadow_start.y); // the preset's PCF size (gpu_records.c)
    float us = u * float(S), ws = w * float(S);
    float tu = us - 0.5 - 0.5 * float(K - 1), tw = ws - 0.5 - 0.5 * float(K - 1);
    float fi = floor(tu), fj = floor(tw);
    float gi = tu - fi, gj = tw - fj;
    ivec2 base = ivec2(int(fi), int(fj)), tile = ivec2(c & 1, c >> 1) * S;
    float lit = 0.0;
    OAK_DONT_UNROLL for (int bj = 0; bj <= K; bj++) {
        float wy = bj == 0 ? 1.0 - gj : bj == K ? gj : 1.0;
        int jj = base.y + bj;
        float zj = z + bias + dzdj * (float(jj) + 0.5 - ws);
        float row = 0.0;
        OAK_DONT_UNROLL for (int bi = 0; bi <= K; bi++) {
            float wx = bi == 0 ? 1.0 - gi : bi == K ? gi : 1.0;
            int ii = base.x + bi;
            if (ii < 0 || jj < 0 || ii >= S || jj >= S) {
                row += wx; // off the map: lit
                continue;
            }
            float zt = zj + dzdi * (float(ii) + 0.5 - us);
            if (zt >= texelFetch(shadow_map, tile + ivec2(ii, jj), 0).r) row += wx;
        }
        lit += wy * row;
    }
    return lit / float(K * K);
}

// The cascade P falls in by view depth; -1 past the last.
int oak_cascade_of(vec3 P) {
    float d = dot(view.view_depth, vec4(P, 1.0));
    int n = int(view.flags.x);
    for (int c = 0; c < n; c++)
        if (d <= view.shadow_split[c]) return c;
    return -1;
}

// The key light's shadow: its cascade, blended into the next one over the
// last OAK_SHADOW_BLEND of the slice (the last one fades out).
float oak_shadow(vec3 P, vec3 Ng, vec3 L) {
    int c = oak_cascade_of(P);
    if (c < 0) return 1.0;
    float s = oak_cascade_lit(c, P, Ng, L);
    float far = view.shadow_split[c], start = c > 0 ? view.shadow_split[c - 1] : view.shadow_start.x;
    float band = float(OAK_SHADOW_BLEND) * (far - start);
    float depth = dot(view.view_depth, vec4(P, 1.0));
    if (band > 0.0 && depth > far - band) {
        float t = (depth - (far - band)) / band;
        float next = c + 1 < int(view.flags.x) ? oak_cascade_lit(c + 1, P, Ng, L) : 1.0;
        s += (next - s) * t;
    }
    return s;
}

// --debug cascades: the colour tinted by the cascade P falls in.
vec3 oak_cascade_tint(vec3 P, vec3 rgb) {
    int c = oak_cascade_of(P);
    if (c == 0) return rgb * vec3(1.0, 0.25, 0.25);
    if (c == 1) return rgb * vec3(0.25, 1.0, 0.25);
    if (c == 2) return rgb * vec3(0.25, 0.25, 1.0);
    if (c == 3) return rgb * vec3(1.0, 1.0, 0.25);
    return rgb;
}

// Caustics: a web of bright lines, animated, on a point under the level,
// looked up where the sun's ray through it meets the level; a multiplier on
// its colour (docs/SHADING.md "Water"; the same in cpu_shade.c).
float oak_caustics(vec3 P, float lvl) {
    uint key = view.size.w;
    if (key == 0u) return 1.0;
    vec3 L = -lights[key - 1u].direction.xyz;
    if (L.y <= 0.0) return 1.0;
    vec2 q = (P.xz + L.xz * ((lvl - P.y) / L.y)) * float(OAK_WATER_CAUSTIC_SCALE);
    float t = view.water.w * float(6.283185307179586 / OAK_WATER_CAUSTIC_PERIOD);
    float a = sin(q.x + 1.3 * sin(0.7 * q.y + 9.0 * t));
    float b = sin(q.y + 1.3 * sin(0.8 * q.x - 10.0 * t));
    float c = 1.0 - min(abs(a), abs(b));
    c = c * c;
    c = c * c;
    c = c * c;
    float fade = exp(-float(OAK_WATER_CAUSTIC_FADE) * (lvl - P.y));
    return 1.0 + float(OAK_WATER_CAUSTIC_STRENGTH) * L.y * fade * c;
}

// Seen through the water's volume (docs/SHADING.md "Water"): Beer-Lambert
// over the view ray's length below the still level, towards deep water's
// radiance, then shore foam where the bottom is within the shore depth; an
// eye under the level (inside the extent) sees everything through the water
// up to the level: underwater fog, without foam.
vec3 oak_underwater(vec3 P, vec3 cam, vec3 colour) {
    if (view.water.z == 0.0) return colour;
    float lvl = view.water.x;
    vec4 e = view.water_extent;
    if (cam.y < lvl) {
        if (cam.x < e.x || cam.z < e.y || cam.x > e.z || cam.z > e.w) return colour;
        float under = P.y < lvl ? 1.0 : (lvl - cam.y) / (P.y - cam.y);
        if (P.y < lvl) colour *= oak_caustics(P, lvl);
        vec3 Tu = exp(-view.water_absorb.rgb * (under * length(cam - P)));
        return colour * Tu + view.water_scatter.rgb * (1.0 - Tu);
    }
    if (!(P.y < lvl && cam.y > lvl) || P.x < e.x || P.z < e.y || P.x > e.z || P.z > e.w)
        return colour;
    float len = (lvl - P.y) / (cam.y - P.y) * length(cam - P);
    colour *= oak_caustics(P, lvl);
    vec3 T = exp(-view.water_absorb.rgb * len);
    colour = colour * T + view.water_scatter.rgb * (1.0 - T);
    float t = clamp((lvl - P.y) / max(view.water.y, 1e-6), 0.0, 1.0);
    float foam = 1.0 - t * t * (3.0 - 2.0 * t);
    return mix(colour, view.water_foam.rgb, foam);
}

// The water's surface seen from below at P (docs/SHADING.md "Water"), N its
// normal turned to the eye, V towards the eye: Snell's window. The ray
// refracted out into the air (n = OAK_WATER_IOR) reads the sky light
// around it times 1 - F, F Schlick's on the air side's cosine (1 at the
// critical angle, so the window's edge is continuous), and F times deep
// water's radiance; past the critical angle total internal reflection
// mirrors the water: its radiance. Then the underwater fog over the eye's
// distance (cpu_shade.c _oak_cpu_water_underside).
// The key light's glitter seen from under the water: GGX transmission
// (Walter et al. 2007) from the light in the air, n = 1, to the eye in the
// water, n = OAK_WATER_IOR, through microfacets about N at the roughness:
// h = -(L + n V) turned to the eye's side, f = |L.h| |V.h| / (|L.N| |V.N|)
// n^2 (1 - F) G D / (L.h + n V.h)^2, F Schlick's on the air side's |L.h|,
// times the light's illuminance and |L.N| (cpu_shade.c water_glitter_below).
// Its shadows are not read.
vec3 oak_water_glitter_below(vec3 N, vec3 V, float roughness) {
    if (view.size.w == 0u) return vec3(0.0);
    oak_gpu_light l = lights[view.size.w - 1u];
    if (uint(l.position.w) != 1u) return vec3(0.0);
    vec3 L = -l.direction.xyz;
    float n = float(OAK_WATER_IOR), nv = dot(N, V), nl = -dot(N, L);
    if (nv <= 0.0 || nl <= 0.0) return vec3(0.0);
    vec3 h = -(L + V * n);
    float hl = length(h);
    if (hl < 1e-6) return vec3(0.0);
    h = h / hl;
    if (dot(h, N) < 0.0) h = -h;
    float vh = dot(V, h), lh = -dot(L, h), nh = dot(N, h);
    float den = n * vh - lh;
    if (vh <= 0.0 || lh <= 0.0 || den <= 0.0) return vec3(0.0);
    float a = roughness * roughness, a2 = a * a;
    float dd = nh * nh * (a2 - 1.0) + 1.0;
    float D = a2 / (float(OAK_PI_F) * dd * dd);
    float gv = 2.0 * nv / (nv + sqrt(a2 + (1.0 - a2) * nv * nv));
    float gl = 2.0 * nl / (nl + sqrt(a2 + (1.0 - a2) * nl * nl));
    float q = 1.0 - lh, q2 = q * q;
    float F = OAK_WATER_F0 + (1.0 - OAK_WATER_F0) * (q2 * q2 * q);
    float f = lh * vh / (nl * nv) * (n * n) * (1.0 - F) * gv * gl * D / (den * den);
    return l.color.rgb * (f * nl);
}

// oak_water_underside_air takes the refracted ray t and the radiance air
// arriving along it (the sky light, or what stands above the water), and
// adds the key light's glitter (V towards the eye, the roughness).
vec3 oak_water_underside_air(vec3 P, vec3 N, vec3 V, vec3 t, vec3 air, float roughness) {
    vec3 c = view.water_scatter.rgb;
    float ct = -dot(t, N);
    if (ct > 0.0) {
        float q = 1.0 - ct, q2 = q * q;
        float F = OAK_WATER_F0 + (1.0 - OAK_WATER_F0) * (q2 * q2 * q);
        c = air * (1.0 - F) + c * F;
    }
    c += oak_water_glitter_below(N, V, roughness);
    vec3 T = exp(-view.water_absorb.rgb * length(view.camera_pos.xyz - P));
    return c * T + view.water_scatter.rgb * (1.0 - T);
}

vec3 oak_water_underside(vec3 P, vec3 N, vec3 V, float roughness) {
    vec3 t = refract(-V, N, float(OAK_WATER_IOR));
    vec3 air = -dot(t, N) > 0.0 ? oak_sky_specular(t, roughness) + oak_sun_disc(t) : vec3(0.0);
    return oak_water_underside_air(P, N, V, t, air, roughness);
}

// The sky along dir (unit) from an eye under the water: water all the way
// down; up, water to the still level, then the window there.
vec3 oak_water_sky_below(vec3 dir) {
    if (dir.y <= 0.0) return view.water_scatter.rgb;
    vec3 cam = view.camera_pos.xyz;
    vec3 P = cam + dir * ((view.water.x - cam.y) / dir.y);
    return oak_water_underside(P, vec3(0.0, -1.0, 0.0), -dir, float(OAK_WATER_ROUGHNESS));
}

// A material texture's texel at the interpolated uv sets (xy set 0, zw set
// 1) and their screen derivatives; white where the slot is empty.
vec4 oak_material_tap(oak_gpu_texref r, vec4 uvs, vec4 duvx, vec4 duvy) {
    if (r.a.x == 0u) return vec4(1.0);
    bool set1 = ((r.a.w >> 18) & 1u) != 0u;
    vec2 uv = set1 ? uvs.zw : uvs.xy;
    vec2 dx = set1 ? duvx.zw : duvx.xy, dy = set1 ? duvy.zw : duvy.xy;
    return oak_sample(r, oak_tex_uv(r, uv), oak_tex_duv(r, dx), oak_tex_duv(r, dy));
}

// Lobe texture k's texel (oak_gpu.h lobe_map: its slot in lt), white where
// the material has none.
vec4 oak_lobe_texel(uvec4 lmap, uint k, vec4 lt[OAK_GPU_LOBE_TEX]) {
    uint s = (lmap[k / 10u] >> (3u * (k % 10u))) & 7u;
    return s == 0u ? vec4(1.0) : OAK_GET4(lt, s - 1u);
}

// The normal map's texel (rgb) on the interpolated normal Nv with tangent T
// and handedness w; scale multiplies its x and y.
vec3 oak_mapped_normal(vec3 texel, float scale, vec3 Nv, vec3 T, float w) {
    vec3 n = texel * 2.0 - 1.0;
    n.xy *= scale;
    vec3 B = cross(Nv, T) * w;
    return normalize(T * n.x + B * n.y + Nv * n.z);
}

// Weather on a surface (docs/SHADING.md "Weather"; cpu_shade.c's
// weather_surface is its twin). The puddle mask: value noise over world XZ
// in cells of OAK_PUDDLE_SCALE metres, from an integer hash of the cell.
float oak_puddle_hash(ivec2 c) {
    uint h = uint(c.x) * 0x8da6b343u ^ uint(c.y) * 0xd8163841u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    h *= 0x297a2d39u;
    h ^= h >> 15;
    return float(h >> 8) * (1.0 / 16777216.0);
}
float oak_puddle_noise(vec2 xz) {
    vec2 q = xz * (1.0 / OAK_PUDDLE_SCALE);
    vec2 f = floor(q);
    vec2 t = q - f;
    t = t * t * (3.0 - 2.0 * t);
    ivec2 c = ivec2(f);
    float a = oak_puddle_hash(c), b = oak_puddle_hash(c + ivec2(1, 0));
    float d = oak_puddle_hash(c + ivec2(0, 1)), e = oak_puddle_hash(c + ivec2(1, 1));
    return mix(mix(a, b, t.x), mix(d, e, t.x), t.y);
}
// Rain's rings on a puddle at world xz (cpu_shade.c's ripples is its twin):
// two grids of OAK_RIPPLE_CELL cells, the second offset by half a cell, one
// drop a period in each at a hashed time and place near the middle; its
// ring spreads at OAK_RIPPLE_SPEED, a Gaussian crest whose slope fades as
// (1 - age / period)^2. Returns the crests' tilt along world x and z.
vec2 oak_ripples(vec2 xz, float t, float rain) {
    vec2 tilt = vec2(0.0);
    for (int layer = 0; layer < 2; layer++) {
        vec2 q = xz * (1.0 / OAK_RIPPLE_CELL) + 0.5 * float(layer);
        vec2 f = floor(q);
        ivec2 c = ivec2(f) + ivec2(layer * 7919, 0);
        float phase = oak_puddle_hash(c);
        vec2 j = vec2(0.44 + 0.12 * oak_puddle_hash(c + ivec2(1301, 0)),
                      0.44 + 0.12 * oak_puddle_hash(c + ivec2(0, 1301)));
        float u = t * (1.0 / OAK_RIPPLE_PERIOD) + phase;
        float age = (u - floor(u)) * OAK_RIPPLE_PERIOD;
        vec2 dv = (q - f - j) * OAK_RIPPLE_CELL;
        float d = sqrt(dv.x * dv.x + dv.y * dv.y);
        float s = (d - OAK_RIPPLE_SPEED * age) * (1.0 / OAK_RIPPLE_WIDTH);
        if (!(abs(s) < 3.0) || !(d > 1e-4)) continue;
        float fade = 1.0 - age * (1.0 / OAK_RIPPLE_PERIOD);
        float g = OAK_RIPPLE_SLOPE * rain * fade * fade * 2.0 * s * exp(-s * s) / d;
        tilt += g * dv;
    }
    return tilt;
}

// Wetness darkens and smooths up-facing porous dielectrics and pools
// puddles on level ground; snow whitens what faces up. Returns how far the
// shading normal is to be flattened to Nv (puddles and snow hide the
// normal map), tilt the flat normal takes from rain's ripples and the
// puddle's share of the pixel (the ssr pass's mirrors).
float oak_weather_surface(vec3 P, vec3 Nv, inout vec3 base, inout float rough, inout float metallic,
                          inout vec2 tilt, out float puddle) {
    float wet = view.weather.x, snow = view.weather.y, flat_ = 0.0;
    puddle = 0.0;
    float dielectric = 1.0 - metallic;
    if (wet > 0.0) {
        float w = wet * smoothstep(OAK_WET_UP_LO, OAK_WET_UP_HI, Nv.y) * dielectric;
        float porous = smoothstep(OAK_WET_POROUS_LO, OAK_WET_POROUS_HI, rough);
        base *= 1.0 - (1.0 - OAK_WET_DARKEN) * w * porous;
        rough = mix(rough, min(rough, OAK_WET_ROUGHNESS), w);
        float cover = clamp(wet * 2.0 - 1.0, 0.0, 1.0) * OAK_PUDDLE_COVER;
        if (cover > 0.0 && Nv.y >= OAK_PUDDLE_UP) {
            float n = oak_puddle_noise(P.xz);
            float p = smoothstep(1.0 - cover, 1.0 - cover + OAK_PUDDLE_EDGE, n) * dielectric;
            base *= 1.0 - (1.0 - OAK_PUDDLE_DARKEN) * p;
            rough = mix(rough, OAK_PUDDLE_ROUGHNESS, p);
            flat_ = p;
            puddle = p;
            if (view.ripples.x > 0.0 && p > 0.0) {
                vec3 e = P - view.camera_pos.xyz;
                float near = clamp((OAK_RIPPLE_FAR - sqrt(dot(e, e))) *
                                       (1.0 / (OAK_RIPPLE_FAR - OAK_RIPPLE_NEAR)),
                                   0.0, 1.0);
                if (near > 0.0) tilt += oak_ripples(P.xz, view.ripples.y, view.ripples.x * near);
            }
        }
    }
    if (snow > 0.0) {
        float s = snow * smoothstep(OAK_SNOW_UP_LO, OAK_SNOW_UP_HI, Nv.y);
        base = mix(base, vec3(OAK_SNOW_ALBEDO), s);
        rough = mix(rough, OAK_SNOW_ROUGHNESS, s);
        metallic *= 1.0 - s;
        flat_ = max(flat_, s);
    }
    return flat_;
}

// Triangle tri of draw record d rebuilt at pixel px, the first step of
// oak_shade_draw and of blend_unlit.frag.glsl (so both give the same
// numbers): its vertices, their world positions, a posed instance's
// skinning rows per vertex, whether it faces away, and the pixel's
// barycentrics with their steps per pixel.
struct oak_tri {
    uint vi[3];
    vec3 Pw[3];
    vec4 sk0[3], sk1[3], sk2[3];
    vec3 b, dbx, dby;
    bool posed, back;
};
void oak_rebuild_tri(oak_gpu_draw d, uint tri, ivec2 px, out oak_tri t) {
    uint W = view.size.x, H = view.size.y;
    // NDC of the pixel centre less TAA's jitter (the point the jittered
    // raster sampled); row 0 is clip y = +1.
    vec2 ndc = vec2((float(px.x) + 0.5 - view.taa.x) / float(W) * 2.0 - 1.0,
                    1.0 - (float(px.y) + 0.5 - view.taa.y) / float(H) * 2.0);
    uint base = d.info.y + tri * 3u;
    uint vi[3];
    vec3 Pw[3];
    vec3 rows[3];
    // a posed instance (common/pose.glsl): each vertex's skinning rows, for
    // its position here and its normal and tangent below
    bool posed = d.prev.y != 0u;
    vec4 sk0[3], sk1[3], sk2[3];
    for (int k = 0; k < 3; k++) {
        uint v = indices[base + uint(k)] + d.info.z;
        vec4 Po = positions[v], r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
        if (posed) {
            uint s = d.prev.w & 0xffu;
            oak_stream_rows(s, d.prev.w >> 8, v - d.info.z, d.prev.z, r0, r1, r2);
            Po = oak_pose_apply(r0, r1, r2, Po);
        }
        vec3 pw = (d.world * Po).xyz;
        vec4 c = view.view_proj * vec4(pw, 1.0);
        OAK_PUT3(vi, k, v);
        OAK_PUT3(Pw, k, pw);
        OAK_PUT3(rows, k, c.xyw);
        OAK_PUT3(sk0, k, r0);
        OAK_PUT3(sk1, k, r1);
        OAK_PUT3(sk2, k, r2);
    }
    // Homogeneous barycentrics: b_i = (r_j x r_k) . p, so no clipping is needed.
    vec3 e0 = cross(rows[1], rows[2]), e1 = cross(rows[2], rows[0]), e2 = cross(rows[0], rows[1]);
    vec3 p = vec3(ndc, 1.0);
    vec3 E = vec3(dot(e0, p), dot(e1, p), dot(e2, p));
    float S = E.x + E.y + E.z;
    vec3 b = E / S;
    // d(ndc)/d(pixel): x grows right by 2/W, y falls by 2/H per row.
    vec3 dEx = vec3(e0.x, e1.x, e2.x) * (2.0 / float(W));
    vec3 dEy = -vec3(e0.y, e1.y, e2.y) * (2.0 / float(H));
    float dSx = dEx.x + dEx.y + dEx.z, dSy = dEy.x + dEy.y + dEy.z;
    // times the render scale: the mip bias log2(scale) that keeps a scaled
    // frame's textures as sharp as the output's
    float rs = view.post_params.w > 0.0 ? view.post_params.w : 1.0;
    vec3 dbx = (dEx * S - E * dSx) / (S * S) * rs;
    vec3 dby = (dEy * S - E * dSy) / (S * S) * rs;
    t.vi = vi;
    t.Pw = Pw;
    t.sk0 = sk0;
    t.sk1 = sk1;
    t.sk2 = sk2;
    t.b = b;
    t.dbx = dbx;
    t.dby = dby;
    t.posed = posed;
    // Winding in clip space: det(r0, r1, r2) > 0 for a counter-clockwise
    // (front) triangle on screen, perspective or orthographic alike.
    t.back = dot(rows[0], e0) < 0.0;
}

// Returns linear colour (fogged) and base alpha: triangle tri of draw
// record d (common/draw.glsl oak_fetch_draw gives it for any visibility id).
vec4 oak_shade_draw(oak_gpu_draw d, uint tri, ivec2 px) {
    oak_tri rt;
    oak_rebuild_tri(d, tri, px, rt);
    uint mi = d.info.x;
    uint vi[3] = rt.vi;
    vec3 Pw[3] = rt.Pw;
    vec4 sk0[3] = rt.sk0, sk1[3] = rt.sk1, sk2[3] = rt.sk2;
    vec3 b = rt.b, dbx = rt.dbx, dby = rt.dby;
    bool posed = rt.posed;

    oak_gpu_vertex a0 = attributes[vi[0]], a1 = attributes[vi[1]], a2 = attributes[vi[2]];
    if (posed) {
        a0.normal = oak_pose_apply(sk0[0], sk1[0], sk2[0], vec4(a0.normal.xyz, 0.0));
        a1.normal = oak_pose_apply(sk0[1], sk1[1], sk2[1], vec4(a1.normal.xyz, 0.0));
        a2.normal = oak_pose_apply(sk0[2], sk1[2], sk2[2], vec4(a2.normal.xyz, 0.0));
        a0.tangent.xyz = oak_pose_apply(sk0[0], sk1[0], sk2[0], vec4(a0.tangent.xyz, 0.0)).xyz;
        a1.tangent.xyz = oak_pose_apply(sk0[1], sk1[1], sk2[1], vec4(a1.tangent.xyz, 0.0)).xyz;
        a2.tangent.xyz = oak_pose_apply(sk0[2], sk1[2], sk2[2], vec4(a2.tangent.xyz, 0.0)).xyz;
    }
    vec3 P = b.x * Pw[0] + b.y * Pw[1] + b.z * Pw[2];
    mat3 nm = mat3(d.normal);
    vec3 Nv = normalize(nm * (b.x * a0.normal.xyz + b.y * a1.normal.xyz + b.z * a2.normal.xyz));
    vec4 Tv = b.x * a0.tangent + b.y * a1.tangent + b.z * a2.tangent;
    vec3 T = mat3(d.world) * Tv.xyz;
    // unit length, as the CPU's (a scaled instance's, e.g. a crowd's figure
    // at 1/200, would all but flatten its normal map)
    float Tl = dot(T, T);
    if (Tl > 0.0) T *= inversesqrt(Tl);
    vec4 uvs = b.x * a0.uv + b.y * a1.uv + b.z * a2.uv;
    if (posed) // an impostor card's cell (0 for any other posed mesh)
        uvs.xy += oak_impostor_uv(d.prev.w & 0xffu, d.prev.w >> 8, d.prev.z);
    vec4 duvx = dbx.x * a0.uv + dbx.y * a1.uv + dbx.z * a2.uv;
    vec4 duvy = dby.x * a0.uv + dby.y * a1.uv + dby.z * a2.uv;
    // the draw's colour and opacity (a stream instance's) ride in column 3 of its normal matrix
    vec4 C = (b.x * a0.color + b.y * a1.color + b.z * a2.color) * d.normal[3];
    vec3 Ng = normalize(cross(Pw[1] - Pw[0], Pw[2] - Pw[0]));
    vec3 cam = view.camera_pos.xyz;
    vec3 V = normalize(cam - P);
    uint mflags = uint(materials[mi].mode.y);
    bool back = rt.back;
    if ((mflags & OAK_GPU_MAT_DOUBLE_SIDED) != 0u && back) {
        Ng = -Ng;
        Nv = -Nv;
    }
#ifdef OAK_FORWARD
    // water shows its top from above and its underside from below; the
    // other side draws nothing (alpha 0: the blend keeps the frame exactly)
    bool wunder = (mflags & OAK_GPU_MAT_WATER) != 0u && oak_eye_under_water();
    if (oak_water_hidden_side(mflags, back)) return vec4(0.0);
#endif

    vec4 tex[5];
    vec3 fxN = Nv;
    bool fx = oak_fx_maps(mi);
    if (fx) {
        // the tricks read through uv set 0 or the world planes (P's screen
        // derivatives from the barycentrics', as uv's)
        vec3 dPdx = dbx.x * Pw[0] + dbx.y * Pw[1] + dbx.z * Pw[2];
        vec3 dPdy = dby.x * Pw[0] + dby.y * Pw[1] + dby.z * Pw[2];
        oak_fx_sample(mi, P, dPdx, dPdy, Nv, T, Tv.w, uvs.xy, duvx.xy, duvy.xy, length(P - cam), tex,
                      fxN);
    }
    OAK_DONT_UNROLL for (int t = 0; t < 5 && !fx; t++) {
        oak_gpu_texref r = materials[mi].tex[t];
        OAK_PUT5(tex, t, oak_material_tap(r, uvs, duvx, duvy));
    }
    if (materials[mi].fx1.x > 0.0) tex[OAK_GPU_TEX_BASE].rgb *= oak_fx_vary(mi, P);
    vec4 basec = materials[mi].base_color * C * tex[OAK_GPU_TEX_BASE];
    bool water = (mflags & OAK_GPU_MAT_WATER) != 0u;
    float metallic = materials[mi].params.x * tex[OAK_GPU_TEX_MR].b;
    float roughness = clamp(materials[mi].params.y * tex[OAK_GPU_TEX_MR].g, 0.03, 1.0);
    float wflat = 0.0, wpuddle = 0.0;
    vec2 wtilt = vec2(0.0);
    if (view.weather.w != 0.0 && (mflags & OAK_GPU_MAT_UNLIT) == 0u && !water)
        wflat = oak_weather_surface(P, Nv, basec.rgb, roughness, metallic, wtilt, wpuddle);
    uint channel = view.flags.y & OAK_GPU_CHANNEL_MASK;
    if (channel != 0u) { // a capture channel: the surface's data, no light, no fog
        if (channel == OAK_GPU_CHANNEL_ALBEDO) return vec4(basec.rgb, 1.0);
        if (channel == OAK_GPU_CHANNEL_DEPTH) return vec4(vec3(dot(view.view_depth, vec4(P, 1.0))), 1.0);
        vec3 N = Nv;
        if ((mflags & OAK_GPU_MAT_UNLIT) == 0u && materials[mi].tex[OAK_GPU_TEX_NORMAL].a.x != 0u)
            N = oak_mapped_normal(tex[OAK_GPU_TEX_NORMAL].rgb, materials[mi].params.z, Nv, T, Tv.w);
        return vec4(N, 1.0);
    }
    vec3 colour;
#ifdef OAK_FORWARD
    vec3 trans = vec3(0.0), wbehind = vec3(0.0);
    bool refracts = false;
    if (wunder) { // Snell's window, the underwater fog to it; it hides what is behind
        vec3 t = refract(-V, Nv, float(OAK_WATER_IOR)), air = vec3(0.0);
        float wrough = clamp(materials[mi].params.y, 0.03, 1.0);
        if (-dot(t, Nv) > 0.0) {
            air = oak_sky_specular(t, wrough) + oak_sun_disc(t);
            // what stands above the water where the refracted ray meets it
            // in the opaque copy, its own underwater fog taken back out
            ivec2 sh;
            float sf;
            // a ray whose screen path never leaves px (its vanishing point is
            // in px: looking along it) meets what px itself shows
            vec4 vp = view.view_proj * vec4(t, 0.0);
            bool along = vp.w > 0.0 && oak_ssr_pixel(vp.xy / vp.w) == px;
            if (along) {
                sh = px;
                sf = 1.0;
            }
            if (along || oak_ssr_march_from(P, px, t, OAK_SSR_WATER_STEPS, OAK_SSR_WATER_HALVINGS,
                                           sh, sf)) {
                vec4 h = opaque_texels[uint(sh.y) * view.size.x + uint(sh.x)];
                vec3 Q = oak_ssr_point(sh, h.w);
                if (h.w > 0.0 && Q.y > view.water.x) {
                    float under = (view.water.x - cam.y) / (Q.y - cam.y);
                    vec3 Tu = exp(-view.water_absorb.rgb * (under * length(cam - Q)));
                    vec3 c = (h.rgb - view.water_scatter.rgb * (1.0 - Tu)) / max(Tu, vec3(1e-3));
                    air = mix(air, max(c, vec3(0.0)), sf);
                }
            }
        }
        colour = oak_water_underside_air(P, Nv, V, t, air, wrough);
        basec.a = 1.0;
    } else
#endif
    if ((mflags & OAK_GPU_MAT_UNLIT) != 0u) {
        colour = basec.rgb;
    } else {
        float alpha = roughness * roughness;
        float ao = 1.0 + materials[mi].params.w * (tex[OAK_GPU_TEX_OCCLUSION].r - 1.0);
        vec3 emissive = materials[mi].emissive.rgb * tex[OAK_GPU_TEX_EMISSIVE].rgb;
        vec3 N = Nv;
        if (fx && materials[mi].tex[OAK_GPU_TEX_NORMAL].a.x != 0u)
            N = fxN;
        else if (materials[mi].tex[OAK_GPU_TEX_NORMAL].a.x != 0u)
            N = oak_mapped_normal(tex[OAK_GPU_TEX_NORMAL].rgb, materials[mi].params.z, Nv, T, Tv.w);
        if (wflat > 0.0) N = normalize(mix(N, Nv + vec3(wtilt.x, 0.0, wtilt.y), wflat));
        // the lobes' factors, times their textures (oak_gpu.h lobe_map): each
        // distinct ref read once, in a loop kept rolled
        vec4 l1 = materials[mi].lobe1, l2 = materials[mi].lobe2, l6 = materials[mi].lobe6;
        vec4 l3 = materials[mi].lobe3, l4 = materials[mi].lobe4, l5 = materials[mi].lobe5;
        uvec4 lmap = materials[mi].lobe_map;
        vec4 lt[OAK_GPU_LOBE_TEX];
        vec3 Nc = Nv; // the coat's normal: its own map on Nv, or Nv
        if ((lmap.x | lmap.y) != 0u) {
            OAK_DONT_UNROLL for (int t = 0; t < OAK_GPU_LOBE_TEX; t++) {
                oak_gpu_texref r = materials[mi].lobe_tex[t];
                OAK_PUT4(lt, t, oak_material_tap(r, uvs, duvx, duvy));
            }
            l1.x *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_COAT, lt).r;
            l1.y *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_COAT_ROUGH, lt).g;
            l1.z *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_SHEEN_ROUGH, lt).a;
            l2.rgb *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_SHEEN, lt).rgb;
            l6.x *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_TRANSMIT, lt).r;
            l6.y *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_THICKNESS, lt).g;
            l5.w *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_DIFFTR, lt).a;
            l5.rgb *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_DIFFTR_COLOR, lt).rgb;
            l4.x *= oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_IRID, lt).r;
            if (((lmap.x >> (3u * OAK_GPU_LOBE_TEX_IRID_THICKNESS)) & 7u) != 0u)
                l4.z = mix(l4.w, l4.z, oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_IRID_THICKNESS, lt).g);
            if (((lmap.y >> (3u * (OAK_GPU_LOBE_TEX_ANISO - 10u))) & 7u) != 0u) {
                // its direction turned by the rotation (none: the rotation's own)
                vec3 ta = oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_ANISO, lt).rgb;
                vec2 d = ta.xy * 2.0 - 1.0;
                vec2 q = vec2(l3.y * d.x - l3.z * d.y, l3.z * d.x + l3.y * d.y);
                float ql = dot(q, q);
                if (ql > 1e-12) l3.yz = q * inversesqrt(ql);
                l3.x *= ta.z;
            }
            if (((lmap.y >> (3u * (OAK_GPU_LOBE_TEX_COAT_NORMAL - 10u))) & 7u) != 0u)
                Nc = oak_mapped_normal(oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_COAT_NORMAL, lt).rgb,
                                       materials[mi].mode.w, Nv, T, Tv.w);
        }
        // the dielectric's Fresnel, the specular textures applied (word 1's
        // first two lobe textures: mapped only under KHR_materials_specular)
        vec3 F0d = materials[mi].lobe0.rgb;
        float F90d = materials[mi].lobe0.w;
        if ((lmap.y & 63u) != 0u) {
            float ts = oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_SPECULAR, lt).a;
            vec3 tc = oak_lobe_texel(lmap, OAK_GPU_LOBE_TEX_SPECULAR_COLOR, lt).rgb;
            vec3 rsc = vec3(materials[mi].lobe1.w, materials[mi].lobe2.w, materials[mi].lobe3.w);
            F0d = min(rsc * tc, vec3(1.0)) * F90d * ts;
            F90d *= ts;
        }
        vec3 F0 = mix(F0d, basec.rgb, metallic);
        float F90 = mix(F90d, 1.0, metallic);
        bool lobes = (mflags & (OAK_GPU_MAT_COAT | OAK_GPU_MAT_SHEEN | OAK_GPU_MAT_ANISO |
                                OAK_GPU_MAT_IRID | OAK_GPU_MAT_DIFFTR)) != 0u;
        vec3 Ls = vec3(0.0), Lc = vec3(0.0);
        // anisotropy: its frame, alphas and the sky light's bent normal Nb
        vec3 At = vec3(0.0), Ab = vec3(0.0), Nb = N;
        vec2 aab = vec2(0.0);
        if ((mflags & OAK_GPU_MAT_ANISO) != 0u) {
            oak_aniso_frame(N, Nv, T, Tv.w, l3.yz, At, Ab);
            aab = vec2(alpha + (1.0 - alpha) * (l3.x * l3.x), alpha);
            Nb = oak_aniso_bent(N, V, Ab, l3.x, roughness);
        }
        vec3 diffuse = basec.rgb * (1.0 - metallic);
#ifdef OAK_FORWARD
        // transmission: its share leaves the diffuse lobe, read from the copy below
        bool transmit = (mflags & OAK_GPU_MAT_TRANSMIT) != 0u;
        if (transmit) diffuse *= 1.0 - l6.x;
#endif
        float foam = 0.0;
        if (water) { // a dielectric of n = 1.33, diffuse white only where it foams
            foam = clamp(Tv.w, 0.0, 1.0);
            F0 = vec3(OAK_WATER_F0);
            diffuse = vec3(OAK_WATER_FOAM_ALBEDO * foam);
        }
        // iridescence: the film's Fresnel at NdotV, over F (lights) and F0 (sky)
        vec4 irid = vec4(0.0);
        vec3 F0s = F0;
        if ((mflags & OAK_GPU_MAT_IRID) != 0u) {
            irid = vec4(oak_iridescence(l4.y, max(dot(N, V), 1e-4), l4.z, F0), l4.x);
            F0s = F0 + (irid.rgb - F0) * irid.w;
        }
        // diffuse transmission: its share of the diffuse lobe, lit from behind
        vec3 dtp = vec3(0.0);
        bool difftr = (mflags & OAK_GPU_MAT_DIFFTR) != 0u;
        if (difftr) {
            dtp = diffuse * l5.rgb * l5.w / OAK_PI_F;
            diffuse *= 1.0 - l5.w;
        }
        vec3 Lo = vec3(0.0);
        uint key = view.size.w;
        // the directional lights, then only the lamps listed in this pixel's cell
        uint cell = oak_grid_cell(px, P);
        uint first = grid_first, n = first + grid_words[cell];
        uint list = uint(OAK_LIGHT_GRID_CELLS) + cell * uint(OAK_LIGHT_CELL_MAX) - first;
        for (uint li = 0u; li < n; li++) {
            uint i = li < first ? li : grid_words[list + li];
            vec3 Ei, L;
            oak_light_at(i, P, Ei, L);
            // lit through from behind: the shadow is looked up on the light's side
            float NdotLb = difftr ? -dot(N, L) : 0.0;
            vec3 Ngs = NdotLb > 0.0 && dot(Ng, L) < 0.0 ? -Ng : Ng;
            if (i + 1u == key && view.clouds.shape.w != 0.0) Ei *= oak_cloud_shadow(P);
            if (i + 1u == key && view.flags.x != 0u && (d.info.w & 2u) == 0u)
                Ei *= oak_shadow(P, Ngs, L);
            else if (lights[i].cone.z > 0.0 && (d.info.w & 2u) == 0u) // its own faces only
                Ei *= oak_lamp_shadow(uint(lights[i].cone.z) - 1u, P, Ngs);
            Lo += oak_brdf(N, V, L, diffuse, F0, F90, alpha, At, Ab, aab, irid) * Ei;
            if (NdotLb > 0.0) Lo += dtp * Ei * NdotLb;
            // where the base lobe is lit (the CPU's mask)
            if (lobes && dot(N, L) > 0.0) oak_lobes_light(l1, l2, mflags, N, Nc, V, L, Ei, Ls, Lc);
        }
        float aot = ao * OAK_GTAO_AT(px);
        // the irradiance about N, and about -N for diffuse transmission: a
        // loop kept rolled, so the lookup is compiled once
        vec3 irr = vec3(0.0), irrb = vec3(0.0);
        int sides = difftr ? 2 : 1;
        OAK_DONT_UNROLL for (int i = 0; i < sides; i++) {
            vec3 e = oak_sky_irradiance(i == 0 ? N : -N);
            if (i == 0)
                irr = e;
            else
                irrb = e;
        }
        // the base's reflection (about Nb: N but under anisotropy), then the
        // coat's (about Nc: Nv or the coat's own normal map, at its
        // roughness) through the same code: a loop kept rolled, so the
        // lookups are compiled once
        vec3 spec = vec3(0.0), cspec = vec3(0.0);
        int looks = (mflags & OAK_GPU_MAT_COAT) != 0u ? 2 : 1;
        OAK_DONT_UNROLL for (int i = 0; i < looks; i++) {
            vec3 Ni = i == 0 ? Nb : Nc;
            float ri = i == 0 ? roughness : clamp(l1.y, 0.03, 1.0);
            vec3 s = oak_reflection(P, reflect(-V, Ni), ri);
            if (i == 0)
                spec = s;
            else
                cspec = s;
        }
        vec3 dI = diffuse / OAK_PI_F * irr;
        if (difftr) dI += dtp * irrb;
        colour = Lo + oak_ambient(N, V, dI, spec, F0s, F90, roughness, aot);
#ifdef OAK_SSR_OUT
        if (wpuddle > 0.0 && !lobes) { // a mirror: what the ssr pass replaces, and its weight
            vec2 AB = oak_sky_brdf(max(dot(N, V), 1e-4), roughness);
            oak_ssr_w = aot * (F0s * AB.x + F90 * AB.y) * wpuddle;
            oak_ssr_r = spec;
            oak_ssr_dir = reflect(-V, N);
        }
#endif
        if (lobes)
            colour = oak_lobes_compose(l1, l2, mflags, N, Nc, V, colour, emissive, Ls, Lc, irr, cspec, aot);
        else
            colour += emissive;
        if ((view.flags.y & OAK_GPU_DEBUG_CLUSTERS) != 0u) {
            // the clusters view: a jet ramp of the lamps read, as _oak_cpu_heat
            float t = min(float(n - first) / float(OAK_DEBUG_HEAT_MAX), 1.0);
            return vec4(clamp(1.5 - abs(4.0 * t - vec3(3.0, 2.0, 1.0)), 0.0, 1.0), basec.a);
        }
#ifdef OAK_FORWARD
        if (transmit) { // it replaces the frame behind
            trans = oak_transmitted(d.world, mi, l6, P, N, V, basec.rgb, roughness, F0, F90);
            basec.a = 1.0;
        }
#endif
        if (water) {
            // over the frame behind by Schlick's Fresnel (and the foam): the
            // colour holds the reflection weighted by it, so it is divided out
            float q = 1.0 - max(dot(N, V), 0.0), q2 = q * q;
            float fr = OAK_WATER_F0 + (1.0 - OAK_WATER_F0) * (q2 * q2 * q);
            basec.a = 1.0 - (1.0 - fr) * (1.0 - foam);
            colour /= basec.a;
#ifdef OAK_FORWARD
            wbehind = oak_water_behind(P, N, V);
            refracts = true;
            // what the opaque copy holds along the reflected ray replaces
            // the sky's reflection (docs/SHADING.md "Screen-space reflections")
            ivec2 sh;
            float sf;
            if (!lobes && oak_ssr_march_from(P, px, reflect(-V, N), OAK_SSR_WATER_STEPS,
                                             OAK_SSR_WATER_HALVINGS, sh, sf)) {
                vec2 AB = oak_sky_brdf(max(dot(N, V), 1e-4), roughness);
                vec3 hc = opaque_texels[uint(sh.y) * view.size.x + uint(sh.x)].rgb;
                colour += aot * (F0s * AB.x + F90 * AB.y) * sf * (hc - spec) / basec.a;
            }
#endif
        }
    }
    if (!water) colour = oak_underwater(P, cam, colour);
    float fog = view.camera_pos.w;
    if (view.fog.grid.w != 0u) { // volumetric fog replaces the exp2 curve
        colour = oak_fog_apply(P, colour);
#ifdef OAK_SSR_OUT
        if (oak_ssr_w != vec3(0.0)) // what the fog leaves of the reflection
            oak_ssr_w *= oak_fog_apply(P, vec3(1.0)) - oak_fog_apply(P, vec3(0.0));
#endif
    } else if (fog > 0.0) {
        float dist = length(P - cam);
        float fd = fog * dist;
        colour = mix(view.fog_color.rgb, colour, exp(-fd * fd));
#ifdef OAK_SSR_OUT
        oak_ssr_w *= exp(-fd * fd);
#endif
    }
    // then the air's own (aerial perspective), over the fog
    if ((view.flags.y & OAK_GPU_AERIAL) != 0u) {
        colour = oak_aerial_apply(P, colour);
#ifdef OAK_SSR_OUT
        if (oak_ssr_w != vec3(0.0)) // what the air leaves of the reflection
            oak_ssr_w *= oak_aerial_apply(P, vec3(1.0)) - oak_aerial_apply(P, vec3(0.0));
#endif
    }
    if ((view.flags.y & OAK_GPU_DEBUG_CASCADES) != 0u) colour = oak_cascade_tint(P, colour);
#ifdef OAK_FORWARD
    colour += trans; // over the fog: the copy has the fog to the surface behind
    // water: "over" the refracted copy here, the fixed blend's sum
    if (refracts) {
        colour = colour * basec.a + wbehind * (1.0 - basec.a);
        basec.a = 1.0;
    }
#endif
    return vec4(colour, basec.a);
}

// The same for plain draw record `draw` (the BLEND pass's draws).
vec4 oak_shade_pixel(uint draw, uint tri, ivec2 px) {
    return oak_shade_draw(draws[draw], tri, px);
}

#endif
