#version 450
// Volumetric clouds, one step per dispatch (render/clouds.h names them):
// 1 the key light's transmittance through the layer into the shadow map,
// 2 the march from the eye to the opaque depth, one texel per downscale
// square of pixels (cloudmix.comp lays it over the frame). Step 0, the
// noise table, is skycapture.comp's step 1 on both GPU backends (a
// pipeline that reads no depth, so the sky capture can bake it first).
// render/clouds.c is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#define OAK_CLOUDS_WRITE
#include "common/clouds.glsl"
#include "common/sky.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_BINDING(OAK_B_DEPTH) uniform sampler2D depth;

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_CLOUD_STEP, 0u)
#else
layout(location = 0) uniform uint oak_cloud_step; // GL: set per dispatch
#define OAK_CLOUD_STEP oak_cloud_step
#endif

void shadow_map(uvec2 p) {
    uint S = uint(OAK_CLOUD_SHADOW_SIZE);
    if (p.x >= S || p.y >= S) return;
    float T = 1.0;
    if (dot(view.clouds.sun.xyz, view.clouds.sun.xyz) > 0.0) {
        vec3 L = oak_cloud_shadow_dir();
        vec4 sh = view.clouds.shadow, lay = view.clouds.layer;
        vec3 P = vec3(sh.x + (float(p.x) + 0.5) * sh.z, lay.x, sh.y + (float(p.y) + 0.5) * sh.z);
        float ds = (lay.y - lay.x) / L.y / float(OAK_CLOUD_SHADOW_STEPS), tau = 0.0;
        OAK_DONT_UNROLL for (int k = 0; k < OAK_CLOUD_SHADOW_STEPS; k++)
            tau += oak_cloud_density(P + L * ((float(k) + 0.5) * ds), true);
        T = exp(-tau * ds * view.clouds.shape.z);
    }
    clouds[p.y * S + p.x] = vec4(T, 0.0, 0.0, 0.0);
}

// the full-size pixel a march texel stands for
ivec2 march_pixel(uvec2 t) {
    uint k = view.clouds.steps.x;
    return min(ivec2(t * k + k / 2u), ivec2(view.size.xy) - 1);
}

// the march texel of last frame's slot world P was seen through: P
// through last frame's view_proj (unjittered), the texel whose march pixel
// is nearest (round, so TAA's half-pixel jitter does not flip it), kept
// where its ray stopped at depth d (cloudmix's rule), -1 where none
int history_texel(vec3 P, float d) {
    vec4 q = view.prev_view_proj * vec4(P, 1.0);
    if (!(q.w > 0.0)) return -1;
    uvec2 n = view.clouds.size.xy;
    float k = float(view.clouds.steps.x), c = float(view.clouds.steps.x / 2u);
    float hx = floor(((q.x / q.w * 0.5 + 0.5) * float(view.size.x) - 0.5 - c) / k + 0.5);
    float hy = floor(((0.5 - q.y / q.w * 0.5) * float(view.size.y) - 0.5 - c) / k + 0.5);
    if (!(hx >= 0.0 && hy >= 0.0 && hx < float(n.x) && hy < float(n.y))) return -1;
    uint nn = n.x * n.y;
    uint h = uint(OAK_GPU_CLOUD_MARCH_AT) + 2u * (view.clouds.steps.z ^ 1u) * nn + uint(hy) * n.x + uint(hx);
    float hd = clouds[h + nn].y;
    float gap = abs(hd - d) / max(max(hd, d), 1e-30);
    return gap <= OAK_CLOUD_DEPTH_EDGE ? int(h) : -1;
}

// whether texel t is marched this frame: one of each B x B block
// (steps.w = B) in Bayer order by the frame, or all (render/clouds.c)
bool due(uvec2 t) {
    uint B = view.clouds.steps.w;
    if (B < 2u) return true;
    uint x = t.x & (B - 1u), y = t.y & (B - 1u), r = 0u;
    OAK_DONT_UNROLL for (uint s = 1u; s < B; s <<= 1)
        r = (r << 2) | (((x ^ y) & s) != 0u ? 2u : 0u) | ((y & s) != 0u ? 1u : 0u);
    return r == (view.clouds.size.w & (B * B - 1u));
}

void march(uvec2 t) {
    uvec2 n = view.clouds.size.xy;
    if (t.x >= n.x || t.y >= n.y) return;
    ivec2 px = march_pixel(t);
    uint W = view.size.x, H = view.size.y;
    vec2 ndc = vec2((float(px.x) + 0.5 - view.taa.x) / float(W) * 2.0 - 1.0,
                    1.0 - (float(px.y) + 0.5 - view.taa.y) / float(H) * 2.0);
    vec4 a = view.inv_view_proj * vec4(ndc, 0.5, 1.0);
    vec4 b = view.inv_view_proj * vec4(ndc, 1.0, 1.0);
    // from the near plane (an orthographic camera's rays start apart)
    vec3 eye = b.xyz / b.w;
    vec3 dir = normalize(a.xyz / a.w - eye);
    float tmax = float(OAK_CLOUD_MAX_DISTANCE);
    float d = texelFetch(depth, px, 0).r;
    if (d > 0.0) {
        vec4 s = view.inv_view_proj * vec4(ndc, d, 1.0);
        tmax = min(tmax, length(s.xyz / s.w - eye));
    }
    uint nn = n.x * n.y, slot = view.clouds.steps.z;
    uint at = uint(OAK_GPU_CLOUD_MARCH_AT) + 2u * slot * nn;
    if (view.clouds.steps.y != 0u && !due(t)) {
        // not this texel's frame: last frame's value carried over, found
        // through the distance its own texel had then (exact for a still
        // camera), marched after all where that finds no history
        uint same = uint(OAK_GPU_CLOUD_MARCH_AT) + 2u * (slot ^ 1u) * nn + nn + t.y * n.x + t.x;
        int h = history_texel(eye + dir * min(clouds[same].x, tmax), d);
        if (h >= 0) {
            clouds[at + t.y * n.x + t.x] = clouds[h];
            clouds[at + nn + t.y * n.x + t.x] = vec4(clouds[uint(h) + nn].x, d, 0.0, 0.0);
            return;
        }
    }
    vec4 lay = view.clouds.layer;
    float t0 = 0.0, t1 = tmax;
    if (abs(dir.y) > 1e-6) {
        float ta = (lay.x - eye.y) / dir.y, tb = (lay.y - eye.y) / dir.y;
        t0 = max(min(ta, tb), 0.0);
        t1 = min(max(ta, tb), tmax);
    } else if (!(eye.y > lay.x && eye.y < lay.y)) {
        t1 = 0.0;
    }
    vec3 Lsum = vec3(0.0);
    float T = 1.0, wt = 0.0;
    if (t1 > t0) {
        vec3 ambient = oak_sky_irradiance(vec3(0.0, 1.0, 0.0)) * view.clouds.ambient.rgb;
        // half from the ground below, half the four horizontal directions'
        vec3 ambient_low = (0.125 * (oak_sky_irradiance(vec3(1.0, 0.0, 0.0)) +
                                     oak_sky_irradiance(vec3(-1.0, 0.0, 0.0)) +
                                     oak_sky_irradiance(vec3(0.0, 0.0, 1.0)) +
                                     oak_sky_irradiance(vec3(0.0, 0.0, -1.0))) +
                            0.5 * oak_sky_irradiance(vec3(0.0, -1.0, 0.0))) *
                           view.clouds.ambient.rgb;
        uint steps = view.clouds.size.z;
        float dt = (t1 - t0) / float(steps);
        float j = oak_cloud_unit(oak_cloud_hash(ivec3(t.x, t.y, view.clouds.size.w), 9u));
        float cosv = dot(dir, view.clouds.sun.xyz);
        float ext = view.clouds.shape.z, h0 = lay.x, hs = 1.0 / (lay.y - lay.x);
        OAK_DONT_UNROLL for (uint i = 0u; i < steps && T > OAK_CLOUD_MIN_T; i++) {
            vec3 P = eye + dir * (t0 + (float(i) + j) * dt);
            float dn = oak_cloud_density(P, true);
            if (dn <= 0.0) continue;
            float sigma = dn * ext;
            vec3 S = oak_cloud_light(P, sigma, (P.y - h0) * hs, cosv, ambient, ambient_low);
            float Ts = exp(-sigma * dt);
            // in-scatter integrated over the step (albedo 1: scattering = extinction)
            Lsum += T * S * (1.0 - Ts);
            wt += (t0 + (float(i) + j) * dt) * (T - T * Ts); // the distance, weighed by the light it stops
            T *= Ts;
        }
    }
    // where the march's light comes from: the transmittance-weighted
    // distance, none (T = 1): the surface, or the sky at 40 km
    float D = T < 1.0 ? wt / (1.0 - T) : tmax;
    vec4 now = vec4(Lsum, T), o = now;
    if (view.clouds.steps.y != 0u) {
        // the history: that point's texel of last frame, blended
        int h = history_texel(eye + dir * D, d);
        if (h >= 0) {
            vec4 hv = clouds[h];
            o = hv + (now - hv) * float(OAK_CLOUD_HISTORY_WEIGHT);
        }
    }
    clouds[at + t.y * n.x + t.x] = o;
    clouds[at + nn + t.y * n.x + t.x] = vec4(D, d, 1.0, 0.0); // z: marched this frame
}

void main() {
    uvec3 p = gl_GlobalInvocationID;
    if (OAK_CLOUD_STEP == 1u) {
        shadow_map(p.xy);
        return;
    }
    // the march: one invocation a texel, the dispatch's layer z (B x B of
    // them when steps.w = B, else 1) taking each block's texel z places
    // after its due one in raster order: layer 0's lanes all march, the
    // others carry last frame's value (a march only where none is found),
    // so no invocation marches twice and the marching ones are dense
    uint B = max(view.clouds.steps.w, 1u), i0 = 0u;
    OAK_DONT_UNROLL for (uint i = 1u; i < B * B; i++)
        if (due(uvec2(i % B, i / B))) i0 = i;
    uint i = (i0 + p.z) % (B * B);
    march(p.xy * B + uvec2(i % B, i / B));
}
