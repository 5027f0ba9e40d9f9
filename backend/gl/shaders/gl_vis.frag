// Visibility and shadow raster, fragment stage: writes (draw + 1, triangle)
// for the resolve; the MASK variant discards below the material's cutoff and,
// in the main view, back faces of single-sided materials (the mask group is
// drawn without culling).
#define OAK_WANT_TEXTURES
#include "gl_common.glsl"

layout(location = 0) flat in uint v_draw;
layout(location = 1) in vec2 v_uv;
layout(location = 2) in float v_alpha;
#ifndef OAK_SHADOW
layout(location = 0) out uvec2 o_id;
#endif

void main() {
#ifdef OAK_MASK
    oak_gpu_material m = oak_materials[oak_draws[v_draw].info.z];
#ifndef OAK_SHADOW
    if (!gl_FrontFacing && m.mode.z == 0.0) discard;
#endif
    float a = m.base_color.a * v_alpha * oak_sample(m.tex[0], v_uv, dFdx(v_uv), dFdy(v_uv)).a;
    if (a < m.mode.x) discard;
#endif
#ifndef OAK_SHADOW
    o_id = uvec2(v_draw + 1u, uint(gl_PrimitiveID));
#endif
}
