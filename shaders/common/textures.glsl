// Material textures: one 2D array per size class (no descriptor indexing
// needed) or, with OAK_BINDLESS, one runtime array of images, sampled by
// hand exactly as the shading contract says: sRGB decoded per texel before
// filtering, wrap per sampler, bilinear within a level and
// linear between levels chosen from the uv derivatives.
#ifndef OAK_TEXTURES_GLSL
#define OAK_TEXTURES_GLSL

#include "common/oak_gpu.h"

#ifdef OAK_BINDLESS
// Bindless (Vulkan where descriptor indexing exists, compiled as a second
// SPIR-V with -DOAK_BINDLESS=1): every texture its own image in one runtime
// array, t.a.x - 1 its element and t.a.y 0. Only the fetch differs: the
// texel maths below is the same for both.
#extension GL_EXT_nonuniform_qualifier : require
OAK_BINDING(OAK_B_BINDLESS) uniform sampler2D oak_images[];

vec4 oak_fetch(uint cls, ivec3 p, int lod) {
    return texelFetch(oak_images[nonuniformEXT(cls)], p.xy, lod);
}
#else
OAK_BINDING(OAK_B_TEXTURES + 0) uniform sampler2DArray oak_tex0;
OAK_BINDING(OAK_B_TEXTURES + 1) uniform sampler2DArray oak_tex1;
OAK_BINDING(OAK_B_TEXTURES + 2) uniform sampler2DArray oak_tex2;
OAK_BINDING(OAK_B_TEXTURES + 3) uniform sampler2DArray oak_tex3;
OAK_BINDING(OAK_B_TEXTURES + 4) uniform sampler2DArray oak_tex4;
OAK_BINDING(OAK_B_TEXTURES + 5) uniform sampler2DArray oak_tex5;
OAK_BINDING(OAK_B_TEXTURES + 6) uniform sampler2DArray oak_tex6;
OAK_BINDING(OAK_B_TEXTURES + 7) uniform sampler2DArray oak_tex7;
OAK_BINDING(OAK_B_TEXTURES + 8) uniform sampler2DArray oak_tex8;
OAK_BINDING(OAK_B_TEXTURES + 9) uniform sampler2DArray oak_tex9;
OAK_BINDING(OAK_B_TEXTURES + 10) uniform sampler2DArray oak_tex10;
OAK_BINDING(OAK_B_TEXTURES + 11) uniform sampler2DArray oak_tex11;
OAK_BINDING(OAK_B_TEXTURES + 12) uniform sampler2DArray oak_tex12;
OAK_BINDING(OAK_B_TEXTURES + 13) uniform sampler2DArray oak_tex13;
OAK_BINDING(OAK_B_TEXTURES + 14) uniform sampler2DArray oak_tex14;
OAK_BINDING(OAK_B_TEXTURES + 15) uniform sampler2DArray oak_tex15;

// t.a.x - 1 the size class, t.a.y the layer
vec4 oak_fetch(uint cls, ivec3 p, int lod) {
    switch (cls) {
    case 0u: return texelFetch(oak_tex0, p, lod);
    case 1u: return texelFetch(oak_tex1, p, lod);
    case 2u: return texelFetch(oak_tex2, p, lod);
    case 3u: return texelFetch(oak_tex3, p, lod);
    case 4u: return texelFetch(oak_tex4, p, lod);
    case 5u: return texelFetch(oak_tex5, p, lod);
    case 6u: return texelFetch(oak_tex6, p, lod);
    case 7u: return texelFetch(oak_tex7, p, lod);
    case 8u: return texelFetch(oak_tex8, p, lod);
    case 9u: return texelFetch(oak_tex9, p, lod);
    case 10u: return texelFetch(oak_tex10, p, lod);
    case 11u: return texelFetch(oak_tex11, p, lod);
    case 12u: return texelFetch(oak_tex12, p, lod);
    case 13u: return texelFetch(oak_tex13, p, lod);
    case 14u: return texelFetch(oak_tex14, p, lod);
    default: return texelFetch(oak_tex15, p, lod);
    }
}
#endif

float oak_srgb_decode(float c) {
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

// wrap: 1 repeat, 2 clamp, 3 mirror (oak_wrap)
int oak_wrap_index(int i, int n, uint wrap) {
    if (wrap == 2u) return clamp(i, 0, n - 1);
    if (wrap == 3u) {
        int k = i % (2 * n);
        if (k < 0) k += 2 * n;
        return k < n ? k : 2 * n - 1 - k;
    }
    int k = i % n;
    return k < 0 ? k + n : k;
}

vec4 oak_texel(oak_gpu_texref t, int level, int x, int y, ivec2 size) {
    uint bits = t.a.w;
    x = oak_wrap_index(x, size.x, (bits >> 8) & 3u);
    y = oak_wrap_index(y, size.y, (bits >> 10) & 3u);
    vec4 c = oak_fetch(t.a.x - 1u, ivec3(x, y, int(t.a.y)), level);
    if ((bits & OAK_GPU_TEX_SRGB) != 0u)
        c.rgb = vec3(oak_srgb_decode(c.r), oak_srgb_decode(c.g), oak_srgb_decode(c.b));
    return c;
}

ivec2 oak_level_size(oak_gpu_texref t, int level) {
    ivec2 s0 = ivec2(int(t.a.z & 0xffffu), int(t.a.z >> 16));
    return max(ivec2(1), s0 >> level);
}

// One tap of a level: the texel containing uv (nearest) or one of the four
// around it (linear, tap 0..3) with its bilinear weight.
vec4 oak_tap(oak_gpu_texref t, vec2 uv, int level, bool nearest, int tap) {
    ivec2 size = oak_level_size(t, level);
    if (nearest) {
        ivec2 i = ivec2(floor(uv * vec2(size)));
        return oak_texel(t, level, i.x, i.y, size);
    }
    vec2 x = uv * vec2(size) - 0.5;
    vec2 f0 = floor(x);
    vec2 fr = x - f0;
    ivec2 o = ivec2(tap & 1, tap >> 1);
    ivec2 i = ivec2(f0) + o;
    float w = (o.x == 1 ? fr.x : 1.0 - fr.x) * (o.y == 1 ? fr.y : 1.0 - fr.y);
    return w * oak_texel(t, level, i.x, i.y, size);
}

// KHR_texture_transform as the CPU backend applies it (the reference):
// translation * rotation * scale with rotation the column-major
// mat3(cos, sin, 0, -sin, cos, 0, 0, 0, 1), formed from the same products.
vec2 oak_tex_duv(oak_gpu_texref t, vec2 d) {
    float c = t.xform.z, s = t.xform.w;
    return vec2((c * t.scale.x) * d.x + (-s * t.scale.y) * d.y,
                (s * t.scale.x) * d.x + (c * t.scale.y) * d.y);
}

vec2 oak_tex_uv(oak_gpu_texref t, vec2 uv) { return oak_tex_duv(t, uv) + t.xform.xy; }

// uv already transformed; duvdx/duvdy its derivatives per pixel. The taps
// run in one loop kept rolled, so the shader holds one fetch site, not
// dozens (llvmpipe compiles every site of every size-class switch).
vec4 oak_sample(oak_gpu_texref t, vec2 uv, vec2 duvdx, vec2 duvdy) {
    uint bits = t.a.w;
    int mips = int(bits & 0xffu);
    uint mag = (bits >> 12) & 3u, minf = (bits >> 14) & 3u, mipf = (bits >> 16) & 3u;
    vec2 size0 = vec2(oak_level_size(t, 0));
    float len = max(length(duvdx * size0), length(duvdy * size0));
    float lambda = log2(len);
    int l0 = 0, l1 = 0;
    float f = 0.0;
    bool nearest = mag == 1u;
    if (lambda > 0.0) {
        nearest = minf == 1u;
        lambda = clamp(lambda, 0.0, float(mips - 1));
        if (mipf == 1u) {
            l0 = int(floor(lambda + 0.5));
        } else {
            l0 = int(floor(lambda));
            l1 = min(l0 + 1, mips - 1);
            f = lambda - float(l0);
        }
    }
    int per_level = nearest ? 1 : 4;
    int taps = f > 0.0 && l1 != l0 ? 2 * per_level : per_level;
    vec4 a = vec4(0.0), b = vec4(0.0);
    OAK_DONT_UNROLL for (int k = 0; k < taps; k++) {
        bool second = k >= per_level;
        vec4 c = oak_tap(t, uv, second ? l1 : l0, nearest, second ? k - per_level : k);
        if (second) b += c;
        else a += c;
    }
    return taps > per_level ? mix(a, b, f) : a;
}

#endif
