// Depth of field's layout and arithmetic (render/dof.h and backend/cpu/
// cpu_dof.c are the C of the same, operation for operation): the buffer
// holds the half-size prefiltered frame (rgb, signed circle of confusion in
// half-size pixels, near < 0), the half-size gathered frame (rgb, near-field
// coverage), then one texel per OAK_DOF_TILE-square tile (x: its largest
// near-field radius).
#ifndef OAK_DOF_GLSL
#define OAK_DOF_GLSL

#include "common/bindings.glsl"

OAK_SSBO(OAK_B_DOF) buffer DofBlock { vec4 dof[]; };

uvec2 oak_dof_half() {
    return (view.out_size.xy + 1u) / 2u;
}

// The depth texel under picture texel p: the same one, or under TAA's
// upsampling the render texel it falls in (render/taa.h).
ivec2 oak_dof_depth_texel(ivec2 p) {
    return ivec2((uvec2(p) * view.size.xy) / view.out_size.xy);
}

uvec2 oak_dof_tiles() {
    return (oak_dof_half() + uint(OAK_DOF_TILE) - 1u) / uint(OAK_DOF_TILE);
}

uint oak_dof_gathered_at() {
    uvec2 h = oak_dof_half();
    return h.x * h.y;
}

uint oak_dof_tiles_at() {
    return 2u * oak_dof_gathered_at();
}

// The signed circle of confusion, half-size pixels, at device depth d
// (reversed-Z): linear in d (render/dof.h), clamped to the largest radius.
float oak_dof_coc(float d) {
    float r = view.dof_params.z;
    return clamp(view.dof_params.x + view.dof_params.y * d, -r, r);
}

// radiance as the gather reads it: NaN and negatives 0, the rest clamped
vec3 oak_dof_clean(vec3 c) {
    for (int k = 0; k < 3; k++) c[k] = c[k] >= 0.0 ? min(c[k], float(OAK_BLOOM_MAX)) : 0.0;
    return c;
}

#endif
