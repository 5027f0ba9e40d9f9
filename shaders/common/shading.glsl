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

// KHR_materials_anisotropy's frame (docs/SHADING.md "Lobes"): the
// direction rot = (cos, sin) from the tangent in the tangent plane, made
// orthogonal to N, and Ab = N x At. Without tangents the tangent is
// up x Nv, up = +Y (+X when |Nv.y| > 0.999), as the sky's prefilter's frame.
void oak_aniso_frame(vec3 N, vec3 Nv, vec3 T, float w, vec2 rot, out vec3 At, out vec3 Ab) {
    vec3 t = T;
    if (dot(t, t) < 1e-12) t = cross(abs(Nv.y) > 0.999 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0), Nv);
    t = normalize(t);
    vec3 B = cross(Nv, t) * (w < 0.0 ? -1.0 : 1.0);
    vec3 dir = t * rot.x + B * rot.y;
    At = normalize(dir - N * dot(N, dir));
    Ab = cross(N, At);
}

// The sky light's normal under anisotropy (the extension's appendix): bent
// from N towards the normal facing V across Ab, the more the stronger and
// smoother the lobe.
vec3 oak_aniso_bent(vec3 N, vec3 V, vec3 Ab, float strength, float roughness) {
    vec3 n = cross(cross(Ab, V), Ab);
    float b = 1.0 - strength * (1.0 - roughness), b2 = b * b, b4 = b2 * b2;
    return normalize(n + (N - n) * b4);
}

// KHR_materials_iridescence (docs/SHADING.md "Lobes"): a thin film's
// interference, Belcour and Barla's model as the extension's appendix gives
// it. The spectral sensitivity of an optical path difference opd (nm) under
// a phase shift: the CIE matching functions fitted by Gaussians, integrated
// in closed form, to linear Rec. 709.
vec3 oak_film_sensitivity(float opd, vec3 shift) {
    float ph = 6.2831853e-9 * opd;
    vec3 xyz = vec3(0.8465900, 1.000222, 1.001122) *
               cos(vec3(1.6810e6, 1.7953e6, 2.2084e6) * ph + shift) *
               exp(-vec3(4.3278e9, 9.3046e9, 6.6121e9) * ph * ph);
    xyz.x += 0.1538683 * cos(2.2399e6 * ph + shift.x) * exp(-4.5282e9 * ph * ph);
    return vec3(3.2404542 * xyz.x - 1.5371385 * xyz.y - 0.4985314 * xyz.z,
                -0.9692660 * xyz.x + 1.8760108 * xyz.y + 0.0415560 * xyz.z,
                0.0556434 * xyz.x - 0.2040259 * xyz.y + 1.0572252 * xyz.z);
}

// The film's Fresnel: air over a film of ior nf and thickness d (nm) over the
// base of Fresnel F0, seen at cos1 from the normal. Both interfaces by
// Schlick; the base's ior from its F0; the sum of the reflected orders, the
// mean and the first two oscillating terms (a loop kept rolled).
vec3 oak_iridescence(float nf, float cos1, float d, vec3 F0) {
    float t = clamp(d / 0.03, 0.0, 1.0); // a film vanishing to nothing is no film
    float n2 = 1.0 + (nf - 1.0) * (t * t * (3.0 - 2.0 * t));
    float c2sq = 1.0 - (1.0 - cos1 * cos1) / (n2 * n2);
    if (c2sq < 0.0) return vec3(1.0); // total internal reflection (nf < 1 only)
    float cos2 = sqrt(c2sq);
    float r0 = (n2 - 1.0) / (n2 + 1.0);
    float q1 = 1.0 - cos1, q1s = q1 * q1;
    float R12 = r0 * r0 + (1.0 - r0 * r0) * (q1s * q1s * q1), T121 = 1.0 - R12;
    vec3 sf = sqrt(clamp(F0, vec3(0.0), vec3(0.9999)));
    vec3 nb = (1.0 + sf) / (1.0 - sf);
    vec3 r1 = (nb - n2) / (nb + n2);
    float q2 = 1.0 - cos2, q2s = q2 * q2;
    vec3 R23 = r1 * r1 + (1.0 - r1 * r1) * (q2s * q2s * q2);
    // phases: pi at each reflection off a denser medium
    vec3 phi = vec3(n2 < 1.0 ? 0.0 : OAK_PI_F) +
               vec3(nb.x < n2 ? OAK_PI_F : 0.0, nb.y < n2 ? OAK_PI_F : 0.0, nb.z < n2 ? OAK_PI_F : 0.0);
    float opd = 2.0 * n2 * d * cos2;
    vec3 R123 = clamp(R12 * R23, vec3(1e-5), vec3(0.9999));
    vec3 r123 = sqrt(R123);
    vec3 Rs = T121 * T121 * R23 / (1.0 - R123);
    vec3 I = R12 + Rs, Cm = Rs - T121;
    OAK_DONT_UNROLL for (int m = 1; m <= 2; m++) {
        Cm *= r123;
        I += Cm * 2.0 * oak_film_sensitivity(float(m) * opd, float(m) * phi);
    }
    return max(I, vec3(0.0));
}

// F90: the Fresnel at grazing, 1 but for KHR_materials_specular's dielectrics.
// aab: anisotropy's alpha along At and along Ab (x 0: isotropic GGX of a);
// irid: the film's Fresnel and its factor (w 0: none).
vec3 oak_brdf(vec3 N, vec3 V, vec3 L, vec3 diffuse, vec3 F0, float F90, float a, vec3 At,
              vec3 Ab, vec2 aab, vec4 irid) {
    float NdotL = max(dot(N, L), 0.0);
    if (NdotL <= 0.0) return vec3(0.0);
    float NdotV = max(dot(N, V), 1e-4);
    vec3 H = normalize(L + V);
    float NdotH = max(dot(N, H), 0.0);
    float VdotH = max(dot(V, H), 0.0);
    float DV;
    if (aab.x > 0.0) {
        float at = aab.x, ab = aab.y, a2 = at * ab;
        vec3 f = vec3(ab * dot(At, H), at * dot(Ab, H), a2 * NdotH);
        float w2 = a2 / dot(f, f);
        float D = a2 * w2 * w2 / OAK_PI_F;
        float gv = NdotL * length(vec3(at * dot(At, V), ab * dot(Ab, V), NdotV));
        float gl = NdotV * length(vec3(at * dot(At, L), ab * dot(Ab, L), NdotL));
        DV = D * (0.5 / max(gv + gl, 1e-7));
    } else {
        float a2 = a * a;
        float dd = NdotH * NdotH * (a2 - 1.0) + 1.0;
        float D = a2 / (OAK_PI_F * dd * dd);
        float den = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2) +
                    NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
        DV = D * (0.5 / max(den, 1e-7));
    }
    float fw = pow(1.0 - VdotH, 5.0);
    vec3 F = F0 + (F90 - F0) * fw;
    if (irid.w > 0.0) F = F + (irid.rgb - F) * irid.w;
    return (diffuse / OAK_PI_F + DV * F) * NdotL;
}

// The light reflected around R at this roughness: the reflection probes'
// boxes holding P first, the sky for what they leave.
vec3 oak_reflection(vec3 P, vec3 R, float roughness) {
    return probes[0].x > 0.0 ? oak_probe_specular(P, R, roughness) : oak_sky_specular(R, roughness);
}

// The sky light, split sum: the diffuse light dI (diffuse / pi times the
// irradiance, and diffuse transmission's share of the irradiance behind)
// less what the specular lobe takes, specular from the reflection spec at
// this roughness (oak_reflection around reflect(-V, N)). The caller looks
// both up, so the lobes reuse them without a second copy of the lookups.
vec3 oak_ambient(vec3 N, vec3 V, vec3 dI, vec3 spec, vec3 F0, float F90, float roughness,
                 float ao) {
    float NdotV = max(dot(N, V), 1e-4);
    vec2 AB = oak_sky_brdf(NdotV, roughness);
    vec3 envF = F0 * AB.x + F90 * AB.y;
    return ao * (dI * (1.0 - envF) + spec * envF);
}

// The lobes over the base (docs/SHADING.md "Lobes"), one light of irradiance
// E from L: the coat's GGX (F0 0.04) about the coat normal Nc into Lc, and
// the sheen's Charlie with Ashikhmin's visibility into Ls. l1, l2: the
// material's lobe1 and lobe2 with its lobe textures applied (surface.glsl).
void oak_lobes_light(vec4 l1, vec4 l2, uint mflags, vec3 N, vec3 Nc, vec3 V, vec3 L, vec3 E,
                     inout vec3 Ls, inout vec3 Lc) {
    vec3 H = normalize(L + V);
    if ((mflags & OAK_GPU_MAT_COAT) != 0u) {
        float NdotL = max(dot(Nc, L), 0.0);
        if (NdotL > 0.0) {
            float r = clamp(l1.y, 0.03, 1.0), a2 = r * r * r * r;
            float NdotV = max(dot(Nc, V), 1e-4), NdotH = max(dot(Nc, H), 0.0);
            float dd = NdotH * NdotH * (a2 - 1.0) + 1.0;
            float D = a2 / (OAK_PI_F * dd * dd);
            float den = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2) +
                        NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
            float Vis = 0.5 / max(den, 1e-7);
            float F = 0.04 + 0.96 * pow(1.0 - max(dot(V, H), 0.0), 5.0);
            Lc += l1.x * D * Vis * F * NdotL * E;
        }
    }
    if ((mflags & OAK_GPU_MAT_SHEEN) != 0u) {
        float NdotL = max(dot(N, L), 0.0);
        if (NdotL > 0.0) {
            float r = max(l1.z, 0.07), a = r * r;
            float NdotV = max(dot(N, V), 1e-4), NdotH = max(dot(N, H), 0.0);
            float s2 = max(1.0 - NdotH * NdotH, 0.0);
            float D = (2.0 + 1.0 / a) * pow(s2, 0.5 / a) / (2.0 * OAK_PI_F);
            float Vis = 1.0 / (4.0 * (NdotL + NdotV - NdotL * NdotV));
            Ls += l2.rgb * (D * Vis * NdotL) * E;
        }
    }
}

// Lit base (Lo + its sky light, ambient) and emissive under the lobes: the
// base scaled by the sheen's albedo, the sheen's sky light (its albedo times
// the irradiance), then all of it under the coat's Fresnel with the coat's
// own reflection of the sky (split sum at its roughness) on top.
// irr: the sky's irradiance about N; cspec: oak_reflection around
// reflect(-V, Nc) at the coat's roughness.
vec3 oak_lobes_compose(vec4 l1, vec4 l2, uint mflags, vec3 N, vec3 Nc, vec3 V, vec3 base,
                       vec3 emissive, vec3 Ls, vec3 Lc, vec3 irr, vec3 cspec, float ao) {
    vec3 c = base;
    if ((mflags & OAK_GPU_MAT_SHEEN) != 0u) {
        float E = oak_sheen_e(max(dot(N, V), 1e-4), l1.z);
        vec3 s = l2.rgb;
        c = c * (1.0 - max(s.r, max(s.g, s.b)) * E) + Ls + ao * s * E * irr / OAK_PI_F;
    }
    c += emissive;
    if ((mflags & OAK_GPU_MAT_COAT) != 0u) {
        float r = clamp(l1.y, 0.03, 1.0), NdotV = max(dot(Nc, V), 1e-4);
        float Fc = 0.04 + 0.96 * pow(1.0 - NdotV, 5.0);
        vec3 spec = cspec;
        vec2 AB = oak_sky_brdf(NdotV, r);
        c = c * (1.0 - l1.x * Fc) + Lc + ao * l1.x * spec * (0.04 * AB.x + AB.y);
    }
    return c;
}

#endif
