// The visibility-buffer resolve: one invocation per pixel rebuilds the
// triangle under it from the ids, interpolates its attributes perspective-
// correctly at the pixel centre (with exact screen derivatives for texture
// levels) and shades it as docs/SHADING.md says, into linear HDR colour.
#define OAK_WANT_TEXTURES
#include "gl_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = OAK_BIND_LIGHTS) readonly buffer oak_light_block {
    oak_gpu_light oak_lights[];
};
layout(binding = OAK_UNIT_VIS) uniform usampler2D oak_vis;
layout(binding = OAK_UNIT_SHADOW) uniform sampler2D oak_shadow_map;
layout(rgba32f, binding = 0) uniform writeonly image2D oak_hdr;

vec3 oak_sky(vec3 dir) {
    return dir.y > 0.0 ? mix(oak_v.sky_horizon.rgb, oak_v.sky_zenith.rgb, sqrt(dir.y))
                       : oak_v.sky_horizon.rgb;
}

vec3 oak_unproject(vec2 ndc, float z) {
    vec4 p = oak_v.inv_view_proj * vec4(ndc, z, 1.0);
    return p.xyz / p.w;
}

float oak_shadow_at(vec3 P, vec3 Ng) {
    float tw = oak_v.shadow.x;
    vec3 pw = P + Ng * (1.5 * tw);
    vec4 p = oak_v.shadow_vp * vec4(pw, 1.0);
    vec2 uv = p.xy * 0.5 + 0.5;
    float z = p.z;
    if (uv.x < 0.0 || uv.x > 1.0 || uv.y < 0.0 || uv.y > 1.0 || z < 0.0 || z > 1.0) return 1.0;
    int size = int(oak_v.shadow.w);
    float bias = 1.5 * tw / oak_v.shadow.y;
    int ci = int(floor(uv.x * float(size))), cj = int(floor(uv.y * float(size)));
    float lit = 0.0;
    for (int dj = -1; dj <= 1; dj++)
        for (int di = -1; di <= 1; di++) {
            int i = ci + di, j = cj + dj;
            if (i < 0 || j < 0 || i >= size || j >= size) {
                lit += 1.0;
                continue;
            }
            float m = texelFetch(oak_shadow_map, ivec2(i, j), 0).r;
            lit += z + bias >= m ? 1.0 : 0.0;
        }
    return lit / 9.0;
}

vec3 oak_shade(oak_gpu_material m, vec3 P, vec3 Nv, vec4 T, vec3 Ng, vec2 uv[2], vec2 dx[2],
               vec2 dy[2], vec4 C, bool receive) {
    // One sampling site for the five slots (see oak_sample); mode.w is 0 in
    // every record, which the compiler cannot know, so the loop stays a loop.
    vec4 tv[5];
    for (int k = 0; k < 5 + m.tex[0].mode.w; k++) {
        int s = m.tex[k].mode.z;
        tv[k] = oak_sample(m.tex[k], uv[s], dx[s], dy[s]);
    }
    vec4 base = m.base_color * C * tv[0];
    if (m.mode.w != 0.0) return base.rgb;
    vec4 tmr = tv[1], tocc = tv[3], tem = tv[4];
    float metallic = m.pbr.x * tmr.b;
    float roughness = clamp(m.pbr.y * tmr.g, 0.03, 1.0);
    float a = roughness * roughness, a2 = a * a;
    float ao = 1.0 + m.pbr.w * (tocc.r - 1.0);
    vec3 emissive = m.emissive.rgb * tem.rgb;
    vec3 N = Nv;
    if (m.tex[2].img.x >= 0) {
        vec3 n = tv[2].rgb * 2.0 - 1.0;
        n.xy *= m.pbr.z;
        vec3 B = cross(Nv, T.xyz) * T.w;
        N = normalize(T.xyz * n.x + B * n.y + Nv * n.z);
    }
    vec3 V = normalize(oak_v.camera_pos.xyz - P);
    float NdotV = max(dot(N, V), 1e-4);
    vec3 F0 = mix(vec3(0.04), base.rgb, metallic);
    vec3 diffuse = base.rgb * (1.0 - metallic);
    vec3 Lo = vec3(0.0);
    for (int i = 0; i < oak_v.counts.x; i++) {
        oak_gpu_light l = oak_lights[i];
        int type = int(l.color_type.w);
        vec3 L, E;
        if (type == 1) {
            L = -l.dir_cos_outer.xyz;
            E = l.color_type.rgb;
            if (i == oak_v.counts.y && oak_v.shadow.z != 0.0 && receive)
                E *= oak_shadow_at(P, Ng);
        } else {
            vec3 d3 = l.pos_range.xyz - P;
            float d = length(d3);
            L = d3 / d;
            float W = 1.0;
            if (l.pos_range.w > 0.0) {
                float q = d / l.pos_range.w;
                float c = clamp(1.0 - q * q * q * q, 0.0, 1.0);
                W = c * c;
            }
            E = l.color_type.rgb / max(d * d, 1e-4) * W;
            if (type == 3) {
                float co = l.dir_cos_outer.w, ci = l.cos_inner.x;
                float t = clamp((dot(-L, l.dir_cos_outer.xyz) - co) / max(ci - co, 1e-4), 0.0, 1.0);
                E *= t * t;
            }
        }
        float NdotL = max(dot(N, L), 0.0);
        if (NdotL <= 0.0) continue;
        vec3 H = normalize(L + V);
        float NdotH = max(dot(N, H), 0.0), VdotH = max(dot(V, H), 0.0);
        float dd = NdotH * NdotH * (a2 - 1.0) + 1.0;
        float D = a2 / (OAK_PI * dd * dd);
        float vis = 0.5 / max(NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2) +
                                  NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2),
                              1e-7);
        float f5 = pow(1.0 - VdotH, 5.0);
        vec3 F = F0 + (1.0 - F0) * f5;
        Lo += (diffuse / OAK_PI + D * vis * F) * E * NdotL;
    }
    vec3 irr = mix(oak_v.ambient_ground.rgb, oak_v.ambient_sky.rgb, 0.5 + 0.5 * N.y);
    vec3 R = reflect(-V, N);
    vec3 spec_env = mix(oak_sky(normalize(R)), 0.5 * (oak_v.sky_zenith.rgb + oak_v.sky_horizon.rgb),
                        roughness);
    vec4 r = roughness * vec4(-1.0, -0.0275, -0.572, 0.022) + vec4(1.0, 0.0425, 1.04, -0.04);
    float a004 = min(r.x * r.x, exp2(-9.28 * NdotV)) * r.x + r.y;
    vec2 AB = vec2(-1.04, 1.04) * a004 + r.zw;
    vec3 envF = F0 * AB.x + AB.y;
    vec3 ambient = ao * (diffuse * irr + spec_env * envF);
    return Lo + ambient + emissive;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    int W = oak_v.counts.z, H = oak_v.counts.w;
    if (px.x >= W || px.y >= H) return;
    vec2 ndc = vec2((float(px.x) + 0.5) / float(W) * 2.0 - 1.0,
                    1.0 - (float(px.y) + 0.5) / float(H) * 2.0);
    uvec2 id = texelFetch(oak_vis, px, 0).xy;
    if (id.x == 0u) {
        vec3 dir = normalize(oak_unproject(ndc, 0.5) - oak_unproject(ndc, 1.0));
        imageStore(oak_hdr, px, vec4(oak_sky(dir), 1.0));
        return;
    }
    oak_draw d = oak_draws[id.x - 1u];
    oak_gpu_material m = oak_materials[d.info.z];
    oak_vertex v[3];
    vec3 wp[3];
    vec4 cp[3];
    for (int k = 0; k < 3; k++) {
        v[k] = oak_vertices[oak_indices[d.info.x + 3u * id.y + uint(k)] + d.info.y];
        wp[k] = (d.world * vec4(v[k].p0.xyz, 1.0)).xyz;
        cp[k] = oak_v.view_proj * vec4(wp[k], 1.0);
    }
    // Perspective-correct barycentrics as N_k / D with N_k and D linear in
    // NDC; their exact derivatives are interpW * (dN_k - lambda_k * dD).
    vec3 invw = vec3(1.0 / cp[0].w, 1.0 / cp[1].w, 1.0 / cp[2].w);
    vec2 n0 = cp[0].xy * invw.x, n1 = cp[1].xy * invw.y, n2 = cp[2].xy * invw.z;
    float det = 1.0 / ((n2.x - n1.x) * (n0.y - n1.y) - (n0.x - n1.x) * (n2.y - n1.y));
    vec3 ddx = vec3(n1.y - n2.y, n2.y - n0.y, n0.y - n1.y) * det * invw;
    vec3 ddy = vec3(n2.x - n1.x, n0.x - n2.x, n1.x - n0.x) * det * invw;
    float sx = ddx.x + ddx.y + ddx.z, sy = ddy.x + ddy.y + ddy.z;
    vec2 dv = ndc - n0;
    float interp_invw = invw.x + dv.x * sx + dv.y * sy;
    float iw = 1.0 / interp_invw;
    vec3 num = vec3(invw.x, 0.0, 0.0) + dv.x * ddx + dv.y * ddy;
    vec3 b = num * iw;
    // per pixel: NDC x grows 2/W a column, NDC y falls 2/H a row
    vec3 bdx = iw * (ddx - b * sx) * (2.0 / float(W));
    vec3 bdy = -iw * (ddy - b * sy) * (2.0 / float(H));

    vec3 P = b.x * wp[0] + b.y * wp[1] + b.z * wp[2];
    mat3 nm = mat3(d.normal), wm = mat3(d.world);
    vec3 Nv = normalize(nm * (b.x * v[0].p1.xyz + b.y * v[1].p1.xyz + b.z * v[2].p1.xyz));
    vec4 t = b.x * v[0].tangent + b.y * v[1].tangent + b.z * v[2].tangent;
    vec4 T = vec4(normalize(wm * t.xyz), t.w < 0.0 ? -1.0 : 1.0);
    vec3 Ng = normalize(cross(wp[1] - wp[0], wp[2] - wp[0]));
    vec2 uv[2], udx[2], udy[2];
    vec2 u0[3] = vec2[](vec2(v[0].p0.w, v[0].p1.w), vec2(v[1].p0.w, v[1].p1.w),
                        vec2(v[2].p0.w, v[2].p1.w));
    uv[0] = b.x * u0[0] + b.y * u0[1] + b.z * u0[2];
    udx[0] = bdx.x * u0[0] + bdx.y * u0[1] + bdx.z * u0[2];
    udy[0] = bdy.x * u0[0] + bdy.y * u0[1] + bdy.z * u0[2];
    uv[1] = b.x * v[0].uv1.xy + b.y * v[1].uv1.xy + b.z * v[2].uv1.xy;
    udx[1] = bdx.x * v[0].uv1.xy + bdx.y * v[1].uv1.xy + bdx.z * v[2].uv1.xy;
    udy[1] = bdy.x * v[0].uv1.xy + bdy.y * v[1].uv1.xy + bdy.z * v[2].uv1.xy;
    vec4 C = b.x * v[0].color + b.y * v[1].color + b.z * v[2].color;

    // Facing as the rasterizer saw it: the sign of the clip-space (x, y, w)
    // determinant, valid whatever the signs of w.
    float facing = determinant(mat3(cp[0].xyw, cp[1].xyw, cp[2].xyw));
    if (facing < 0.0 && m.mode.z != 0.0) {
        Nv = -Nv;
        Ng = -Ng;
    }
    bool receive = (d.info.w & 2u) == 0u;
    vec3 color = oak_shade(m, P, Nv, T, Ng, uv, udx, udy, C, receive);
    float fd = oak_v.fog.w * length(P - oak_v.camera_pos.xyz);
    color = mix(oak_v.fog.rgb, color, exp(-fd * fd));
    imageStore(oak_hdr, px, vec4(color, 1.0));
}
