// Alpha cutout shared by the visibility and shadow fragment shaders and the
// compute raster (craster.comp, craster_shadow.comp define OAK_MASK_COMPUTE:
// no varyings, their own uv derivatives).
#ifndef OAK_MASK_GLSL
#define OAK_MASK_GLSL
#include "common/bindings.glsl"
#include "common/textures.glsl"

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

// Whether material slot mi cuts a sample away: an OAK_ALPHA_MASK material
// whose alpha (base colour's x the vertex alpha va x the base texture's
// cutout tap) is below its cutoff. uv: the two uv sets (xy, zw) at the
// sample, duvdx and duvdy their derivatives per pixel.
bool oak_cutout(uint mi, vec4 uv, vec4 duvdx, vec4 duvdy, float va) {
    if (materials[mi].mode.x != 2.0) return false; // OAK_ALPHA_MASK
    float a = materials[mi].base_color.a * va;
    oak_gpu_texref t = materials[mi].tex[OAK_GPU_TEX_BASE];
    if (t.a.x != 0u) {
        bool set1 = ((t.a.w >> 18) & 1u) != 0u;
        vec2 u = set1 ? uv.zw : uv.xy, dx = set1 ? duvdx.zw : duvdx.xy, dy = set1 ? duvdy.zw : duvdy.xy;
        a *= oak_cutout_alpha(t, oak_tex_uv(t, u), oak_tex_duv(t, dx), oak_tex_duv(t, dy));
    }
    return a < materials[mi].mode.z;
}

#ifndef OAK_MASK_COMPUTE
OAK_SPEC_CONST(1, bool, MASKED, false)

layout(location = 0) flat in uint v_draw;
layout(location = 1) in vec4 v_uv;
layout(location = 2) in float v_alpha;

// The material slot the cutout reads: the draw's (stream shaders pass the
// slot itself in v_draw).
#ifndef OAK_MASK_MATERIAL
#define OAK_MASK_MATERIAL draws[v_draw].info.x
#endif

// The hardware's derivatives: per quad, dFdx and dFdy of the interpolated uv.
bool oak_masked_out() {
    if (!MASKED) return false;
    return oak_cutout(OAK_MASK_MATERIAL, v_uv, dFdx(v_uv), dFdy(v_uv), v_alpha);
}
#endif
#endif
