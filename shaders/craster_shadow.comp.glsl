#version 450
// Compute rasterization of small stream casters into the cascade shadow
// maps (docs/ARCHITECTURE.md "Compute rasterization", oak_gpu.h "Compute
// rasterization"): craster.comp's scheme for the key light's cascades. One
// invocation per (instance, triangle) of a band's cascade list, one row of
// work groups per (band, cascade). The vertex goes through
// shadow_stream.vert's steps (the instance's bent matrix, the cascade's
// shadow_view_proj, oak_snap's 1/16-texel grid of the cascade's map, no
// jitter), so the corners are the hardware's; then the texel centres inside
// by exact integer edge functions with the top-left rule in the map's rows
// (row 0 at clip y = -1, as the shadow pass's viewport: lavapipe and
// llvmpipe, GL's lower-left origin too, fill by it there), both faces drawn
// (casters are two-sided), depth z / w in screen space kept in [0, 1] (the
// hardware clips there: no depth clamp), clipped to the cascade's tile. Per
// texel atomicMax of the depth bits (reversed-Z: the nearest caster wins)
// into the texel's region of OAK_B_CRASTER_SHADOW: a region per cascade and
// kind (static casters, movers), so the static layer never takes a mover.
// Depth only, so one 32-bit atomic on both GPUs. A MASK band's texels only
// where its cutout keeps them, as craster.comp's pixels (the texel grid the
// hardware's derivatives step over is the same map's).
#extension GL_GOOGLE_include_directive : require
#if defined(OAK_VULKAN_GLSL)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define OAK_CRASTER_INT64 1
#else
#extension GL_ARB_gpu_shader_int64 : enable
#ifdef GL_ARB_gpu_shader_int64
#define OAK_CRASTER_INT64 1
#endif
#endif
#include "common/draw.glsl"

layout(local_size_x = 64) in;

OAK_SSBO(OAK_B_CRASTER) readonly buffer CrasterBlock { uvec4 craster_table[]; };
OAK_SSBO(OAK_B_CRASTER_SHADOW) buffer CrasterShadowBlock { uint craster_texels[]; };

#ifdef OAK_CRASTER_INT64

// the edges and the instance matrices as craster.comp's
#include "common/craster.glsl"

void main() {
    const uint at0 = uint(OAK_GPU_CRASTER_SHADOW_TABLE);
    uint band = gl_WorkGroupID.y, lid = gl_LocalInvocationID.x;
    uvec4 a = craster_table[at0 + 1u + band * 2u], m = craster_table[at0 + 2u + band * 2u];
    uint s = a.x, tris = a.z, region = a.w, cascade = m.w;
    uint count = stream_words[m.z + 1u], list = stream_words[m.z + 4u];
    // whole instances within OAK_GPU_CRASTER_ITEMS (the host plans from
    // whole record counts, which may pass 2^32 items where the visible do not)
    uint n = min(count, OAK_GPU_CRASTER_ITEMS / tris) * tris, stride = gl_NumWorkGroups.x * 64u;
    int size = int(view.flags.z);
    float fsize = float(size);
    uint base = region * uint(size) * uint(size);
    mat4 vp = view.shadow_view_proj[cascade];
    // a MASK band (the material the band's LOD draws in): its cutout per texel
    uint mi = oak_stream_material(s, a.y);
    bool masked = materials[mi].mode.x == 2.0;
    // g0 is the work group's (uniform, so every invocation meets the barriers)
    // (n stays 256 below 2^32, so g0 + 63 cannot wrap; the stride could)
    for (uint g0 = gl_WorkGroupID.x * 64u; g0 < n; g0 = n - g0 > stride ? g0 + stride : n) {
        uint i = g0 + lid;
        mat4 world = oak_craster_round_world(s, list, g0, n, tris, i);
        if (i >= n) continue;
        uint t = i - i / tris * tris;
        ivec2 v[3];
        float z[3], w[3];
        uint vi[3];
        bool keep = true;
        for (uint j = 0u; j < 3u; j++) {
            uint k = indices[m.x + t * 3u + j] + m.y;
            vec4 c = vp * (world * positions[k]);
            // oak_snap's grid (common/snap.glsl) in the cascade's map, 1/16 texels
            vec2 q = (c.xy / c.w * 0.5 + 0.5) * fsize;
            keep = keep && c.w > 0.0 && all(lessThan(abs(q), vec2(OAK_GPU_CRASTER_GUARD)));
            q = roundEven(q * 16.0);
            OAK_PUT3(v, j, ivec2(q));
            OAK_PUT3(z, j, c.z / c.w);
            OAK_PUT3(w, j, c.w);
            OAK_PUT3(vi, j, k);
        }
        if (!keep) continue;
        ivec2 lo, hi, v1 = v[1]; // both faces (casters are two-sided)
        int64_t b[3];
        float inv;
        if (!oak_craster_setup(v, z, false, ivec2(size), lo, hi, b, inv)) continue;
        oak_craster_cut cut = oak_craster_cut_setup(masked, mi, v, v[1] != v1, vi, w);
        for (int y = lo.y; y <= hi.y; y++)
            for (int x = lo.x; x <= hi.x; x++) {
                vec3 e;
                float d = oak_craster_depth(v, z, b, inv, x, y, e);
                if (!(d > 0.0) || d > 1.0) continue; // 0 is the cleared map: nothing to add
                uint at = base + uint(y) * uint(size) + uint(x);
                uint bits = floatBitsToUint(d);
                // the cutout only where the caster would win (as craster.comp)
                if (craster_texels[at] < bits && !(masked && oak_craster_cut_out(cut, e)))
                    atomicMax(craster_texels[at], bits);
            }
    }
}
#else
void main() {} // GL without 64-bit integers: the backend never dispatches it
#endif
