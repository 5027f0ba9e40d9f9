// Ground-truth ambient occlusion (Jimenez et al. 2016), the four compute
// steps' shared part: the ao buffer's layout, view positions from view depth,
// the per-pixel pattern. backend/cpu/cpu_gtao.c runs the same steps in C.
#ifndef OAK_GTAO_GLSL
#define OAK_GTAO_GLSL

#include "common/bindings.glsl"

// Per pixel: the denoised AO at 0, the raw AO at n, the view normal at 2n
// (3 floats), then the view-depth levels from 5n (_oak_gpu_ao_floats).
OAK_SSBO(OAK_B_AO) buffer AoBlock { float ao_words[]; };

const float OAK_GTAO_PI = 3.14159265358979;

uint oak_ao_n() {
    return view.size.x * view.size.y;
}
uvec2 oak_ao_level_size(int l) {
    uint m = (1u << uint(l)) - 1u;
    return uvec2((view.size.x + m) >> uint(l), (view.size.y + m) >> uint(l));
}
uint oak_ao_level_offset(int l) {
    uint o = 5u * oak_ao_n();
    for (int k = 0; k < l; k++) {
        uvec2 s = oak_ao_level_size(k);
        o += s.x * s.y;
    }
    return o;
}

// View-space position at pixel coordinates pc (centres at +0.5) and view
// depth z (metres in front of the camera; the camera looks down -z).
vec3 oak_ao_view_pos(vec2 pc, float z) {
    float ndx = pc.x / float(view.size.x) * 2.0 - 1.0;
    float ndy = 1.0 - pc.y / float(view.size.y) * 2.0;
    float w = view.ao_proj2.z != 0.0 ? 1.0 : z;
    float x = (ndx * w - view.ao_proj2.x + view.ao_proj.z * z) / view.ao_proj.x;
    float y = (ndy * w - view.ao_proj2.y + view.ao_proj.w * z) / view.ao_proj.y;
    return vec3(x, y, -z);
}

// Towards the camera from view-space P.
vec3 oak_ao_view_dir(vec3 P) {
    return view.ao_proj2.z != 0.0 ? vec3(0.0, 0.0, 1.0) : normalize(-P);
}

// The fixed 4 x 4 pattern: index 0..15 from the pixel (a Bayer matrix).
uint oak_ao_pattern(ivec2 px) {
    const uint bayer[16] = uint[16](0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u,
                                    13u, 5u);
    return bayer[uint(px.x & 3) + 4u * uint(px.y & 3)];
}

#endif
