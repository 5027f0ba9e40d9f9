#version 450
// Froxel volumetric fog, one step per dispatch (render/fog.h names them):
// 0 inject: per froxel the extinction and the light scattered toward the
// eye (the key light through its cascades and the clouds' shadow, the
// lamps of the light-grid cell under it through their shadows, the sky
// light) at this frame's depth in the slice, blended with last frame's
// inject reprojected to the froxel's centre; 1 integrate: each froxel
// column front to back into (light, transmittance) per slice.
// render/fog.c and backend/cpu/cpu_pass_fog.c are the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#define OAK_FOG_WRITE
#include "common/surface.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_FOG_STEP, 0u)
#else
layout(location = 0) uniform uint oak_fog_step; // GL: set per dispatch
#define OAK_FOG_STEP oak_fog_step
#endif

float boundary_depth(float b) {
    return view.fog.slices.y * (exp(b / view.fog.slices.z) - 1.0);
}

// the ray through froxel coordinates c (column i spans i .. i + 1) from the
// near plane; od its origin's view depth, rate the view depth gained per
// metre along it
void fog_ray(vec2 c, out vec3 origin, out vec3 dir, out float od, out float rate) {
    vec2 ndc = vec2(c.x / float(view.fog.grid.x) * 2.0 - 1.0, 1.0 - c.y / float(view.fog.grid.y) * 2.0);
    vec4 a = view.inv_view_proj * vec4(ndc, 0.5, 1.0);
    vec4 b = view.inv_view_proj * vec4(ndc, 1.0, 1.0);
    origin = b.xyz / b.w;
    dir = normalize(a.xyz / a.w - origin);
    od = dot(view.view_depth, vec4(origin, 1.0));
    rate = dot(view.view_depth.xyz, dir);
}

// column (i, j)'s ray, through its centre
void column_ray(uint i, uint j, out vec3 origin, out vec3 dir, out float od, out float rate) {
    fog_ray(vec2(float(i) + 0.5, float(j) + 0.5), origin, dir, od, rate);
}

float extinction(vec3 P, out vec3 scat) {
    float s = 0.0;
    scat = vec3(0.0);
    vec4 h = view.fog.height;
    if (h.x > 0.0) {
        s = h.x * exp(min(-h.z * (P.y - h.y), float(OAK_FOG_MAX_FALLOFF)));
        scat = s * view.fog.albedo.rgb;
    }
    OAK_DONT_UNROLL for (int i = 0; i < OAK_FOG_VOLUMES; i++) {
        float shape = view.fog.vol_center[i].w;
        if (shape == 0.0) continue;
        vec3 q = (P - view.fog.vol_center[i].xyz) / view.fog.vol_size[i].xyz;
        bool inside = shape == 1.0 ? max(max(abs(q.x), abs(q.y)), abs(q.z)) <= 1.0 : dot(q, q) <= 1.0;
        if (!inside) continue;
        float d = view.fog.vol_size[i].w;
        s += d;
        scat += d * view.fog.vol_albedo[i].rgb;
    }
    return s;
}

// Henyey-Greenstein, cosv between the view ray and the way to the light
float phase(float cosv, float g) {
    float x = 1.0 + g * g - 2.0 * g * cosv;
    return (1.0 - g * g) / (4.0 * OAK_PI_F * x * sqrt(x));
}

// the light scattered toward the eye and the extinction at P on the ray
// along dir through froxel coordinates c
vec4 inject_at(vec2 c, vec3 P, vec3 dir) {
    uvec3 g = view.fog.grid.xyz;
    vec3 scat;
    float sigma = extinction(P, scat);
    if (!(sigma > 0.0)) return vec4(0.0, 0.0, 0.0, sigma);
    // the sky light as if the same from every side: (E_up + E_down) / (2 pi)
    vec3 Li = (oak_sky_irradiance(vec3(0.0, 1.0, 0.0)) + oak_sky_irradiance(vec3(0.0, -1.0, 0.0))) /
              (2.0 * OAK_PI_F);
    float gg = view.fog.height.w;
    if (view.fog.sun.w != 0.0) {
        vec3 L = view.fog.sun.xyz;
        float vis = 1.0;
        if (view.clouds.shape.w != 0.0) vis *= oak_cloud_shadow(P);
        // the light's own direction as the normal: no normal offset
        if (view.fog.light.w != 0.0) vis *= oak_shadow(P, L, L);
        Li += view.fog.light.rgb * (vis * phase(dot(dir, L), gg));
    }
    // the lamps listed in the cell of the pixel under the sample
    uvec2 px = min(uvec2(vec2(c.x / float(g.x), c.y / float(g.y)) * vec2(view.size.xy)), view.size.xy - 1u);
    uint cell = oak_grid_cell(ivec2(px), P);
    uint n = grid_words[cell], list = uint(OAK_LIGHT_GRID_CELLS) + cell * uint(OAK_LIGHT_CELL_MAX);
    for (uint li = 0u; li < n; li++) {
        vec3 E, L;
        uint i = grid_words[list + li];
        oak_light_at(i, P, E, L);
        // its own faces, the way to the lamp as the normal (no offset but toward it)
        if (lights[i].cone.z > 0.0) E *= oak_lamp_shadow(uint(lights[i].cone.z) - 1u, P, L);
        Li += E * phase(dot(dir, L), gg);
    }
    return vec4(scat * Li, sigma);
}

// the first texel of the frames held that go with the inject grid at texel
// grid (render/fog.h _oak_fog_held_texel)
uint held_texel(uint grid) {
    uint n = oak_fog_count();
    return 3u * n + (grid == 0u ? 0u : (n + 3u) / 4u);
}

// last frame's inject at world P and the frames held at the nearest of its
// centres (render/fog.c _oak_fog_history_at): false when P lay outside
// last frame's volume
bool history_at(vec3 P, out vec4 s, out float held) {
    s = vec4(0.0);
    held = 0.0;
    vec4 c = view.prev_view_proj * vec4(P, 1.0);
    float z = dot(view.fog.prev_depth, vec4(P, 1.0));
    if (!(c.w > 0.0) || !(z >= 0.0)) return false;
    vec2 uv = vec2(c.x / c.w * 0.5 + 0.5, 0.5 - c.y / c.w * 0.5);
    float u = log(1.0 + z / view.fog.slices.y) * view.fog.slices.z;
    uvec3 g = view.fog.grid.xyz;
    vec3 n = vec3(g);
    if (!(uv.x >= 0.0 && uv.x <= 1.0 && uv.y >= 0.0 && uv.y <= 1.0 && u <= n.z)) return false;
    // froxel centres at half-integers: clamped to the outermost
    vec3 f = vec3(clamp(uv.x * n.x - 0.5, 0.0, n.x - 1.0), clamp(uv.y * n.y - 0.5, 0.0, n.y - 1.0),
                  clamp(u - 0.5, 0.0, n.z - 1.0));
    vec3 fl = floor(f);
    vec3 w = f - fl;
    uvec3 a = uvec3(fl);
    uvec3 b = min(a + 1u, g - 1u);
    // nested lerps (a + (b - a) t) along x, then y, then z: render/fog.c's order
    uint g0 = view.fog.grids.y;
    uint r00 = g0 + (a.z * g.y + a.y) * g.x, r01 = g0 + (a.z * g.y + b.y) * g.x;
    uint r10 = g0 + (b.z * g.y + a.y) * g.x, r11 = g0 + (b.z * g.y + b.y) * g.x;
    vec4 s00 = fog[r00 + a.x] + (fog[r00 + b.x] - fog[r00 + a.x]) * w.x;
    vec4 s01 = fog[r01 + a.x] + (fog[r01 + b.x] - fog[r01 + a.x]) * w.x;
    vec4 s10 = fog[r10 + a.x] + (fog[r10 + b.x] - fog[r10 + a.x]) * w.x;
    vec4 s11 = fog[r11 + a.x] + (fog[r11 + b.x] - fog[r11 + a.x]) * w.x;
    vec4 s0 = s00 + (s01 - s00) * w.y, s1 = s10 + (s11 - s10) * w.y;
    s = s0 + (s1 - s0) * w.z;
    uvec3 h = uvec3(floor(f + 0.5));
    uint at = (h.z * g.y + h.y) * g.x + h.x;
    held = fog[held_texel(g0) + at / 4u][at % 4u];
    return true;
}

// the extinction this frame's medium may have in froxel (i, j, k)'s cell
// (render/fog.c _oak_fog_bounds): the height fog's at the corners' lowest
// and highest y, each volume's density in the most when its bounds meet
// the cell's, in the least too when it holds all 8 corners; sigma (the
// sample's) within
vec2 cell_bounds(uint i, uint j, uint k, float sigma) {
    float z0 = boundary_depth(float(k)), z1 = boundary_depth(float(k + 1u));
    vec3 P[8];
    vec3 bmin = vec3(1e30), bmax = vec3(-1e30);
    OAK_DONT_UNROLL for (uint c = 0u; c < 4u; c++) {
        vec3 origin, dir;
        float od, rate;
        fog_ray(vec2(float(i + (c & 1u)), float(j + (c >> 1u))), origin, dir, od, rate);
        P[c * 2u] = origin + dir * ((z0 - od) / rate);
        P[c * 2u + 1u] = origin + dir * ((z1 - od) / rate);
        bmin = min(bmin, min(P[c * 2u], P[c * 2u + 1u]));
        bmax = max(bmax, max(P[c * 2u], P[c * 2u + 1u]));
    }
    vec4 h = view.fog.height;
    float mn = 0.0, mx = 0.0;
    if (h.x > 0.0) {
        float h0 = h.x * exp(min(-h.z * (bmin.y - h.y), float(OAK_FOG_MAX_FALLOFF)));
        float h1 = h.x * exp(min(-h.z * (bmax.y - h.y), float(OAK_FOG_MAX_FALLOFF)));
        mn = min(h0, h1);
        mx = max(h0, h1);
    }
    OAK_DONT_UNROLL for (int v = 0; v < OAK_FOG_VOLUMES; v++) {
        float shape = view.fog.vol_center[v].w;
        if (shape == 0.0) continue;
        vec3 vc = view.fog.vol_center[v].xyz, vs = view.fog.vol_size[v].xyz;
        if (any(lessThan(bmax, vc - vs)) || any(greaterThan(bmin, vc + vs))) continue;
        bool all = true;
        OAK_DONT_UNROLL for (uint c = 0u; c < 8u; c++) {
            vec3 q = (P[c] - vc) / vs;
            all = all && (shape == 1.0 ? max(max(abs(q.x), abs(q.y)), abs(q.z)) <= 1.0 : dot(q, q) <= 1.0);
        }
        float d = view.fog.vol_size[v].w;
        mx += d;
        if (all) mn += d;
    }
    return vec2(min(mn, sigma), max(mx, sigma));
}

void inject(uvec2 p) {
    uvec3 g = view.fog.grid.xyz;
    if (p.x >= g.x || p.y >= g.y * g.z) return;
    uint i = p.x, j = p.y % g.y, k = p.y / g.y;
    vec3 origin, dir;
    float od, rate;
    // this frame's sample at its offset in the froxel; history at the centre
    vec2 c = vec2(float(i) + view.fog.history.z, float(j) + view.fog.history.w);
    fog_ray(c, origin, dir, od, rate);
    vec3 P = origin + dir * ((boundary_depth(float(k) + view.fog.history.x) - od) / rate);
    vec4 cur = inject_at(c, P, dir);
    vec4 hist;
    float before = 0.0;
    bool held = false;
    vec2 b = vec2(0.0);
    if (view.fog.grids.z != 0u) {
        column_ray(i, j, origin, dir, od, rate);
        vec3 Pc = origin + dir * ((boundary_depth(float(k) + 0.5) - od) / rate);
        held = history_at(Pc, hist, before);
        if (held) b = cell_bounds(i, j, k, cur.a);
    }
    // render/fog.c _oak_fog_blend: the history's extinction clamped to the
    // cell's, its light scaled alike, dropped when moved past the factor
    if (held) {
        float s = hist.a, t = clamp(s, b.x, b.y), r = view.fog.history.y;
        if (t <= s * r && s <= t * r) {
            if (t != s) hist = vec4(hist.rgb * (t / s), t);
        } else {
            held = false;
        }
    }
    uint at = (k * g.y + j) * g.x + i;
    float n = 0.0;
    if (held) {
        n = min(before + 1.0, float(1.0 / OAK_FOG_HISTORY_MIN));
        float w = max(1.0 / (n + 1.0), float(OAK_FOG_HISTORY_MIN));
        fog[view.fog.grids.x + at] = hist + (cur - hist) * w;
    } else {
        fog[view.fog.grids.x + at] = cur;
    }
    // the frames held go with the inject grid (none for a view in place)
    if (view.fog.grids.x != oak_fog_count()) fog[held_texel(view.fog.grids.x) + at / 4u][at % 4u] = n;
}

void integrate(uvec2 p) {
    uvec3 g = view.fog.grid.xyz;
    if (p.x >= g.x || p.y >= g.y) return;
    vec3 origin, dir;
    float od, rate;
    column_ray(p.x, p.y, origin, dir, od, rate);
    uint count = oak_fog_count();
    vec3 S = vec3(0.0);
    float T = 1.0, z0 = 0.0;
    for (uint k = 0u; k < g.z; k++) {
        uint at = (k * g.y + p.y) * g.x + p.x;
        vec4 f = fog[view.fog.grids.x + at];
        float z1 = boundary_depth(float(k + 1u));
        float ds = (z1 - z0) / rate;
        z0 = z1;
        float Ts = exp(-f.a * ds);
        // the froxel's light over its length, seen through what lies before it
        float w = f.a > float(OAK_FOG_MIN_SIGMA) ? (1.0 - Ts) / f.a : ds;
        S += T * f.rgb * w;
        T *= Ts;
        fog[count + at] = vec4(S, T);
    }
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (OAK_FOG_STEP == 0u) inject(p);
    else integrate(p);
}
