/* One terrain tile's mesh: a (cells + 1)^2 grid of heights relative to the
 * tile's corner, split on the same diagonal at every level (so a tile's
 * surface can blend exactly into its parent's), four outward skirts, and
 * material colours by slope and height over the detail texture's UVs. */
#include <math.h>
#include <string.h>

#include "world/terrain_internal.h"

uint32_t _oak_tile_vertex_count(uint32_t cells) {
    return (cells + 1) * (cells + 1) + 4 * (cells + 1);
}

static float smoothf(float a, float b, float x) {
    float t = (x - a) / (b - a);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return t * t * (3 - 2 * t);
}

void _oak_terrain_material_shares(float out[4], float ny, float height, float variation) {
    float slope = 1.0f - ny; /* 0 flat, 0.29 at 45 degrees */
    out[0] = smoothf(-0.3f, 0.6f, variation);
    out[1] = smoothf(0.05f, 0.11f, slope + 0.03f * variation);
    out[2] = smoothf(0.17f, 0.26f, slope + 0.04f * variation);
    /* snow above a line that wavers with the variation, kept off cliffs */
    out[3] =
        smoothf(150.0f, 190.0f, height + 25.0f * variation) * (1.0f - smoothf(0.2f, 0.35f, slope));
}

void _oak_terrain_material_color(float rgb[3], float ny, float height, float variation) {
    /* linear albedo; the detail texture (about 0.8 on average) multiplies them */
    static const float grass[3] = {0.090f, 0.180f, 0.035f};
    static const float dry[3] = {0.170f, 0.200f, 0.060f};
    static const float dirt[3] = {0.200f, 0.140f, 0.080f};
    static const float rock[3] = {0.260f, 0.250f, 0.235f};
    static const float snow[3] = {0.800f, 0.820f, 0.860f};
    float sh[4];
    _oak_terrain_material_shares(sh, ny, height, variation);
    float t_dry = sh[0], t_dirt = sh[1], t_rock = sh[2], t_snow = sh[3];
    for (int c = 0; c < 3; c++) {
        float v = grass[c] + (dry[c] - grass[c]) * t_dry;
        v += (dirt[c] - v) * t_dirt;
        v += (rock[c] - v) * t_rock;
        v += (snow[c] - v) * t_snow;
        rgb[c] = v;
    }
}

float _oak_terrain_variation(double wx, double wz) {
    return (float)(0.7 * _oak_terrain_noise_periodic(wx / 97.0, wz / 97.0, 0, 911u) +
                   0.3 * _oak_terrain_noise_periodic(wx / 23.0, wz / 23.0, 0, 913u));
}

void _oak_tile_release(_oak_tile_build *b) {
    if (b->mesh.id) oak_destroy_mesh(b->mesh);
    oak_free(b->height);
    oak_free(b->parent_height);
    oak_free(b->work);
    memset(b, 0, sizeof *b);
}

/* Largest gap along one edge (n + 1 heights at spacing ds, starting at world
   (x0, z0) stepping (dx, dz)) against a neighbour up to two levels finer
   (true heights at the quarter points) or two levels coarser (every second
   and fourth vertex joined by straight lines). */
static double edge_gap(const _oak_terrain_noise *noise, const float *h, uint32_t stride, uint32_t n,
                       double x0, double z0, double dx, double dz) {
    double gap = 0;
    for (uint32_t i = 0; i < n; i++) {
        double a = h[i * stride], b = h[(i + 1) * stride];
        for (int q = 1; q < 4; q++) {
            double t = q / 4.0;
            double truth = _oak_terrain_noise_height(noise, x0 + (i + t) * dx, z0 + (i + t) * dz);
            gap = fmax(gap, fabs(truth - (a + (b - a) * t)));
        }
    }
    for (uint32_t step = 2; step <= 4 && step <= n; step *= 2)
        for (uint32_t i = 0; i + step <= n; i += step)
            for (uint32_t k = 1; k < step; k++) {
                double a = h[i * stride], b = h[(i + step) * stride];
                double line = a + (b - a) * (double)k / step;
                gap = fmax(gap, fabs(h[(i + k) * stride] - line));
            }
    return gap;
}

/* The build's streams in one block: a ring of heights one cell past the
   grid, then positions, normals, UVs, colours and indices. */
static size_t block_bytes(uint32_t c) {
    const uint32_t r = c + 3, nv = _oak_tile_vertex_count(c), ni = 6 * c * c + 4 * 6 * c;
    return ((size_t)r * r + (size_t)nv * (3 + 3 + 2 + 4)) * sizeof(float) +
           (size_t)ni * sizeof(uint32_t);
}

oak_result _oak_tile_build_begin(_oak_tile_build *out, uint32_t cells) {
    memset(out, 0, sizeof *out);
    const uint32_t g = cells + 1;
    out->work = oak_alloc(block_bytes(cells));
    out->height = oak_alloc(sizeof(float) * g * g);
    out->parent_height = oak_alloc(sizeof(float) * g * g);
    if (!out->work || !out->height || !out->parent_height) {
        _oak_tile_release(out);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: out of memory for a tile");
    }
    return OAK_OK;
}

void _oak_tile_build_fill(_oak_tile_build *out, const _oak_tile_params *p, _oak_tile_key key) {
    const uint32_t c = p->cells, g = c + 1, r = c + 3; /* grid, grid with a border ring */
    const double size = p->tile_size * (double)((int64_t)1 << key.level), ds = size / c;
    const double x0 = (double)key.ix * size, z0 = (double)key.iz * size;
    const uint32_t nv = _oak_tile_vertex_count(c);
    float *ring = out->work, *pos = ring + (size_t)r * r, *nrm = pos + 3 * (size_t)nv;
    float *uv = nrm + 3 * (size_t)nv, *col = uv + 2 * (size_t)nv;
    uint32_t *idx = (uint32_t *)(col + 4 * (size_t)nv);

    if (r <= OAK_TERRAIN_NOISE_GRID_MAX) {
        /* the same heights with each column's and row's split made once */
        double xs[OAK_TERRAIN_NOISE_GRID_MAX], zs[OAK_TERRAIN_NOISE_GRID_MAX];
        for (uint32_t i = 0; i < r; i++)
            xs[i] = x0 + ((double)i - 1) * ds, zs[i] = z0 + ((double)i - 1) * ds;
        _oak_terrain_noise_grid(p->noise, xs, zs, r, ring);
    } else {
        for (uint32_t j = 0; j < r; j++)
            for (uint32_t i = 0; i < r; i++)
                ring[j * r + i] = (float)_oak_terrain_noise_height(
                    p->noise, x0 + ((double)i - 1) * ds, z0 + ((double)j - 1) * ds);
    }
    float lo = INFINITY, hi = -INFINITY;
    /* UVs from the world position folded by a whole number of repeats, so
       they stay small and continuous across tiles anywhere */
    double period = p->uv_scale * 256.0;
    const double ox = p->noise->offset[0], oz = p->noise->offset[1];
    double ux0 = fmod(x0 + ox, period), uz0 = fmod(z0 + oz, period);
    for (uint32_t j = 0; j < g; j++) {
        for (uint32_t i = 0; i < g; i++) {
            uint32_t v = j * g + i;
            float h = ring[(j + 1) * r + i + 1];
            out->height[v] = h;
            lo = fminf(lo, h), hi = fmaxf(hi, h);
            pos[3 * v] = (float)(i * ds);
            pos[3 * v + 1] = h;
            pos[3 * v + 2] = (float)(j * ds);
            float gx = (ring[(j + 1) * r + i + 2] - ring[(j + 1) * r + i]) / (float)(2 * ds);
            float gz = (ring[(j + 2) * r + i + 1] - ring[j * r + i + 1]) / (float)(2 * ds);
            float inv = 1.0f / sqrtf(gx * gx + 1 + gz * gz);
            nrm[3 * v] = -gx * inv, nrm[3 * v + 1] = inv, nrm[3 * v + 2] = -gz * inv;
            uv[2 * v] = (float)((ux0 + i * ds) / p->uv_scale);
            uv[2 * v + 1] = (float)((uz0 + j * ds) / p->uv_scale);
            double wx = x0 + ox + i * ds, wz = z0 + oz + j * ds; /* where the noise is */
            float var = _oak_terrain_variation(wx, wz);
            _oak_terrain_material_color(col + 4 * v, inv, h, var);
            col[4 * v + 3] = 1.0f;
            /* the parent's surface here: the same diagonal split, half as fine */
            uint32_t oi = i & 1u, oj = j & 1u;
            float ph = h;
            if (oi && oj)
                ph = 0.5f * (ring[j * r + i] + ring[(j + 2) * r + i + 2]);
            else if (oi)
                ph = 0.5f * (ring[(j + 1) * r + i] + ring[(j + 1) * r + i + 2]);
            else if (oj)
                ph = 0.5f * (ring[j * r + i + 1] + ring[(j + 2) * r + i + 1]);
            out->parent_height[v] = ph;
        }
    }
    /* skirts: the edge's vertices again, hanging down by the largest gap
       found along any edge, with margin */
    const float *hh = out->height;
    double gap = edge_gap(p->noise, hh, 1, c, x0, z0, ds, 0);
    gap = fmax(gap, edge_gap(p->noise, hh + c * g, 1, c, x0, z0 + size, ds, 0));
    gap = fmax(gap, edge_gap(p->noise, hh, g, c, x0, z0, 0, ds));
    gap = fmax(gap, edge_gap(p->noise, hh + c, g, c, x0 + size, z0, 0, ds));
    out->skirt = (float)(1.5 * gap + 0.02 * ds + 0.05);
    /* edges in the order that makes each skirt face outwards: z = 0 along
       +x, x = end along +z, z = end along -x, x = 0 along -z */
    uint32_t edge[4][2] = {{0, 1}, {c, g}, {c * g + c, (uint32_t)-1}, {c * g, (uint32_t)-g}};
    uint32_t ii = 0;
    for (uint32_t j = 0; j < c; j++)
        for (uint32_t i = 0; i < c; i++) {
            uint32_t v00 = j * g + i, v10 = v00 + 1, v01 = v00 + g, v11 = v01 + 1;
            idx[ii++] = v00, idx[ii++] = v01, idx[ii++] = v11;
            idx[ii++] = v00, idx[ii++] = v11, idx[ii++] = v10;
        }
    for (uint32_t e = 0; e < 4; e++) {
        uint32_t base = g * g + e * g;
        for (uint32_t k = 0; k < g; k++) {
            uint32_t top = edge[e][0] + k * edge[e][1], v = base + k;
            memcpy(pos + 3 * v, pos + 3 * top, 3 * sizeof(float));
            pos[3 * v + 1] -= out->skirt;
            memcpy(nrm + 3 * v, nrm + 3 * top, 3 * sizeof(float));
            memcpy(uv + 2 * v, uv + 2 * top, 2 * sizeof(float));
            memcpy(col + 4 * v, col + 4 * top, 4 * sizeof(float));
        }
        for (uint32_t k = 0; k < c; k++) {
            uint32_t ta = edge[e][0] + k * edge[e][1], tb = ta + edge[e][1];
            uint32_t ba = base + k, bb = ba + 1;
            idx[ii++] = ta, idx[ii++] = tb, idx[ii++] = ba;
            idx[ii++] = tb, idx[ii++] = bb, idx[ii++] = ba;
        }
    }
    out->min_h = lo - out->skirt;
    out->max_h = hi;
}

oak_result _oak_tile_build_end(_oak_tile_build *out, uint32_t cells, const char *name) {
    const uint32_t c = cells, r = c + 3, nv = _oak_tile_vertex_count(c);
    float *pos = (float *)out->work + (size_t)r * r, *nrm = pos + 3 * (size_t)nv;
    float *uv = nrm + 3 * (size_t)nv, *col = uv + 2 * (size_t)nv;
    oak_mesh_desc md = {.vertex_count = nv,
                        .index_count = 6 * c * c + 4 * 6 * c,
                        .positions = pos,
                        .normals = nrm,
                        .uv0 = uv,
                        .colors = col,
                        .indices = (uint32_t *)(col + 4 * (size_t)nv),
                        .name = name};
    oak_result res = oak_make_mesh(&out->mesh, &md);
    oak_free(out->work);
    out->work = NULL;
    if (res) _oak_tile_release(out);
    return res;
}

void _oak_tile_morph_positions(float *pos, const _oak_tile_build *b, uint32_t cells, double spacing,
                               const float *morph, const uint8_t coarse[4]) {
    const uint32_t c = cells, g = c + 1;
    for (uint32_t j = 0; j < g; j++)
        for (uint32_t i = 0; i < g; i++) {
            uint32_t v = j * g + i;
            float h = b->height[v], m = morph[v];
            pos[3 * v] = (float)(i * spacing);
            pos[3 * v + 1] = h + (b->parent_height[v] - h) * m;
            pos[3 * v + 2] = (float)(j * spacing);
        }
    uint32_t edge[4][2] = {{0, 1}, {c, g}, {c * g + c, (uint32_t)-1}, {c * g, (uint32_t)-g}};
    /* an edge on a tile n levels coarser takes that tile's line outright:
       its vertices every 2^n of ours, joined straight (while a parent
       covers for children still being built, the morph by distance alone
       would leave the edge short of it) */
    for (uint32_t e = 0; e < 4; e++) {
        if (!coarse[e]) continue;
        uint32_t step = coarse[e] >= 16 ? c : 1u << coarse[e];
        if (step > c) step = c;
        for (uint32_t k = 0; k < g; k++) {
            uint32_t a = k / step * step, z = a + step > c ? c : a + step;
            float ha = b->height[edge[e][0] + a * edge[e][1]];
            float hz = b->height[edge[e][0] + z * edge[e][1]];
            float f = z > a ? (float)(k - a) / (float)(z - a) : 0.0f;
            pos[3 * (edge[e][0] + k * edge[e][1]) + 1] = ha + (hz - ha) * f;
        }
    }
    for (uint32_t e = 0; e < 4; e++)
        for (uint32_t k = 0; k < g; k++) {
            uint32_t top = edge[e][0] + k * edge[e][1], v = g * g + e * g + k;
            memcpy(pos + 3 * v, pos + 3 * top, 3 * sizeof(float));
            pos[3 * v + 1] -= b->skirt;
        }
}

/* ---- the detail texture ------------------------------------------------- */

static void paint_detail(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    (void)user;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double u = (x + 0.5) / w, v = (y + 0.5) / h, n = 0, amp = 0.5;
            for (int o = 0; o < 4; o++) {
                int64_t period = (int64_t)16 << o;
                n += amp * _oak_terrain_noise_periodic(u * period, v * period, period, 77u + o);
                amp *= 0.5;
            }
            /* sRGB grey 0.82 .. 1.0: grain that tints, not a second colour */
            double s = 0.91 + 0.18 * n;
            s = s < 0.7 ? 0.7 : (s > 1 ? 1 : s);
            uint8_t *p = rgba + 4 * ((size_t)y * w + x);
            p[0] = p[1] = p[2] = (uint8_t)(s * 255.0 + 0.5);
            p[3] = 255;
        }
}

oak_result _oak_terrain_register_detail(void) {
    return oak_register_painter("terrain_detail", 256, 256, paint_detail, NULL);
}
