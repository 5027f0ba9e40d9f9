// Alpha cutout shared by the visibility and shadow fragment shaders.
#ifndef OAK_MASK_GLSL
#define OAK_MASK_GLSL
#include "common/bindings.glsl"
#include "common/textures.glsl"

OAK_SPEC_CONST(1, bool, MASKED, false)

layout(location = 0) flat in uint v_draw;
layout(location = 1) in vec4 v_uv;
layout(location = 2) in float v_alpha;

// The material slot the cutout reads: the draw's (stream shaders pass the
// slot itself in v_draw).
#ifndef OAK_MASK_MATERIAL
#define OAK_MASK_MATERIAL draws[v_draw].info.x
#endif

bool oak_masked_out() {
    if (!MASKED) return false;
    uint mi = OAK_MASK_MATERIAL;
    if (materials[mi].mode.x != 2.0) return false; // OAK_ALPHA_MASK
    float a = materials[mi].base_color.a * v_alpha;
    oak_gpu_texref t = materials[mi].tex[OAK_GPU_TEX_BASE];
    if (t.a.x != 0u) {
        vec2 uv = ((t.a.w >> 18) & 1u) != 0u ? v_uv.zw : v_uv.xy;
        a *= oak_sample(t, oak_tex_uv(t, uv), oak_tex_duv(t, dFdx(uv)), oak_tex_duv(t, dFdy(uv))).a;
    }
    return a < materials[mi].mode.z;
}
#endif
