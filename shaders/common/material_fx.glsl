// Material tricks (docs/SHADING.md "Material tricks"): triplanar mapping with
// whiteout-blended normals, hex-tile breakup (Mikkelsen 2022), the detail
// layer and albedo variation. backend/cpu/cpu_fx.h is the same arithmetic in
// the same order. Every texture read goes through the one oak_sample call in
// oak_fx_sample's loop, so llvmpipe compiles one more fetch site, not dozens.
#ifndef OAK_MATERIAL_FX_GLSL
#define OAK_MATERIAL_FX_GLSL

#include "common/hash.glsl"
#include "common/textures.glsl"

// Lattice points hash modulo OAK_FX_PERIOD on each axis, so the patterns
// repeat every OAK_FX_PERIOD cells: a terrain rebase by whole periods leaves
// them where they were (docs/SHADING.md "Material tricks").
uint oak_fx_hash(ivec3 p, uint seed) {
    uvec3 q = uvec3(p) & uint(OAK_FX_PERIOD - 1);
    uint h = q.x * 0x8da6b343u ^ q.y * 0xd8163841u ^ q.z * 0xcb1ab31fu ^ seed * 0x9e3779b9u;
    return oak_lowbias32(h);
}

float oak_fx_unit(uint h) { return float(h >> 8) * (1.0 / 16777216.0); }

// Value noise from 0 up to 1 on the integer lattice, smoothstep between corners.
float oak_fx_noise(vec3 p) {
    p = clamp(p, vec3(-1048576.0), vec3(1048576.0));
    vec3 fl = floor(p), f = p - fl;
    ivec3 i = ivec3(fl);
    f = f * f * (3.0 - 2.0 * f);
    float c[8];
    for (int n = 0; n < 8; n++)
        c[n] = oak_fx_unit(oak_fx_hash(i + ivec3(n & 1, (n >> 1) & 1, n >> 2), 5u));
    float a0 = c[0] + (c[1] - c[0]) * f.x, a1 = c[2] + (c[3] - c[2]) * f.x;
    float a2 = c[4] + (c[5] - c[4]) * f.x, a3 = c[6] + (c[7] - c[6]) * f.x;
    float b0 = a0 + (a1 - a0) * f.y, b1 = a2 + (a3 - a2) * f.y;
    return b0 + (b1 - b0) * f.z;
}

// Albedo variation: the factor on the base colour at world P.
float oak_fx_vary(uint mi, vec3 P) {
    return 1.0 + materials[mi].fx1.x * (2.0 * oak_fx_noise(P * materials[mi].fx1.y) - 1.0);
}

// Whether the mapping tricks run: one of them on and a texture to read.
bool oak_fx_maps(uint mi) {
    bool any = false;
    for (int t = 0; t < 5; t++) any = any || materials[mi].tex[t].a.x != 0u;
    return any && (materials[mi].fx0.x > 0.0 || materials[mi].fx0.z > 0.0 || materials[mi].fx1.z > 0.0);
}

// The material's slots read through the tricks at a surface point: P and its
// screen derivatives, the interpolated normal Nv (facing the eye when double
// sided), the tangent T with its sign Tw, uv set 0 and its derivatives, the
// distance to the eye. tex[] gets each slot's value ((1, 1, 1, 1) when empty);
// N the shading normal when there is a normal map.
void oak_fx_sample(uint mi, vec3 P, vec3 dPdx, vec3 dPdy, vec3 Nv, vec3 T, float Tw,
                   vec2 uv0, vec2 duv0x, vec2 duv0y, float dist, out vec4 tex[5], out vec3 N) {
    for (int t = 0; t < 5; t++) {
        OAK_PUT5(tex, t, materials[mi].tex[t].a.x == 0u ? vec4(1.0) : vec4(0.0));
    }
    N = vec3(0.0);
    // the planes: x, y, z by |Nv|^sharpness (the faint ones dropped), or the uv
    vec3 pw = vec3(1.0, 0.0, 0.0);
    bool tri = materials[mi].fx0.x > 0.0;
    if (tri) {
        vec3 a = abs(Nv);
        pw = vec3(pow(a.x, materials[mi].fx0.y), pow(a.y, materials[mi].fx0.y), pow(a.z, materials[mi].fx0.y));
        pw /= pw.x + pw.y + pw.z;
        pw = mix(pw, vec3(0.0), lessThan(pw, vec3(OAK_FX_PLANE_MIN)));
        pw /= pw.x + pw.y + pw.z;
    }
    float fade = materials[mi].fx1.z > 0.0 ? clamp(1.0 - dist * materials[mi].fx1.w, 0.0, 1.0) : 0.0;
    float k = materials[mi].fx0.x, cells = materials[mi].fx0.z, ns = materials[mi].params.z;
    OAK_DONT_UNROLL for (int p = 0; p < 3; p++) {
        if (pw[p] == 0.0) continue;
        // the plane's frame (T x B = its normal, facing Nv) and its uv
        vec2 uv = uv0, dx = duv0x, dy = duv0y;
        vec3 Tp = T, Bp = cross(Nv, T) * Tw, Np = Nv;
        if (tri) {
            float s = Nv[p] < 0.0 ? -1.0 : 1.0;
            if (p == 0) Tp = vec3(0.0, 0.0, -s), Bp = vec3(0.0, 1.0, 0.0), Np = vec3(s, 0.0, 0.0);
            if (p == 1) Tp = vec3(1.0, 0.0, 0.0), Bp = vec3(0.0, 0.0, -s), Np = vec3(0.0, s, 0.0);
            if (p == 2) Tp = vec3(s, 0.0, 0.0), Bp = vec3(0.0, 1.0, 0.0), Np = vec3(0.0, 0.0, s);
            uv = vec2(dot(P, Tp), dot(P, Bp)) * k;
            dx = vec2(dot(dPdx, Tp), dot(dPdx, Bp)) * k;
            dy = vec2(dot(dPdy, Tp), dot(dPdy, Bp)) * k;
        }
        // the hex copies: the triangle grid's 3 corners around uv, each a
        // copy of the texture turned and shifted by its corner's hash
        vec3 g = vec3(1.0, 0.0, 0.0);
        vec2 cen[3], off[3], rot[3];
        for (int j = 0; j < 3; j++) {
            OAK_PUT3(cen, j, vec2(0.0));
            OAK_PUT3(off, j, vec2(0.0));
            OAK_PUT3(rot, j, vec2(1.0, 0.0));
        }
        if (cells > 0.0) {
            vec2 st = clamp(uv * cells, vec2(-1048576.0), vec2(1048576.0));
            vec2 sk = vec2(st.x - 0.5 * st.y, st.y); // sheared: whole cells repeat
            vec2 b = floor(sk), f = sk - b;
            float fz = 1.0 - f.x - f.y;
            ivec2 ib = ivec2(b), v[3];
            if (fz > 0.0) {
                g = vec3(fz, f.y, f.x);
                v[0] = ib, v[1] = ib + ivec2(0, 1), v[2] = ib + ivec2(1, 0);
            } else {
                g = vec3(-fz, 1.0 - f.y, 1.0 - f.x);
                v[0] = ib + ivec2(1, 1), v[1] = ib + ivec2(1, 0), v[2] = ib + ivec2(0, 1);
            }
            vec3 g2 = g * g;
            g = g2 * g2 * g2 * g; // OAK_FX_HEX_EXP
            g /= g.x + g.y + g.z;
            g = mix(g, vec3(0.0), lessThan(g, vec3(OAK_FX_HEX_MIN)));
            for (int j = 0; j < 3; j++) {
                if (g[j] == 0.0) continue;
                ivec2 vj = OAK_GET3(v, j);
                ivec3 q = ivec3(vj, 0);
                uint ho = oak_fx_hash(q, 11u);
                OAK_PUT3(off, j, vec2(float(ho & 0xffffu), float(ho >> 16)) * (1.0 / 65536.0));
                float ang = materials[mi].fx0.w * (2.0 * oak_fx_unit(oak_fx_hash(q, 13u)) - 1.0);
                OAK_PUT3(rot, j, vec2(cos(ang), sin(ang)));
                OAK_PUT3(cen, j, vec2(float(vj.x) + 0.5 * float(vj.y), float(vj.y)) / cells);
            }
        }
        vec3 W = g / (g.x + g.y + g.z);
        vec4 cb[3];
        OAK_DONT_UNROLL for (int t = 0; t < 5; t++) {
            oak_gpu_texref r = materials[mi].tex[t];
            if (r.a.x == 0u) continue;
            bool base = t == OAK_GPU_TEX_BASE, nrm = t == OAK_GPU_TEX_NORMAL;
            vec4 acc = vec4(0.0), mean = vec4(1.0), det = vec4(1.0);
            // items 0-2: the copies; 3: the detail layer; 4: the texture's mean (its last level)
            OAK_DONT_UNROLL for (int j = 0; j < 5; j++) {
                vec2 u, ddx, ddy;
                if (j < 3) {
                    if (g[j] == 0.0) continue;
                    vec2 c = OAK_GET3(rot, j), cj = OAK_GET3(cen, j), du = uv - cj;
                    u = vec2(c.x * du.x - c.y * du.y, c.y * du.x + c.x * du.y) + cj + OAK_GET3(off, j);
                    ddx = vec2(c.x * dx.x - c.y * dx.y, c.y * dx.x + c.x * dx.y);
                    ddy = vec2(c.x * dy.x - c.y * dy.y, c.y * dy.x + c.x * dy.y);
                } else if (fade > 0.0 && (base || nrm) && (j == 3 || base)) {
                    float d = j == 3 ? materials[mi].fx1.z : 0.0;
                    u = uv * d, ddx = j == 3 ? dx * d : vec2(1e4, 0.0), ddy = dy * d;
                } else {
                    continue;
                }
                vec4 c = oak_sample(r, oak_tex_uv(r, u), oak_tex_duv(r, ddx), oak_tex_duv(r, ddy));
                if (j == 3) {
                    det = c;
                } else if (j == 4) {
                    mean = c;
                } else if (base) {
                    OAK_PUT3(cb, j, c);
                } else if (nrm) {
                    vec3 n = c.rgb * 2.0 - 1.0;
                    n.xy *= ns;
                    vec2 c2 = OAK_GET3(rot, j); // back from the copy's turn: R^T n.xy
                    acc += W[j] * vec4(c2.x * n.x + c2.y * n.y, -c2.y * n.x + c2.x * n.y, n.z, 0.0);
                } else {
                    acc += W[j] * c;
                }
            }
            if (base) {
                // Mikkelsen's weights: bright copies win where they meet,
                // keeping the contrast of the texture in the blend
                if (cells > 0.0) {
                    vec3 Dw = vec3(1.0);
                    for (int j = 0; j < 3; j++)
                        if (g[j] > 0.0)
                            Dw[j] = 1.0 + float(OAK_FX_HEX_CONTRAST) *
                                              (dot(OAK_GET3(cb, j).rgb, vec3(0.2126, 0.7152, 0.0722)) -
                                               1.0);
                    W = g * Dw;
                    W /= W.x + W.y + W.z;
                }
                for (int j = 0; j < 3; j++)
                    if (g[j] > 0.0) acc += W[j] * OAK_GET3(cb, j);
                if (fade > 0.0)
                    acc.rgb *= 1.0 + (det.rgb / max(mean.rgb, vec3(1e-4)) - 1.0) * fade;
            }
            if (nrm) {
                if (fade > 0.0) {
                    vec3 nd = det.rgb * 2.0 - 1.0;
                    nd.xy *= ns;
                    acc.xyz = vec3(acc.x + fade * nd.x, acc.y + fade * nd.y,
                                   acc.z * (1.0 + (nd.z - 1.0) * fade));
                }
                vec3 b = acc.xyz;
                if (tri) { // whiteout: the surface's own normal seen in the plane's frame
                    b = vec3(b.x + dot(Nv, Tp), b.y + dot(Nv, Bp), b.z * abs(dot(Nv, Np)));
                }
                N += pw[p] * (Tp * b.x + Bp * b.y + Np * b.z);
            } else {
                vec4 sum = OAK_GET5(tex, t) + pw[p] * acc;
                OAK_PUT5(tex, t, sum);
            }
        }
    }
    N = normalize(N);
}

#endif
