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
// water's volume, the fog. The rebuild below repeats oak_shade_draw's
// line for line, so both shaders give the same numbers.
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
    uint W = view.size.x, H = view.size.y;
    vec2 ndc = vec2((float(px.x) + 0.5 - view.taa.x) / float(W) * 2.0 - 1.0,
                    1.0 - (float(px.y) + 0.5 - view.taa.y) / float(H) * 2.0);
    uint mi = d.info.x;
    uint base = d.info.y + tri * 3u;
    uint vi[3];
    vec3 Pw[3];
    vec3 rows[3];
    bool posed = d.prev.y != 0u;
    vec4 sk0[3], sk1[3], sk2[3];
    for (int k = 0; k < 3; k++) {
        uint v = indices[base + uint(k)] + d.info.z;
        vec4 Po = positions[v], r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
        if (posed) {
            uint s = d.prev.w & 0xffu;
            oak_stream_rows(s, d.prev.w >> 8, v - d.info.z, d.prev.z, r0, r1, r2);
            Po = oak_pose_apply(r0, r1, r2, Po);
        }
        vec3 pw = (d.world * Po).xyz;
        vec4 c = view.view_proj * vec4(pw, 1.0);
        OAK_PUT3(vi, k, v);
        OAK_PUT3(Pw, k, pw);
        OAK_PUT3(rows, k, c.xyw);
        OAK_PUT3(sk0, k, r0);
        OAK_PUT3(sk1, k, r1);
        OAK_PUT3(sk2, k, r2);
    }
    vec3 e0 = cross(rows[1], rows[2]), e1 = cross(rows[2], rows[0]), e2 = cross(rows[0], rows[1]);
    vec3 p = vec3(ndc, 1.0);
    vec3 E = vec3(dot(e0, p), dot(e1, p), dot(e2, p));
    float S = E.x + E.y + E.z;
    vec3 b = E / S;
    vec3 dEx = vec3(e0.x, e1.x, e2.x) * (2.0 / float(W));
    vec3 dEy = -vec3(e0.y, e1.y, e2.y) * (2.0 / float(H));
    float dSx = dEx.x + dEx.y + dEx.z, dSy = dEy.x + dEy.y + dEy.z;
    float rs = view.post_params.w > 0.0 ? view.post_params.w : 1.0;
    vec3 dbx = (dEx * S - E * dSx) / (S * S) * rs;
    vec3 dby = (dEy * S - E * dSy) / (S * S) * rs;

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
        bool back = dot(rows[0], e0) < 0.0;
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
