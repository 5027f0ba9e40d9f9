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
