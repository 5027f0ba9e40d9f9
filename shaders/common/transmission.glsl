// Light through a transmissive surface (KHR_materials_transmission, _volume,
// _dispersion; docs/SHADING.md "Transmission"), read from the opaque
// frame's copy as the Khronos sample viewer does: the refracted ray runs the
// volume's thickness (times the draw's scale per axis; 0: thin-walled, no
// offset) and its end is projected into the copy, read at a level of
// log2(width) x roughness x clamp(2 ior - 2, 0, 1); Beer-Lambert over the
// ray's length, the base colour's tint, (1 - F) of the surface's Fresnel and
// the factor. Dispersion spreads the ior per channel ((ior - 1) x 0.025 x
// dispersion either side of green): three rays, one channel each.
// backend/cpu/cpu_shade.c's transmit() is the C of the same.
#ifndef OAK_TRANSMISSION_GLSL
#define OAK_TRANSMISSION_GLSL

#include "common/opaque.glsl"

// l6: the material's lobe6 with its lobe textures applied (surface.glsl).
vec3 oak_transmitted(mat4 world, uint mi, vec4 l6, vec3 P, vec3 N, vec3 V, vec3 base, float rough,
                     vec3 F0, float F90) {
    // l6: factor, thickness, attenuation distance, dispersion
    vec4 l7 = materials[mi].lobe7; // attenuation colour, ior
    float ior = l7.w;
    vec3 scale = vec3(length(world[0].xyz), length(world[1].xyz), length(world[2].xyz));
    float spread = (ior - 1.0) * 0.025 * l6.w;
    float lod = log2(float(view.size.x)) * rough * clamp(2.0 * ior - 2.0, 0.0, 1.0);
    vec3 T = vec3(0.0);
    float len = 0.0;
    int rays = l6.w > 0.0 ? 3 : 1;
    OAK_DONT_UNROLL for (int c = 0; c < rays; c++) {
        float n = rays == 1 ? ior : ior + spread * float(c - 1);
        vec3 r = refract(-V, N, 1.0 / n);
        vec3 ray = dot(r, r) > 0.0 ? normalize(r) * l6.y * scale : vec3(0.0);
        vec4 clip = view.view_proj * vec4(P + ray, 1.0);
        vec2 uv = vec2(0.5 + 0.5 * clip.x / clip.w, 0.5 - 0.5 * clip.y / clip.w);
        vec3 s = oak_opaque_sample(uv, lod);
        if (rays == 1)
            T = s;
        else
            T[c] = s[c];
        if (c == rays / 2) len = length(ray);
    }
    // Beer-Lambert: attenuationColor^(d / attenuationDistance); 0: none
    if (l6.z > 0.0 && len > 0.0) T *= pow(l7.rgb, vec3(len / l6.z));
    float q = 1.0 - clamp(dot(N, V), 0.0, 1.0), q2 = q * q;
    vec3 F = F0 + (vec3(F90) - F0) * (q2 * q2 * q);
    return l6.x * (1.0 - F) * base * T;
}

// The frame behind water, refracted by its waves (docs/SHADING.md "Water"):
// the copy read where the ray refracted through the wavy normal N lands
// OAK_WATER_REFRACT_DEPTH metres down, against the ray through still water
// (so still water reads the pixel itself); cpu_shade.c water_behind().
vec3 oak_water_behind(vec3 P, vec3 N, vec3 V) {
    float eta = 1.0 / 1.33;
    vec3 d = refract(-V, N, eta) - refract(-V, vec3(0.0, 1.0, 0.0), eta);
    vec4 clip = view.view_proj * vec4(P + d * float(OAK_WATER_REFRACT_DEPTH), 1.0);
    return oak_opaque_sample(vec2(0.5 + 0.5 * clip.x / clip.w, 0.5 - 0.5 * clip.y / clip.w), 0.0);
}

#endif
