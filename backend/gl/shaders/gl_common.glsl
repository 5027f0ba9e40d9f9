// The OpenGL passes' shared GLSL: buffer layouts (mirrored in C by
// backend/gl/gl_gpu.h), binding points, and the texture sampling rules of
// docs/SHADING.md done by hand with texelFetch so every backend filters alike.
#include <oak/config.h>

#define OAK_BIND_VIEW      0 // uniform block
#define OAK_BIND_VERTICES  0 // storage blocks
#define OAK_BIND_INDICES   1
#define OAK_BIND_DRAWS     2
#define OAK_BIND_MATERIALS 3
#define OAK_BIND_LIGHTS    4
#define OAK_UNIT_VIS       0 // texture units
#define OAK_UNIT_SHADOW    1
#define OAK_UNIT_TEX0      2
#define OAK_TEX_CLASSES    12 // texture arrays (one per size class) a pass can read

#define OAK_PI 3.14159265358979

struct oak_vertex {
    vec4 p0;      // position xyz, uv0.x
    vec4 p1;      // normal xyz, uv0.y
    vec4 tangent; // xyz, w = bitangent sign
    vec4 uv1;     // uv1 xy
    vec4 color;   // linear rgba
};

struct oak_draw {
    mat4 world;
    mat4 normal;  // inverse transpose of world
    uvec4 info;   // first index, base vertex, material slot, oak_draw_flags
};

// flags: wrap u (bits 0-1), wrap v (2-3): 0 repeat, 1 clamp, 2 mirror;
// 16 sRGB, 32 mag nearest, 64 min nearest, 128 mip nearest
struct oak_texref {
    ivec4 img;  // class (-1: none), layer, width, height
    ivec4 mode; // mip count, flags, uv set, 0
    vec4 xf;    // offset xy, rotation, 0
    vec4 scale; // scale xy (already 1 where 0)
};

struct oak_gpu_material {
    vec4 base_color;
    vec4 emissive; // rgb * strength
    vec4 pbr;      // metallic, roughness, normal scale, occlusion strength
    vec4 mode;     // alpha cutoff, alpha mode, double sided, unlit
    oak_texref tex[5]; // base, metal-rough, normal, occlusion, emissive
};

struct oak_gpu_light {
    vec4 color_type; // colour * intensity, type (1 dir, 2 point, 3 spot)
    vec4 pos_range;
    vec4 dir_cos_outer;
    vec4 cos_inner;
};

layout(std140, binding = OAK_BIND_VIEW) uniform oak_view_block {
    mat4 view_proj;
    mat4 inv_view_proj;
    mat4 shadow_vp;
    vec4 camera_pos;
    vec4 sky_zenith;
    vec4 sky_horizon;
    vec4 fog;          // colour, density
    vec4 ambient_sky;
    vec4 ambient_ground;
    vec4 shadow;       // texel_world, depth_range, on, map size
    vec4 post;         // exposure, no_tonemap, no_dither, no_fxaa
    ivec4 counts;      // lights, key light, width, height
} oak_v;

layout(std430, binding = OAK_BIND_VERTICES) readonly buffer oak_vertex_block {
    oak_vertex oak_vertices[];
};
layout(std430, binding = OAK_BIND_INDICES) readonly buffer oak_index_block {
    uint oak_indices[];
};
layout(std430, binding = OAK_BIND_DRAWS) readonly buffer oak_draw_block {
    oak_draw oak_draws[];
};
layout(std430, binding = OAK_BIND_MATERIALS) readonly buffer oak_material_block {
    oak_gpu_material oak_materials[];
};

#ifdef OAK_WANT_TEXTURES
layout(binding = OAK_UNIT_TEX0) uniform sampler2DArray oak_tex[OAK_TEX_CLASSES];

// Indexing a sampler array needs a constant index in GLSL 4.50 when lanes
// differ, so each class gets its own constant-indexed fetch.
vec4 oak_fetch(int cls, ivec3 p, int lod) {
    switch (cls) {
    case 0: return texelFetch(oak_tex[0], p, lod);
    case 1: return texelFetch(oak_tex[1], p, lod);
    case 2: return texelFetch(oak_tex[2], p, lod);
    case 3: return texelFetch(oak_tex[3], p, lod);
    case 4: return texelFetch(oak_tex[4], p, lod);
    case 5: return texelFetch(oak_tex[5], p, lod);
    case 6: return texelFetch(oak_tex[6], p, lod);
    case 7: return texelFetch(oak_tex[7], p, lod);
    case 8: return texelFetch(oak_tex[8], p, lod);
    case 9: return texelFetch(oak_tex[9], p, lod);
    case 10: return texelFetch(oak_tex[10], p, lod);
    default: return texelFetch(oak_tex[11], p, lod);
    }
}

float oak_srgb_to_linear(float c) {
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

int oak_wrap(int i, int n, int mode) {
    if (mode == 1) return clamp(i, 0, n - 1);
    if (mode == 2) {
        int m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    return ((i % n) + n) % n;
}

vec4 oak_texel(oak_texref t, int i, int j, int lw, int lh, int level) {
    int fl = t.mode.y;
    ivec3 p = ivec3(oak_wrap(i, lw, fl & 3), oak_wrap(j, lh, (fl >> 2) & 3), t.img.y);
    vec4 c = oak_fetch(t.img.x, p, level);
    if ((fl & 16) != 0)
        c.rgb = vec3(oak_srgb_to_linear(c.r), oak_srgb_to_linear(c.g), oak_srgb_to_linear(c.b));
    return c;
}

// uv and its screen derivatives before the texture transform. The tap loops
// have trip counts the compiler cannot know, so the class switch in
// oak_fetch is emitted once per call site instead of once per tap (llvmpipe
// otherwise spends minutes compiling the resolve).
vec4 oak_sample(oak_texref t, vec2 uv, vec2 dx, vec2 dy) {
    if (t.img.x < 0) return vec4(1.0);
    float cr = cos(t.xf.z), sr = sin(t.xf.z);
    mat2 m = mat2(cr * t.scale.x, -sr * t.scale.x, sr * t.scale.y, cr * t.scale.y);
    uv = m * uv + t.xf.xy;
    dx = m * dx;
    dy = m * dy;
    vec2 size = vec2(t.img.zw);
    float lambda = log2(max(length(dx * size), length(dy * size)));
    int fl = t.mode.y, mips = t.mode.x;
    bool mag = !(lambda > 0.0);
    bool nearest = (fl & (mag ? 32 : 64)) != 0;
    float l = clamp(lambda, 0.0, float(mips - 1));
    int lev[2];
    float lw[2];
    int nlev = 1;
    if ((fl & 128) != 0) {
        lev[0] = int(floor(l + 0.5));
        lw[0] = 1.0;
    } else {
        lev[0] = int(floor(l));
        lev[1] = min(lev[0] + 1, mips - 1);
        float fr = l - float(lev[0]);
        lw[0] = 1.0 - fr;
        lw[1] = fr;
        if (lev[1] != lev[0] && fr > 0.0) nlev = 2;
        else lw[0] = 1.0;
    }
    int ntap = nearest ? 1 : 4;
    vec4 acc = vec4(0.0);
    for (int li = 0; li < nlev; li++) {
        int level = lev[li];
        int w = max(1, t.img.z >> level), h = max(1, t.img.w >> level);
        vec2 f = uv * vec2(w, h);
        ivec2 i0;
        vec2 fw = vec2(0.0);
        if (nearest) {
            i0 = ivec2(floor(f));
        } else {
            f -= 0.5;
            vec2 fi = floor(f);
            i0 = ivec2(fi);
            fw = f - fi;
        }
        for (int k = 0; k < ntap; k++) {
            int di = k & 1, dj = k >> 1;
            float wt = nearest ? 1.0 : (di == 1 ? fw.x : 1.0 - fw.x) * (dj == 1 ? fw.y : 1.0 - fw.y);
            acc += (lw[li] * wt) * oak_texel(t, i0.x + di, i0.y + dj, w, h, level);
        }
    }
    return acc;
}
#endif
