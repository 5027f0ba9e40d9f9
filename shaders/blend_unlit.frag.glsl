#version 450
// BLEND surfaces of an unlit material (flames, sparks, embers): what
// blend.frag.glsl gives them, without its lit path. The forward shader's
// every light, shadow, sky light, reflection, transmission and water branch
// stays in its code even where a draw never runs it, and sizes its
// registers; a screenful of additive quads paid that on every fragment.
// The backends pick this pipeline for unlit materials without water or
// texture tricks (vk_pass_blend.c and gl_pass_blend.c, blend_unlit), whose
// surface.glsl result is exactly this: the rebuilt triangle, the base
// colour texel times the factor and the vertex or instance colour, the
// water's volume, the fog. The triangle comes from oak_rebuild_tri, as
// oak_shade_draw's does, so both shaders give the same numbers.
#extension GL_GOOGLE_include_directive : require
#define OAK_FORWARD 1
#include "common/surface.glsl"

layout(location = 0) flat in uint v_draw;
layout(location = 0) out vec4 o_color;

float oak_view_depth_of(float d) {
    vec4 p = view.depth_proj;
    return p.z != 0.0 ? (p.y - d) / p.x : p.y / (d + p.x);
}

vec4 oak_shade_unlit(oak_gpu_draw d, uint tri, ivec2 px) {
    oak_tri rt;
    oak_rebuild_tri(d, tri, px, rt);
    uint mi = d.info.x;
    uint vi[3] = rt.vi;
    vec3 Pw[3] = rt.Pw;
    vec4 sk0[3] = rt.sk0, sk1[3] = rt.sk1, sk2[3] = rt.sk2;
    vec3 b = rt.b, dbx = rt.dbx, dby = rt.dby;
    bool posed = rt.posed;

    oak_gpu_vertex a0 = attributes[vi[0]], a1 = attributes[vi[1]], a2 = attributes[vi[2]];
    vec3 P = b.x * Pw[0] + b.y * Pw[1] + b.z * Pw[2];
    vec4 uvs = b.x * a0.uv + b.y * a1.uv + b.z * a2.uv;
    if (posed) uvs.xy += oak_impostor_uv(d.prev.w & 0xffu, d.prev.w >> 8, d.prev.z);
    vec4 duvx = dbx.x * a0.uv + dbx.y * a1.uv + dbx.z * a2.uv;
    vec4 duvy = dby.x * a0.uv + dby.y * a1.uv + dby.z * a2.uv;
    vec4 C = (b.x * a0.color + b.y * a1.color + b.z * a2.color) * d.normal[3];
    vec3 cam = view.camera_pos.xyz;
    vec4 t = oak_material_tap(materials[mi].tex[OAK_GPU_TEX_BASE], uvs, duvx, duvy);
    if (materials[mi].fx1.x > 0.0) t.rgb *= oak_fx_vary(mi, P);
    vec4 basec = materials[mi].base_color * C * t;
    uint channel = view.flags.y & OAK_GPU_CHANNEL_MASK;
    if (channel != 0u) {
        if (channel == OAK_GPU_CHANNEL_ALBEDO) return vec4(basec.rgb, 1.0);
        if (channel == OAK_GPU_CHANNEL_DEPTH) return vec4(vec3(dot(view.view_depth, vec4(P, 1.0))), 1.0);
        // the normal: the interpolated one, turned to the eye on a two-sided back face
        if (posed) {
            a0.normal = oak_pose_apply(sk0[0], sk1[0], sk2[0], vec4(a0.normal.xyz, 0.0));
            a1.normal = oak_pose_apply(sk0[1], sk1[1], sk2[1], vec4(a1.normal.xyz, 0.0));
            a2.normal = oak_pose_apply(sk0[2], sk1[2], sk2[2], vec4(a2.normal.xyz, 0.0));
        }
        vec3 n = b.x * a0.normal.xyz + b.y * a1.normal.xyz + b.z * a2.normal.xyz;
        vec3 Nv = normalize(mat3(d.normal) * n);
        bool back = rt.back;
        if ((uint(materials[mi].mode.y) & OAK_GPU_MAT_DOUBLE_SIDED) != 0u && back) Nv = -Nv;
        return vec4(Nv, 1.0);
    }
    vec3 colour = oak_underwater(P, cam, basec.rgb);
    float fog = view.camera_pos.w;
    if (view.fog.grid.w != 0u) {
        colour = oak_fog_apply(P, colour);
    } else if (fog > 0.0) {
        float dist = length(P - cam);
        float fd = fog * dist;
        colour = mix(view.fog_color.rgb, colour, exp(-fd * fd));
    }
    colour = oak_aerial_apply(P, colour); // the air's, over the fog (aerial.glsl)
    if ((view.flags.y & OAK_GPU_DEBUG_CASCADES) != 0u) colour = oak_cascade_tint(P, colour);
    return vec4(colour, basec.a);
}

void main() {
    vec4 c = oak_shade_unlit(draws[v_draw], uint(gl_PrimitiveID), ivec2(gl_FragCoord.xy));
    float a = clamp(c.a, 0.0, 1.0);
    vec4 m = materials[draws[v_draw].info.x].emissive;
    // soft particles, as blend.frag.glsl
    if (m.w > 0.0) {
        float scene = opaque_texels[uint(gl_FragCoord.y) * view.size.x + uint(gl_FragCoord.x)].w;
        float gap = oak_view_depth_of(scene) - oak_view_depth_of(gl_FragCoord.z);
        a *= clamp(gap / m.w, 0.0, 1.0);
    }
    bool add = (uint(materials[draws[v_draw].info.x].mode.y) & OAK_GPU_MAT_ADDITIVE) != 0u;
    o_color = vec4(c.rgb * a, add ? 0.0 : a);
}
