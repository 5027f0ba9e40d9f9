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

// The cutout's alpha (the CPU's cpu_mask_tap the same): magnified, level
// 0 through the material's mag filter as oak_sample reads it; minified, one
// nearest tap of the nearest level, not oak_sample's trilinear (up to 8
// loads a fragment, most of them on cards whose fragments are discarded).
// The levels keep level 0's coverage (docs/WORLD.md "Coverage-preserving
// mips"), so the share that passes holds while the edge's position moves by
// up to half a texel of the level. One fetch site in a rolled loop, as
// oak_sample keeps (llvmpipe compiles each site of the size-class switch).
float oak_cutout_alpha(oak_gpu_texref t, vec2 uv, vec2 duvdx, vec2 duvdy) {
    uint bits = t.a.w;
    int mips = int(bits & 0xffu);
    vec2 size0 = vec2(oak_level_size(t, 0));
    float lambda = log2(max(length(duvdx * size0), length(duvdy * size0)));
    bool nearest = ((bits >> 12) & 3u) == 1u;
    int level = 0;
    if (lambda > 0.0) {
        nearest = true;
        level = int(floor(min(lambda, float(mips - 1)) + 0.5));
    }
    int taps = nearest ? 1 : 4;
    float a = 0.0;
    OAK_DONT_UNROLL for (int k = 0; k < taps; k++) a += oak_tap(t, uv, level, nearest, k).a;
    return a;
}

bool oak_masked_out() {
    if (!MASKED) return false;
    uint mi = OAK_MASK_MATERIAL;
    if (materials[mi].mode.x != 2.0) return false; // OAK_ALPHA_MASK
    float a = materials[mi].base_color.a * v_alpha;
    oak_gpu_texref t = materials[mi].tex[OAK_GPU_TEX_BASE];
    if (t.a.x != 0u) {
        vec2 uv = ((t.a.w >> 18) & 1u) != 0u ? v_uv.zw : v_uv.xy;
        a *= oak_cutout_alpha(t, oak_tex_uv(t, uv), oak_tex_duv(t, dFdx(uv)), oak_tex_duv(t, dFdy(uv)));
    }
    return a < materials[mi].mode.z;
}
#endif
