// Which side of the water the eye sees (docs/SHADING.md "Water"): surface.glsl
// shades by it and blend_water_id.frag keeps only the pixels it would shade.
#ifndef OAK_WATER_SIDE_GLSL
#define OAK_WATER_SIDE_GLSL

#include "common/bindings.glsl"

// The eye under the water's level, inside its extent (the underwater fog's
// condition): the water's underside is drawn and its top culled, the sky
// is seen through the water (cpu_shade.c _oak_cpu_eye_under_water).
bool oak_eye_under_water() {
    vec3 cam = view.camera_pos.xyz;
    vec4 e = view.water_extent;
    return view.water.z != 0.0 && cam.y < view.water.x && cam.x >= e.x && cam.z >= e.y &&
           cam.x <= e.z && cam.z <= e.w;
}

// A water triangle seen from the side that draws nothing (its top from
// below, its underside from above): oak_shade_draw returns alpha 0 there.
bool oak_water_hidden_side(uint mflags, bool back) {
    return (mflags & OAK_GPU_MAT_WATER) != 0u && back != oak_eye_under_water();
}

#endif
