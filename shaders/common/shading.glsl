// The shading contract (docs/SHADING.md) in GLSL: lights, the GGX/Smith/
// Schlick BRDF, sky, the sky light (irradiance and prefiltered maps with the
// split-sum table, common/sky.glsl). Every backend computes exactly this.
#ifndef OAK_SHADING_GLSL
#define OAK_SHADING_GLSL

#include "common/bindings.glsl"
#include "common/probe.glsl"
#include "common/sheen.h"

#define OAK_PI_F 3.14159265358979323846

// The key light's disc over an image sky (render/skylight.c
// _oak_sun_disc_add): post_params.y the cos of its radius (0: none), .z one
// over its solid angle.
vec3 oak_sun_disc(vec3 dir) {
    float c = view.post_params.y;
    if (!(c > 0.0) || view.size.w == 0u) return vec3(0.0);
    oak_gpu_light l = lights[view.size.w - 1u];
    float cd = -dot(normalize(dir), l.direction.xyz);
    return cd < c ? vec3(0.0) : l.color.rgb * view.post_params.z;
}

vec3 oak_sky(vec3 dir) {
    if (sky[0].w > 0.0) return oak_sky_background(dir) + oak_sun_disc(dir); // an .hdr sky
    return dir.y > 0.0 ? mix(view.sky_horizon.rgb, view.sky_zenith.rgb, sqrt(dir.y))
                       : view.sky_horizon.rgb;
}

// Irradiance E and direction L towards light i from P.
void oak_light_at(uint i, vec3 P, out vec3 E, out vec3 L) {
    oak_gpu_light l = lights[i];
    uint type = uint(l.position.w);
    if (type == 1u) { // directional
        L = -l.direction.xyz;
        E = l.color.rgb;
        return;
    }
    vec3 d3 = l.position.xyz - P;
    float d = length(d3);
    L = d3 / d;
    float range = l.direction.w;
    float W = 1.0;
    if (range > 0.0) {
        float q = d / range;
        float c = clamp(1.0 - q * q * q * q, 0.0, 1.0);
        W = c * c;
    }
    E = l.color.rgb / max(d * d, 1e-4) * W;
    if (type == 3u) { // spot
        float t = clamp((dot(-L, l.direction.xyz) - l.cone.x) / max(l.cone.y - l.cone.x, 1e-4),
                        0.0, 1.0);
        E *= t * t;
    }
}

// F90: the Fresnel at grazing, 1 but for KHR_materials_specular's dielectrics.
vec3 oak_brdf(vec3 N, vec3 V, vec3 L, vec3 diffuse, vec3 F0, float F90, float a) {
    float NdotL = max(dot(N, L), 0.0);
    if (NdotL <= 0.0) return vec3(0.0);
    float NdotV = max(dot(N, V), 1e-4);
    vec3 H = normalize(L + V);
    float NdotH = max(dot(N, H), 0.0);
    float VdotH = max(dot(V, H), 0.0);
    float a2 = a * a;
    float dd = NdotH * NdotH * (a2 - 1.0) + 1.0;
    float D = a2 / (OAK_PI_F * dd * dd);
    float den = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2) +
                NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
    float Vis = 0.5 / max(den, 1e-7);
    float fw = pow(1.0 - VdotH, 5.0);
    vec3 F = F0 + (F90 - F0) * fw;
    return (diffuse / OAK_PI_F + D * Vis * F) * NdotL;
}

// The light reflected around R at this roughness: the reflection probes'
// boxes holding P first, the sky for what they leave.
vec3 oak_reflection(vec3 P, vec3 R, float roughness) {
    return probes[0].x > 0.0 ? oak_probe_specular(P, R, roughness) : oak_sky_specular(R, roughness);
}

// The sky light, split sum: diffuse from the irradiance irr less what the
// specular lobe takes, specular from the reflection spec at this roughness
// (oak_reflection around reflect(-V, N)). The caller looks both up, so the
// lobes reuse them without a second copy of the lookups in the shader.
vec3 oak_ambient(vec3 N, vec3 V, vec3 irr, vec3 spec, vec3 diffuse, vec3 F0, float F90,
                 float roughness, float ao) {
    float NdotV = max(dot(N, V), 1e-4);
    vec2 AB = oak_sky_brdf(NdotV, roughness);
    vec3 envF = F0 * AB.x + F90 * AB.y;
    return ao * (diffuse / OAK_PI_F * irr * (1.0 - envF) + spec * envF);
}

// The lobes over the base (docs/SHADING.md "Lobes"), one light of irradiance
// E from L: the coat's GGX (F0 0.04) about the coat normal Nc into Lc, and
// the sheen's Charlie with Ashikhmin's visibility into Ls.
void oak_lobes_light(uint mi, uint mflags, vec3 N, vec3 Nc, vec3 V, vec3 L, vec3 E,
                     inout vec3 Ls, inout vec3 Lc) {
    vec3 H = normalize(L + V);
    if ((mflags & OAK_GPU_MAT_COAT) != 0u) {
        float NdotL = max(dot(Nc, L), 0.0);
        if (NdotL > 0.0) {
            float r = clamp(materials[mi].lobe1.y, 0.03, 1.0), a2 = r * r * r * r;
            float NdotV = max(dot(Nc, V), 1e-4), NdotH = max(dot(Nc, H), 0.0);
            float dd = NdotH * NdotH * (a2 - 1.0) + 1.0;
            float D = a2 / (OAK_PI_F * dd * dd);
            float den = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2) +
                        NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
            float Vis = 0.5 / max(den, 1e-7);
            float F = 0.04 + 0.96 * pow(1.0 - max(dot(V, H), 0.0), 5.0);
            Lc += materials[mi].lobe1.x * D * Vis * F * NdotL * E;
        }
    }
    if ((mflags & OAK_GPU_MAT_SHEEN) != 0u) {
        float NdotL = max(dot(N, L), 0.0);
        if (NdotL > 0.0) {
            float r = max(materials[mi].lobe1.z, 0.07), a = r * r;
            float NdotV = max(dot(N, V), 1e-4), NdotH = max(dot(N, H), 0.0);
            float s2 = max(1.0 - NdotH * NdotH, 0.0);
            float D = (2.0 + 1.0 / a) * pow(s2, 0.5 / a) / (2.0 * OAK_PI_F);
            float Vis = 1.0 / (4.0 * (NdotL + NdotV - NdotL * NdotV));
            Ls += materials[mi].lobe2.rgb * (D * Vis * NdotL) * E;
        }
    }
}

// Lit base (Lo + its sky light, ambient) and emissive under the lobes: the
// base scaled by the sheen's albedo, the sheen's sky light (its albedo times
// the irradiance), then all of it under the coat's Fresnel with the coat's
// own reflection of the sky (split sum at its roughness) on top.
// irr: the sky's irradiance about N; cspec: oak_reflection around
// reflect(-V, Nc) at the coat's roughness.
vec3 oak_lobes_compose(uint mi, uint mflags, vec3 N, vec3 Nc, vec3 V, vec3 base,
                       vec3 emissive, vec3 Ls, vec3 Lc, vec3 irr, vec3 cspec, float ao) {
    vec3 c = base;
    if ((mflags & OAK_GPU_MAT_SHEEN) != 0u) {
        float E = oak_sheen_e(max(dot(N, V), 1e-4), materials[mi].lobe1.z);
        vec3 s = materials[mi].lobe2.rgb;
        c = c * (1.0 - max(s.r, max(s.g, s.b)) * E) + Ls + ao * s * E * irr / OAK_PI_F;
    }
    c += emissive;
    if ((mflags & OAK_GPU_MAT_COAT) != 0u) {
        float r = clamp(materials[mi].lobe1.y, 0.03, 1.0), NdotV = max(dot(Nc, V), 1e-4);
        float Fc = 0.04 + 0.96 * pow(1.0 - NdotV, 5.0);
        vec3 spec = cspec;
        vec2 AB = oak_sky_brdf(NdotV, r);
        c = c * (1.0 - materials[mi].lobe1.x * Fc) + Lc + ao * materials[mi].lobe1.x * spec * (0.04 * AB.x + AB.y);
    }
    return c;
}

#endif
