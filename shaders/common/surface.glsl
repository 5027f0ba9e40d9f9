// A surface pixel shaded as the contract says, from a (draw, triangle) and
// the pixel: the triangle comes from the pools, perspective-correct
// barycentrics and their screen derivatives (for texture LOD) are rebuilt
// from its clip positions, then material, lights, shadow, ambient and fog.
// Used by the visibility resolve and by the forward pass of BLEND surfaces.
#ifndef OAK_SURFACE_GLSL
#define OAK_SURFACE_GLSL

#include "common/bindings.glsl"
#include "common/textures.glsl"
#include "common/shading.glsl"
#include "common/light_grid.glsl"

OAK_BINDING(OAK_B_SHADOW) uniform sampler2D shadow_map;

float oak_shadow(vec3 P, vec3 Ng) {
    float texel_world = view.sky_horizon.w, depth_range = view.fog_color.w;
    vec3 Pw = P + Ng * (1.5 * texel_world);
    vec4 p = view.shadow_view_proj[0] * vec4(Pw, 1.0);
    vec2 uv = p.xy * 0.5 + 0.5;
    float z = p.z;
    if (uv.x < 0.0 || uv.x > 1.0 || uv.y < 0.0 || uv.y > 1.0 || z < 0.0 || z > 1.0) return 1.0;
    int size = int(view.flags.z);
    float bias = 1.5 * texel_world / depth_range;
    ivec2 c = ivec2(floor(uv * float(size)));
    float lit = 0.0;
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++) {
            ivec2 t = c + ivec2(i, j);
            bool outside = any(lessThan(t, ivec2(0))) || any(greaterThanEqual(t, ivec2(size)));
            lit += outside || z + bias >= texelFetch(shadow_map, t, 0).r ? 1.0 : 0.0;
        }
    return lit / 9.0;
}

// Returns linear colour (fogged) and base alpha.
vec4 oak_shade_pixel(uint draw, uint tri, ivec2 px) {
    uint W = view.size.x, H = view.size.y;
    // NDC of the pixel centre; row 0 is clip y = +1.
    vec2 ndc = vec2((float(px.x) + 0.5) / float(W) * 2.0 - 1.0,
                    1.0 - (float(px.y) + 0.5) / float(H) * 2.0);
    oak_gpu_draw d = draws[draw];
    oak_gpu_material m = materials[d.info.x];
    uint base = d.info.y + tri * 3u;
    uint vi[3];
    vec3 Pw[3];
    vec3 rows[3];
    for (int k = 0; k < 3; k++) {
        vi[k] = indices[base + uint(k)] + d.info.z;
        Pw[k] = (d.world * positions[vi[k]]).xyz;
        vec4 c = view.view_proj * vec4(Pw[k], 1.0);
        rows[k] = c.xyw;
    }
    // Homogeneous barycentrics: b_i = (r_j x r_k) . p, so no clipping is needed.
    vec3 e0 = cross(rows[1], rows[2]), e1 = cross(rows[2], rows[0]), e2 = cross(rows[0], rows[1]);
    vec3 p = vec3(ndc, 1.0);
    vec3 E = vec3(dot(e0, p), dot(e1, p), dot(e2, p));
    float S = E.x + E.y + E.z;
    vec3 b = E / S;
    // d(ndc)/d(pixel): x grows right by 2/W, y falls by 2/H per row.
    vec3 dEx = vec3(e0.x, e1.x, e2.x) * (2.0 / float(W));
    vec3 dEy = -vec3(e0.y, e1.y, e2.y) * (2.0 / float(H));
    float dSx = dEx.x + dEx.y + dEx.z, dSy = dEy.x + dEy.y + dEy.z;
    vec3 dbx = (dEx * S - E * dSx) / (S * S);
    vec3 dby = (dEy * S - E * dSy) / (S * S);

    oak_gpu_vertex a0 = attributes[vi[0]], a1 = attributes[vi[1]], a2 = attributes[vi[2]];
    vec3 P = b.x * Pw[0] + b.y * Pw[1] + b.z * Pw[2];
    mat3 nm = mat3(d.normal);
    vec3 Nv = normalize(nm * (b.x * a0.normal.xyz + b.y * a1.normal.xyz + b.z * a2.normal.xyz));
    vec4 Tv = b.x * a0.tangent + b.y * a1.tangent + b.z * a2.tangent;
    vec3 T = mat3(d.world) * Tv.xyz;
    vec4 uvs = b.x * a0.uv + b.y * a1.uv + b.z * a2.uv;
    vec4 duvx = dbx.x * a0.uv + dbx.y * a1.uv + dbx.z * a2.uv;
    vec4 duvy = dby.x * a0.uv + dby.y * a1.uv + dby.z * a2.uv;
    vec4 C = b.x * a0.color + b.y * a1.color + b.z * a2.color;
    vec3 Ng = normalize(cross(Pw[1] - Pw[0], Pw[2] - Pw[0]));
    vec3 cam = view.camera_pos.xyz;
    vec3 V = normalize(cam - P);
    uint mflags = uint(m.mode.y);
    // Winding in clip space: det(r0, r1, r2) > 0 for a counter-clockwise
    // (front) triangle on screen, perspective or orthographic alike.
    bool back = dot(rows[0], e0) < 0.0;
    if ((mflags & OAK_GPU_MAT_DOUBLE_SIDED) != 0u && back) {
        Ng = -Ng;
        Nv = -Nv;
    }

    vec4 tex[5];
    OAK_DONT_UNROLL for (int t = 0; t < 5; t++) {
        oak_gpu_texref r = m.tex[t];
        if (r.a.x == 0u) {
            tex[t] = vec4(1.0);
            continue;
        }
        bool set1 = ((r.a.w >> 18) & 1u) != 0u;
        vec2 uv = set1 ? uvs.zw : uvs.xy;
        vec2 dx = set1 ? duvx.zw : duvx.xy, dy = set1 ? duvy.zw : duvy.xy;
        tex[t] = oak_sample(r, oak_tex_uv(r, uv), oak_tex_duv(r, dx), oak_tex_duv(r, dy));
    }
    vec4 basec = m.base_color * C * tex[OAK_GPU_TEX_BASE];
    vec3 colour;
    if ((mflags & OAK_GPU_MAT_UNLIT) != 0u) {
        colour = basec.rgb;
    } else {
        float metallic = m.params.x * tex[OAK_GPU_TEX_MR].b;
        float roughness = clamp(m.params.y * tex[OAK_GPU_TEX_MR].g, 0.03, 1.0);
        float alpha = roughness * roughness;
        float ao = 1.0 + m.params.w * (tex[OAK_GPU_TEX_OCCLUSION].r - 1.0);
        vec3 emissive = m.emissive.rgb * tex[OAK_GPU_TEX_EMISSIVE].rgb;
        vec3 N = Nv;
        if (m.tex[OAK_GPU_TEX_NORMAL].a.x != 0u) {
            vec3 n = tex[OAK_GPU_TEX_NORMAL].rgb * 2.0 - 1.0;
            n.xy *= m.params.z;
            vec3 B = cross(Nv, T) * Tv.w;
            N = normalize(T * n.x + B * n.y + Nv * n.z);
        }
        vec3 F0 = mix(vec3(0.04), basec.rgb, metallic);
        vec3 diffuse = basec.rgb * (1.0 - metallic);
        vec3 Lo = vec3(0.0);
        uint key = view.size.w;
        // the directional lights, then only the lamps listed in this pixel's cell
        uint cell = oak_grid_cell(px, P);
        uint first = grid_first, n = first + grid_words[cell];
        uint list = uint(OAK_LIGHT_GRID_CELLS) + cell * uint(OAK_LIGHT_CELL_MAX) - first;
        for (uint li = 0u; li < n; li++) {
            uint i = li < first ? li : grid_words[list + li];
            vec3 Ei, L;
            oak_light_at(i, P, Ei, L);
            if (i + 1u == key && view.flags.x != 0u && (d.info.w & 2u) == 0u)
                Ei *= oak_shadow(P, Ng);
            Lo += oak_brdf(N, V, L, diffuse, F0, alpha) * Ei;
        }
        colour = Lo + oak_ambient(N, V, diffuse, F0, roughness, ao) + emissive;
        if ((view.flags.y & OAK_GPU_DEBUG_CLUSTERS) != 0u) {
            // the clusters view: a jet ramp of the lamps read, as _oak_cpu_heat
            float t = min(float(n - first) / float(OAK_DEBUG_HEAT_MAX), 1.0);
            return vec4(clamp(1.5 - abs(4.0 * t - vec3(3.0, 2.0, 1.0)), 0.0, 1.0), basec.a);
        }
    }
    float fog = view.camera_pos.w;
    if (fog > 0.0) {
        float dist = length(P - cam);
        float fd = fog * dist;
        colour = mix(view.fog_color.rgb, colour, exp(-fd * fd));
    }
    return vec4(colour, basec.a);
}

#endif
