#version 450
// The grass kernel: world/grass.c's grow_tiles in compute, step for step
// (the patch hash, the plants share, the placement, the rocks' footprints,
// the ground from the square's grid of finest heights, the variation's two
// octaves of gradient noise, the material rule, the tilt, the colours, the flowers), one work
// group per tile square (oak_gpu_grass_square), one invocation per patch.
// The hashes are integer (the 64-bit lattice hash in pairs of 32-bit
// words), so the plants share and the placement are the C's bits; the
// ground, the variation and the rule are float here where C forms doubles,
// and sin, cos and division are the device's (docs/WORLD.md "Grass" says
// how far they may differ). A scan over the grown flags puts the records
// in patch order, as the C's loop does, and the rest of each slot is zero.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"
#include "common/hash.glsl"

layout(local_size_x = OAK_GPU_GRASS_GROUP) in;

OAK_SSBO(OAK_B_GRASS_IN) readonly buffer GrassIn { oak_gpu_grass_square squares[]; };
OAK_SSBO(OAK_B_GRASS_OUT) writeonly buffer RecordBlock { oak_gpu_instance records[]; };

shared uint s_scan[OAK_GPU_GRASS_GROUP];

// this work group's square, read in place (not copied: its heights are 1.2 KB);
// past 65,535 squares the groups run in rows (the host pads the last with
// empty squares, which write nothing)
#define sq squares[gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x]

// world/internal.h _oak_world_hash01 (its _oak_world_hash_u32 is lowbias32)

float rnd(uint key, uint k) {
    return float(oak_lowbias32(key * 0x9E3779B9u + (0x51ED270Bu + k * 0x2545F491u)) >> 8) *
           (1.0 / 16777216.0);
}

uint patch_key(uvec2 px, uvec2 pz, uint seed) {
    uint h = oak_lowbias32(px.x ^ seed * 0x27D4EB2Fu);
    h = oak_lowbias32(h ^ px.y * 0x165667B1u);
    h = oak_lowbias32(h ^ pz.x * 0x9E3779B1u);
    return oak_lowbias32(h ^ pz.y * 0x85EBCA77u);
}

// 64-bit words as (low, high)
uvec2 mul64(uvec2 a, uvec2 b) {
    uint hi, lo;
    umulExtended(a.x, b.x, hi, lo);
    return uvec2(lo, hi + a.x * b.y + a.y * b.x);
}

uvec2 wide(int x) { return uvec2(uint(x), x < 0 ? 0xFFFFFFFFu : 0u); }

// world/terrain_noise.c lattice_hash
uint lattice_hash(int x, int y, uint seed) {
    uvec2 h = mul64(wide(x), uvec2(0x7F4A7C15u, 0x9E3779B9u)) ^
              mul64(wide(y), uvec2(0x27D4EB4Fu, 0xC2B2AE3Du));
    h ^= mul64(uvec2(seed, 0u), uvec2(0x9E3779F9u, 0x165667B1u));
    h ^= uvec2((h.x >> 29) | (h.y << 3), h.y >> 29);
    h = mul64(h, uvec2(0x1CE4E5B9u, 0xBF58476Du));
    return h.x ^ h.y;
}

float grad_dot(uint h, float x, float y) {
    const float r = 0.70710678;
    uint k = (h >> 5) & 7u;
    vec2 g = k == 0u   ? vec2(1, 0)
             : k == 1u ? vec2(r, r)
             : k == 2u ? vec2(0, 1)
             : k == 3u ? vec2(-r, r)
             : k == 4u ? vec2(-1, 0)
             : k == 5u ? vec2(-r, -r)
             : k == 6u ? vec2(0, -1)
                       : vec2(r, -r);
    return g.x * x + g.y * y;
}

float fade(float t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

// the noise at lattice cell c plus fraction f (terrain_noise.c noise_cell, period 0)
float noise_cell(ivec2 c, vec2 f, uint seed) {
    float n00 = grad_dot(lattice_hash(c.x, c.y, seed), f.x, f.y);
    float n10 = grad_dot(lattice_hash(c.x + 1, c.y, seed), f.x - 1.0, f.y);
    float n01 = grad_dot(lattice_hash(c.x, c.y + 1, seed), f.x, f.y - 1.0);
    float n11 = grad_dot(lattice_hash(c.x + 1, c.y + 1, seed), f.x - 1.0, f.y - 1.0);
    float u = fade(f.x), v = fade(f.y);
    float a = n00 + (n10 - n00) * u, b = n01 + (n11 - n01) * u;
    return 1.41421356 * (a + (b - a) * v);
}

// the variation at local (lx, lz) from the square's corner (terrain_tile.c)
float variation(float lx, float lz) {
    float n[2];
    for (int o = 0; o < 2; o++) {
        float s = o == 0 ? 97.0 : 23.0;
        vec2 t = vec2(sq.var_frac[2 * o], sq.var_frac[2 * o + 1]) + vec2(lx, lz) / s;
        vec2 fl = floor(t);
        ivec2 c = ivec2(int(sq.var_cell[2 * o]), int(sq.var_cell[2 * o + 1])) + ivec2(fl);
        n[o] = noise_cell(c, t - fl, o == 0 ? 911u : 913u);
    }
    return 0.7 * n[0] + 0.3 * n[1];
}

float smoothf(float a, float b, float x) {
    float t = clamp((x - a) / (b - a), 0.0, 1.0);
    return t * t * (3.0 - 2.0 * t);
}

float height_at(uint i) { return sq.heights[i >> 2][i & 3u]; }

// whether the patch centre (lx, lz) lies inside a rock's footprint (grass.c
// in_rock: the same float steps, none fused)
bool in_rock(float lx, float lz) {
    bool inside = false;
    for (uint q = 0u; q < min(sq.rock.x, uint(OAK_GPU_GRASS_ROCKS)); q++) {
        precise float dx = lx - sq.rocks[q].x, dz = lz - sq.rocks[q].y;
        precise float d2 = dx * dx + dz * dz;
        inside = inside || d2 < sq.rocks[q].z;
    }
    return inside;
}

// quaternion (x, y, z, w) turning +y onto n after a turn of yaw about y (grass.c tilt_yaw)
vec4 tilt_yaw(vec3 n, float yaw) {
    vec3 t = vec3(n.z, 1.0 + n.y, -n.x); // (tx, tw, tz)
    float l = sqrt(t.x * t.x + t.z * t.z + t.y * t.y);
    float tx = t.x / l, tz = t.z / l, tw = t.y / l;
    float ys = sin(0.5 * yaw), yw = cos(0.5 * yaw);
    return vec4(tx * yw - tz * ys, tw * ys, tx * ys + tz * yw, tw * yw);
}

// an exclusive scan of v over the work group (uniform control flow), and the total
uint scan(uint v, out uint total) {
    uint lid = gl_LocalInvocationID.x;
    s_scan[lid] = v;
    barrier();
    for (uint o = 1u; o < OAK_GPU_GRASS_GROUP; o <<= 1) {
        uint add = lid >= o ? s_scan[lid - o] : 0u;
        barrier();
        s_scan[lid] += add;
        barrier();
    }
    total = s_scan[OAK_GPU_GRASS_GROUP - 1];
    uint incl = s_scan[lid];
    barrier();
    return incl - v;
}

void main() {
    uint lid = gl_LocalInvocationID.x;
    uint per = sq.info.y, cells = sq.info.z, seed = sq.info.x;
    uint gs = sq.slot.z, fs = sq.slot.w;
    const float p = float(OAK_GRASS_PATCH);
    const vec3 lushc = vec3(0.090, 0.180, 0.035), dryc = vec3(0.170, 0.200, 0.060);
    const vec3 petals[4] = vec3[4](vec3(0.85, 0.85, 0.80), vec3(0.90, 0.70, 0.08),
                                   vec3(0.55, 0.20, 0.65), vec3(0.30, 0.35, 0.85));
    bool wg = (sq.info.w & OAK_GPU_GRASS_SKIP_GRASS) == 0u;
    bool wf = (sq.info.w & OAK_GPU_GRASS_SKIP_FLOWERS) == 0u;
    uint grown = 0u, flowers = 0u; // records written so far (every invocation alike)
    for (uint base = 0u; base < per * per; base += OAK_GPU_GRASS_GROUP) {
        uint k = base + lid;
        bool grow = false, flower = false;
        uint key = 0u;
        float lx = 0.0, lz = 0.0, h = 0.0, dry = 0.0;
        vec3 n = vec3(0, 1, 0);
        if (k < per * per) {
            uint a = k % per, b = k / per;
            uint ax = sq.patches.x + a, bz = sq.patches.z + b;
            uvec2 px = uvec2(ax, sq.patches.y + (ax < a ? 1u : 0u));
            uvec2 pz = uvec2(bz, sq.patches.w + (bz < b ? 1u : 0u));
            key = patch_key(px, pz, seed);
            if (rnd(key, 0u) < sq.corner.y) { // the plants share, before the ground
                precise float fx0 = float(a) + 0.3 + 0.4 * rnd(key, 1u);
                precise float fz0 = float(b) + 0.3 + 0.4 * rnd(key, 2u);
                lx = fx0 * p;
                lz = fz0 * p;
            }
            // off the rocks, before the ground
            if (rnd(key, 0u) < sq.corner.y && !in_rock(lx, lz)) {
                // the ground from the grid by oak_terrain_height's triangles
                float ds = sq.corner.w;
                vec2 u = vec2(lx, lz) / ds, c = floor(u), f = u - c;
                uint i = uint(c.x), j = uint(c.y), row = cells + 1u;
                float h00 = height_at(j * row + i), h11 = height_at((j + 1u) * row + i + 1u);
                float dx, dz;
                if (f.y >= f.x) {
                    float h01 = height_at((j + 1u) * row + i);
                    dx = h11 - h01;
                    dz = h01 - h00;
                } else {
                    float h10 = height_at(j * row + i + 1u);
                    dx = h10 - h00;
                    dz = h11 - h10;
                }
                h = h00 + dx * f.x + dz * f.y;
                float nx = -dx / ds, nz = -dz / ds, inv = 1.0 / sqrt(nx * nx + 1.0 + nz * nz);
                n = vec3(nx * inv, inv, nz * inv);
                // the material rule (grass.c density_rule, terrain_tile.c shares)
                float d = 0.0, lush = 0.0;
                bool wet = false;
                if ((sq.info.w & OAK_GPU_GRASS_WATER) != 0u) {
                    bool inside = sq.water.y == 0.0 || (lx >= sq.box.x && lx <= sq.box.z &&
                                                        lz >= sq.box.y && lz <= sq.box.w);
                    wet = inside && h < sq.water.x;
                }
                if (!wet) {
                    float var = variation(lx, lz), slope = 1.0 - n.y;
                    float sh0 = smoothf(-0.3, 0.6, var);
                    float sh1 = smoothf(0.05, 0.11, slope + 0.03 * var);
                    float sh2 = smoothf(0.17, 0.26, slope + 0.04 * var);
                    float sh3 = smoothf(150.0, 190.0, h + 25.0 * var) *
                                (1.0 - smoothf(0.2, 0.35, slope));
                    float gr = (1.0 - sh1) * (1.0 - sh2) * (1.0 - sh3);
                    dry = sh0;
                    lush = gr * (1.0 - sh0);
                    d = gr * (1.0 - 0.5 * sh0);
                }
                grow = rnd(key, 3u) < d;
                flower = grow && (sq.info.w & OAK_GPU_GRASS_NO_FLOWERS) == 0u &&
                         rnd(key, 8u) < 0.12 * lush;
            }
        }
        uint total;
        uint gi = grown + scan(grow ? 1u : 0u, total);
        grown += total;
        bool kept = grow && gi < gs;
        uint fi = flowers + scan(kept && flower ? 1u : 0u, total);
        flowers += total;
        if (kept) {
            vec4 pos = vec4(sq.corner.x + lx, h - 0.03, sq.corner.z + lz, 0.9 + 0.2 * rnd(key, 4u));
            float v = 1.05 + 0.2 * rnd(key, 6u);
            vec3 col = v * (lushc + (dryc - lushc) * dry);
            float phase = rnd(key, 7u);
            if (wg)
                records[sq.slot.x + gi] = oak_gpu_instance(
                    pos, tilt_yaw(n, 6.2831853 * rnd(key, 5u)), vec4(col, phase));
            if (wf && flower && fi < fs) {
                pos.w = 0.8 + 0.4 * rnd(key, 9u);
                vec3 pc = petals[uint(4.0 * rnd(key, 11u)) & 3u];
                records[sq.slot.y + fi] = oak_gpu_instance(
                    pos, tilt_yaw(n, 6.2831853 * rnd(key, 10u)), vec4(pc, phase));
            }
        }
    }
    // the slots' rest: zero records (scale 0), which no cull draws
    for (uint r = min(grown, gs) + lid; wg && r < gs; r += OAK_GPU_GRASS_GROUP)
        records[sq.slot.x + r] = oak_gpu_instance(vec4(0), vec4(0), vec4(0));
    for (uint r = min(flowers, fs) + lid; wf && r < fs; r += OAK_GPU_GRASS_GROUP)
        records[sq.slot.y + r] = oak_gpu_instance(vec4(0), vec4(0), vec4(0));
}
