// The compute raster's shared pieces (craster.comp, craster_shadow.comp;
// docs/ARCHITECTURE.md "Compute rasterization"), for 64-bit integers.
#ifndef OAK_CRASTER_GLSL
#define OAK_CRASTER_GLSL
#define OAK_MASK_COMPUTE
#include "common/mask.glsl"

// A top-left edge (after the winding is made positive, y down) takes the
// samples on it; any other needs them strictly inside.
int64_t oak_edge_bias(ivec2 a, ivec2 b) {
    ivec2 d = b - a;
    return (d.y < 0 || (d.y == 0 && d.x > 0)) ? int64_t(0) : int64_t(-1);
}

int64_t oak_edge(ivec2 a, ivec2 b, ivec2 p) {
    return int64_t(b.x - a.x) * int64_t(p.y - a.y) - int64_t(b.y - a.y) * int64_t(p.x - a.x);
}

// The instance's world matrix, once per work group for the first and last
// instance of its 64 items (with 64 triangles a mesh or more, every item
// but those of a third instance between): the bend is the costly part.
shared mat4 oak_craster_world[2];

mat4 oak_craster_instance(uint s, uint list, uint p) {
    uint rec = stream_heads[s].info.z + (stream_words[list + p] & OAK_GPU_ID_TRIANGLE_MASK);
    return oak_instance_world(stream_records[rec], s);
}

// Item i's instance's world matrix in the work group's round from item g0
// (of n, tris a instance, from stream s's list): every invocation of the
// group calls it (its barriers), i past n gets the identity.
mat4 oak_craster_round_world(uint s, uint list, uint g0, uint n, uint tris, uint i) {
    uint lid = i - g0, pa = g0 / tris, pb = min(g0 + 63u, n - 1u) / tris;
    barrier(); // the last round's readers are done
    if (lid < 2u) oak_craster_world[lid] = oak_craster_instance(s, list, lid == 0u ? pa : pb);
    barrier();
    if (i >= n) return mat4(1.0);
    uint p = i / tris;
    return p == pa ? oak_craster_world[0] : p == pb ? oak_craster_world[1] : oak_craster_instance(s, list, p);
}

// A triangle's set-up from its corners v in 1/16 pixels of a size grid
// (y as the caller's rows) and their depths z: false when nothing is
// filled (no area, or with cull a positive winding, a back face), else the
// winding made positive (v and z swapped alike), the pixels lo .. hi of its
// box inside the grid, the edges' top-left biases and 1 / area.
bool oak_craster_setup(inout ivec2 v[3], inout float z[3], bool cull, ivec2 size, out ivec2 lo, out ivec2 hi, out int64_t b[3], out float inv) {
    int64_t area = oak_edge(v[0], v[1], v[2]);
    if (area == int64_t(0) || (cull && area > int64_t(0))) return false;
    if (area < int64_t(0)) {
        ivec2 tv = v[1];
        v[1] = v[2];
        v[2] = tv;
        float tz = z[1];
        z[1] = z[2];
        z[2] = tz;
        area = -area;
    }
    lo = max((min(min(v[0], v[1]), v[2]) + 7) >> 4, ivec2(0));
    hi = min((max(max(v[0], v[1]), v[2]) - 8) >> 4, size - 1);
    b[0] = oak_edge_bias(v[1], v[2]);
    b[1] = oak_edge_bias(v[2], v[0]);
    b[2] = oak_edge_bias(v[0], v[1]);
    inv = 1.0 / float(area);
    return true;
}

// The set-up triangle's depth at pixel (x, y)'s centre, -1 where it does
// not cover it (the top-left rule); e: its edge functions there (e[k]
// weighs corner k, in 1/256 pixel^2), for the cutout's uv.
float oak_craster_depth(ivec2 v[3], float z[3], int64_t b[3], float inv, int x, int y, out vec3 e) {
    ivec2 c = ivec2(x * 16 + 8, y * 16 + 8);
    int64_t w0 = oak_edge(v[1], v[2], c), w1 = oak_edge(v[2], v[0], c), w2 = oak_edge(v[0], v[1], c);
    e = vec3(float(w0), float(w1), float(w2));
    if (w0 + b[0] < int64_t(0) || w1 + b[1] < int64_t(0) || w2 + b[2] < int64_t(0)) return -1.0;
    return (e.x * z[0] + e.y * z[1] + e.z * z[2]) * inv;
}

// A MASK band's triangle for its cutout (common/mask.glsl): the corners'
// uv sets u, vertex alphas a and 1 / clip w iw, in the set-up's order, and
// the edge functions' steps per pixel ex (x + 1) and ey (the next row).
struct oak_craster_cut {
    vec4 u[3];
    vec3 a, iw, ex, ey;
    uint material;
};

// The cut's set-up from the corners v after oak_craster_setup (so in its
// order: `flip` when it swapped corners 1 and 2), their pool vertices vi
// and clip w; all zero (and no load) when the band is not `masked`.
oak_craster_cut oak_craster_cut_setup(bool masked, uint material, ivec2 v[3], bool flip, uint vi[3], float w[3]) {
    oak_craster_cut k;
    k.material = material;
    if (!masked) {
        k.u[0] = k.u[1] = k.u[2] = vec4(0.0);
        k.a = k.iw = k.ex = k.ey = vec3(0.0);
        return k;
    }
    // constant indices (oak_gpu.h OAK_PUT3's reason)
    oak_gpu_vertex a0 = attributes[vi[0]], a1 = attributes[flip ? vi[2] : vi[1]],
                   a2 = attributes[flip ? vi[1] : vi[2]];
    k.u[0] = a0.uv;
    k.u[1] = a1.uv;
    k.u[2] = a2.uv;
    k.a = vec3(a0.color.a, a1.color.a, a2.color.a);
    k.iw = vec3(1.0) / vec3(w[0], flip ? w[2] : w[1], flip ? w[1] : w[2]);
    // e0 = edge(v1, v2, p): d/dp.x = -(v2.y - v1.y), d/dp.y = v2.x - v1.x, x 16 a pixel
    k.ex = -16.0 * vec3(float(v[2].y - v[1].y), float(v[0].y - v[2].y), float(v[1].y - v[0].y));
    k.ey = 16.0 * vec3(float(v[2].x - v[1].x), float(v[0].x - v[2].x), float(v[1].x - v[0].x));
    return k;
}

// Whether the cutout takes the sample with edge functions e away: the uv
// sets and vertex alpha interpolated perspective-correctly (the weights
// e / w over their sum) and the uv's analytic derivatives per pixel at the
// pixel's centre, d(P / Q) = (dP - uv dQ) / Q (the CPU's, where the
// hardware differences its 2 x 2 quad).
bool oak_craster_cut_out(oak_craster_cut k, vec3 e) {
    vec3 p = e * k.iw, px = k.ex * k.iw, py = k.ey * k.iw;
    float q = p.x + p.y + p.z, iq = 1.0 / q;
    vec4 uv = (p.x * k.u[0] + p.y * k.u[1] + p.z * k.u[2]) * iq;
    vec4 dx = (px.x * k.u[0] + px.y * k.u[1] + px.z * k.u[2] - uv * (px.x + px.y + px.z)) * iq;
    vec4 dy = (py.x * k.u[0] + py.y * k.u[1] + py.z * k.u[2] - uv * (py.x + py.y + py.z)) * iq;
    return oak_cutout(k.material, uv, dx, dy, dot(p, k.a) * iq);
}
#endif
