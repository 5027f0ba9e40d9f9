/* The terrain's height function: 2D gradient noise in double precision with
 * the lattice split into whole cells and fractions, summed as fBm hills and
 * ridged mountains (Musgrave's ridged multifractal) under a slow mask. */
#include <math.h>

#include "world/terrain_internal.h"

static uint32_t lattice_hash(int64_t x, int64_t y, uint32_t seed) {
    uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)seed * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (uint32_t)h;
}

/* Eight unit gradients, evenly around the circle. */
static double grad_dot(uint32_t h, double x, double y) {
    static const double g[8][2] = {
        {1, 0},  {0.70710678, 0.70710678},   {0, 1},  {-0.70710678, 0.70710678},
        {-1, 0}, {-0.70710678, -0.70710678}, {0, -1}, {0.70710678, -0.70710678}};
    const double *v = g[(h >> 5) & 7u];
    return v[0] * x + v[1] * y;
}

static double fade(double t) {
    return t * t * t * (t * (t * 6 - 15) + 10);
}

/* Noise at the lattice cell (ix, iy) plus fraction (fx, fy) in [0, 1);
   period 0: none. Scaled by sqrt(2) so it spans about [-1, 1]. */
static double noise_cell(int64_t ix, int64_t iy, double fx, double fy, int64_t period,
                         uint32_t seed) {
    int64_t x0 = ix, y0 = iy, x1 = ix + 1, y1 = iy + 1;
    if (period > 0) {
        x0 = ((x0 % period) + period) % period, x1 = ((x1 % period) + period) % period;
        y0 = ((y0 % period) + period) % period, y1 = ((y1 % period) + period) % period;
    }
    double n00 = grad_dot(lattice_hash(x0, y0, seed), fx, fy);
    double n10 = grad_dot(lattice_hash(x1, y0, seed), fx - 1, fy);
    double n01 = grad_dot(lattice_hash(x0, y1, seed), fx, fy - 1);
    double n11 = grad_dot(lattice_hash(x1, y1, seed), fx - 1, fy - 1);
    double u = fade(fx), v = fade(fy);
    double a = n00 + (n10 - n00) * u, b = n01 + (n11 - n01) * u;
    return 1.41421356 * (a + (b - a) * v);
}

static double noise2(double x, double y, int64_t period, uint32_t seed) {
    double cx = floor(x), cy = floor(y);
    return noise_cell((int64_t)cx, (int64_t)cy, x - cx, y - cy, period, seed);
}

double _oak_terrain_noise_periodic(double x, double y, int64_t period, uint32_t seed) {
    return noise2(x, y, period, seed);
}

/* World metres to lattice units, split before scaling: the whole kilometres
   go through an exact integer path, only the remainder is multiplied. */
static double lattice(double world, double frequency, double *whole_cells) {
    double km = floor(world / 1024.0);
    double rest = world - km * 1024.0; /* exact: km * 1024 is representable */
    double a = km * 1024.0 * frequency;
    double ai = floor(a);
    *whole_cells = ai;
    return (a - ai) + rest * frequency;
}

static double noise_at(double x, double z, double frequency, uint32_t seed) {
    double cx, cz;
    double fx = lattice(x, frequency, &cx), fz = lattice(z, frequency, &cz);
    double ex = floor(fx), ez = floor(fz);
    return noise_cell((int64_t)cx + (int64_t)ex, (int64_t)cz + (int64_t)ez, fx - ex, fz - ez, 0,
                      seed);
}

double _oak_terrain_noise_height(const _oak_terrain_noise *n, double x, double z) {
    x += n->offset[0];
    z += n->offset[1];
    /* fBm hills */
    double sum = 0, amp = 1, norm = 0, f = n->frequency;
    for (uint32_t o = 0; o < n->octaves; o++) {
        sum += amp * noise_at(x, z, f, n->seed + o * 101u);
        norm += amp;
        f *= n->lacunarity;
        amp *= n->gain;
    }
    double h = norm > 0 ? n->amplitude * sum / norm : 0;
    if (n->ridge_octaves == 0 || n->ridge_amplitude == 0) return h;
    /* ridged mountains: sharp crests where |noise| is 0, each octave
       weighted by the one before so the valleys stay smooth */
    double mask = noise_at(x, z, n->ridge_frequency * 0.37, n->seed + 7919u);
    mask = (mask + 0.15) / 0.6;
    mask = mask < 0 ? 0 : (mask > 1 ? 1 : mask);
    mask = mask * mask * (3 - 2 * mask);
    if (mask <= 0) return h;
    double r = 0, weight = 1, rn = 0;
    amp = 1, f = n->ridge_frequency;
    for (uint32_t o = 0; o < n->ridge_octaves; o++) {
        double s = 1.0 - fabs(noise_at(x, z, f, n->seed + 50021u + o * 131u));
        s *= s;
        s *= weight;
        weight = s * 2 > 1 ? 1 : s * 2;
        r += s * amp;
        rn += amp;
        f *= n->lacunarity;
        amp *= n->gain;
    }
    return h + n->ridge_amplitude * mask * (r / rn);
}

/* ---- a grid of heights ------------------------------------------------------ */

/* One lattice coordinate of one octave split as noise_at splits it: the
   whole cell, the fraction and the fraction's fade. A grid's columns share
   their x split and its rows their z split, so a grid forms them once per
   column or row instead of once per point. */
typedef struct axis_split {
    int64_t cell;
    double frac, fade;
} axis_split;

static axis_split split_axis(double world, double frequency) {
    double c;
    double f = lattice(world, frequency, &c);
    double e = floor(f);
    axis_split s = {(int64_t)c + (int64_t)e, f - e, 0};
    s.fade = fade(s.frac);
    return s;
}

/* noise_at from the two splits: noise_cell's sums in its order (period 0),
   so the grid's heights are the point query's to the bit. */
static double noise_split(const axis_split *a, const axis_split *b, uint32_t seed) {
    int64_t x0 = a->cell, y0 = b->cell, x1 = a->cell + 1, y1 = b->cell + 1;
    double fx = a->frac, fy = b->frac;
    double n00 = grad_dot(lattice_hash(x0, y0, seed), fx, fy);
    double n10 = grad_dot(lattice_hash(x1, y0, seed), fx - 1, fy);
    double n01 = grad_dot(lattice_hash(x0, y1, seed), fx, fy - 1);
    double n11 = grad_dot(lattice_hash(x1, y1, seed), fx - 1, fy - 1);
    double u = a->fade, v = b->fade;
    double a0 = n00 + (n10 - n00) * u, b0 = n01 + (n11 - n01) * u;
    return 1.41421356 * (a0 + (b0 - a0) * v);
}

/* The frequencies _oak_terrain_noise_height walks, in its order: the fBm
   octaves, the mask, the ridged octaves. Returns how many. */
static uint32_t grid_frequencies(const _oak_terrain_noise *n, double *freq, uint32_t *seed) {
    uint32_t k = 0;
    double f = n->frequency;
    for (uint32_t o = 0; o < n->octaves; o++, f *= n->lacunarity)
        freq[k] = f, seed[k++] = n->seed + o * 101u;
    if (n->ridge_octaves == 0 || n->ridge_amplitude == 0) return k;
    freq[k] = n->ridge_frequency * 0.37, seed[k++] = n->seed + 7919u;
    f = n->ridge_frequency;
    for (uint32_t o = 0; o < n->ridge_octaves; o++, f *= n->lacunarity)
        freq[k] = f, seed[k++] = n->seed + 50021u + o * 131u;
    return k;
}

#define GRID_LEVELS (2 * OAK_TERRAIN_MAX_OCTAVES + 1)

void _oak_terrain_noise_grid(const _oak_terrain_noise *n, const double *xs, const double *zs,
                             uint32_t count, float *out) {
    if (count > OAK_TERRAIN_NOISE_GRID_MAX || n->octaves > OAK_TERRAIN_MAX_OCTAVES ||
        n->ridge_octaves > OAK_TERRAIN_MAX_OCTAVES) {
        for (uint32_t j = 0; j < count; j++)
            for (uint32_t i = 0; i < count; i++)
                out[j * count + i] = (float)_oak_terrain_noise_height(n, xs[i], zs[j]);
        return;
    }
    double freq[GRID_LEVELS];
    uint32_t seed[GRID_LEVELS];
    uint32_t levels = grid_frequencies(n, freq, seed);
    axis_split col[GRID_LEVELS][OAK_TERRAIN_NOISE_GRID_MAX], row[GRID_LEVELS];
    for (uint32_t k = 0; k < levels; k++)
        for (uint32_t i = 0; i < count; i++) col[k][i] = split_axis(xs[i] + n->offset[0], freq[k]);
    const bool ridged = n->ridge_octaves != 0 && n->ridge_amplitude != 0;
    const uint32_t mask_level = n->octaves;
    for (uint32_t j = 0; j < count; j++) {
        double z = zs[j] + n->offset[1];
        for (uint32_t k = 0; k < levels; k++) row[k] = split_axis(z, freq[k]);
        for (uint32_t i = 0; i < count; i++) {
            /* _oak_terrain_noise_height's steps, each noise_at from the splits */
            double sum = 0, amp = 1, norm = 0;
            for (uint32_t o = 0; o < n->octaves; o++) {
                sum += amp * noise_split(&col[o][i], &row[o], seed[o]);
                norm += amp;
                amp *= n->gain;
            }
            double h = norm > 0 ? n->amplitude * sum / norm : 0;
            out[j * count + i] = (float)h;
            if (!ridged) continue;
            double mask = noise_split(&col[mask_level][i], &row[mask_level], seed[mask_level]);
            mask = (mask + 0.15) / 0.6;
            mask = mask < 0 ? 0 : (mask > 1 ? 1 : mask);
            mask = mask * mask * (3 - 2 * mask);
            if (mask <= 0) continue;
            double r = 0, weight = 1, rn = 0;
            amp = 1;
            for (uint32_t o = 0; o < n->ridge_octaves; o++) {
                uint32_t k = mask_level + 1 + o;
                double s = 1.0 - fabs(noise_split(&col[k][i], &row[k], seed[k]));
                s *= s;
                s *= weight;
                weight = s * 2 > 1 ? 1 : s * 2;
                r += s * amp;
                rn += amp;
                amp *= n->gain;
            }
            out[j * count + i] = (float)(h + n->ridge_amplitude * mask * (r / rn));
        }
    }
}
