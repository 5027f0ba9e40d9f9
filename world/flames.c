/* Flames (docs/WORLD.md "Fire"): a small 2D stable-fluids run (Stam 1999:
 * semi-Lagrangian advection, a Jacobi pressure projection; buoyancy and
 * vorticity confinement after Fedkiw et al. 2001) of a puff of hot gas fed
 * at the grid's foot and let go, baked at load into a flipbook atlas whose
 * texels glow as a black body at their heat's share of the flame's kelvin,
 * as bright as the heat's 4th power. Serial and seeded: the same desc
 * bakes the same bytes. */
#include <math.h>
#include <string.h>

#include "world/internal.h"

/* ---- black body ------------------------------------------------------------ */

/* one lobe of the CIE 1931 observer's piecewise Gaussian fit (Wyman, Sloan
   and Shirley 2013), lambda in nm */
static double lobe(double l, double mu, double s1, double s2) {
    double t = (l - mu) / (l < mu ? s1 : s2);
    return exp(-0.5 * t * t);
}

void oak_blackbody(float kelvin, float rgb[3]) {
    double X = 0, Y = 0, Z = 0;
    double T = kelvin > 100 ? kelvin : 100;
    for (double l = 380; l <= 780; l += 5) {
        double x = 1.056 * lobe(l, 599.8, 37.9, 31.0) + 0.362 * lobe(l, 442.0, 16.0, 26.7) -
                   0.065 * lobe(l, 501.1, 20.4, 26.2);
        double y = 0.821 * lobe(l, 568.8, 46.9, 40.5) + 0.286 * lobe(l, 530.9, 16.3, 31.1);
        double z = 1.217 * lobe(l, 437.0, 11.8, 36.0) + 0.681 * lobe(l, 459.0, 26.0, 13.8);
        double m = l * 1e-9; /* Planck's law, up to a constant */
        double b = 1.0 / (m * m * m * m * m * (exp(1.4387769e-2 / (m * T)) - 1.0));
        X += x * b, Y += y * b, Z += z * b;
    }
    double c[3] = {3.2406 * X - 1.5372 * Y - 0.4986 * Z, -0.9689 * X + 1.8758 * Y + 0.0415 * Z,
                   0.0557 * X - 0.2040 * Y + 1.0570 * Z};
    double top = 0;
    for (int k = 0; k < 3; k++) c[k] = c[k] > 0 ? c[k] : 0, top = c[k] > top ? c[k] : top;
    for (int k = 0; k < 3; k++) rgb[k] = top > 0 ? (float)(c[k] / top) : 0;
}

/* ---- the fluid -------------------------------------------------------------- */

typedef struct fluid {
    int w, h;
    float *u, *v, *heat, *smoke, *t0, *t1, *p, *div, *curl;
} fluid;

#define AT(f, x, y) ((size_t)(y) * (size_t)(f)->w + (size_t)(x))

/* bilinear sample of q at (x, y) in cell units, clamped to the grid */
static float sample(const fluid *f, const float *q, float x, float y) {
    x = x < 0 ? 0 : x > (float)(f->w - 1) ? (float)(f->w - 1) : x;
    y = y < 0 ? 0 : y > (float)(f->h - 1) ? (float)(f->h - 1) : y;
    int x0 = (int)x, y0 = (int)y, x1 = x0 + 1 < f->w ? x0 + 1 : x0,
        y1 = y0 + 1 < f->h ? y0 + 1 : y0;
    float sx = x - (float)x0, sy = y - (float)y0;
    float a = q[AT(f, x0, y0)] + (q[AT(f, x1, y0)] - q[AT(f, x0, y0)]) * sx;
    float b = q[AT(f, x0, y1)] + (q[AT(f, x1, y1)] - q[AT(f, x0, y1)]) * sx;
    return a + (b - a) * sy;
}

/* q carried along the velocity for dt (back-traced), into out */
static void advect(const fluid *f, const float *q, float *out, float dt) {
    for (int y = 0; y < f->h; y++)
        for (int x = 0; x < f->w; x++) {
            size_t i = AT(f, x, y);
            out[i] = sample(f, q, (float)x - dt * f->u[i], (float)y - dt * f->v[i]);
        }
}

/* the velocity made divergence-free: Jacobi on the pressure, its gradient taken off */
static void project(fluid *f, int iterations) {
    int w = f->w, h = f->h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float ur = x + 1 < w ? f->u[AT(f, x + 1, y)] : 0,
                  ul = x > 0 ? f->u[AT(f, x - 1, y)] : 0;
            float vt = y + 1 < h ? f->v[AT(f, x, y + 1)] : f->v[AT(f, x, y)]; /* open top */
            float vb = y > 0 ? f->v[AT(f, x, y - 1)] : 0;
            f->div[AT(f, x, y)] = -0.5f * (ur - ul + vt - vb);
            f->p[AT(f, x, y)] = 0;
        }
    for (int it = 0; it < iterations; it++) {
        float *src = it % 2 ? f->t1 : f->p, *dst = it % 2 ? f->p : f->t1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float l = src[AT(f, x > 0 ? x - 1 : x, y)],
                      r = src[AT(f, x + 1 < w ? x + 1 : x, y)];
                float b = src[AT(f, x, y > 0 ? y - 1 : y)];
                float t = y + 1 < h ? src[AT(f, x, y + 1)] : 0; /* open top: p = 0 */
                dst[AT(f, x, y)] = (f->div[AT(f, x, y)] + l + r + b + t) * 0.25f;
            }
    }
    const float *p = iterations % 2 ? f->t1 : f->p;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float l = p[AT(f, x > 0 ? x - 1 : x, y)], r = p[AT(f, x + 1 < w ? x + 1 : x, y)];
            float b = p[AT(f, x, y > 0 ? y - 1 : y)], t = y + 1 < h ? p[AT(f, x, y + 1)] : 0;
            f->u[AT(f, x, y)] -= 0.5f * (r - l);
            f->v[AT(f, x, y)] -= 0.5f * (t - b);
        }
}

/* vorticity confinement: a push along N x w that keeps small swirls alive */
static void confine(fluid *f, float eps, float dt) {
    int w = f->w, h = f->h;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float dv = f->v[AT(f, x + 1 < w ? x + 1 : x, y)] - f->v[AT(f, x > 0 ? x - 1 : x, y)];
            float du = f->u[AT(f, x, y + 1 < h ? y + 1 : y)] - f->u[AT(f, x, y > 0 ? y - 1 : y)];
            f->curl[AT(f, x, y)] = 0.5f * (dv - du);
        }
    for (int y = 1; y + 1 < h; y++)
        for (int x = 1; x + 1 < w; x++) {
            float gx = 0.5f * (fabsf(f->curl[AT(f, x + 1, y)]) - fabsf(f->curl[AT(f, x - 1, y)]));
            float gy = 0.5f * (fabsf(f->curl[AT(f, x, y + 1)]) - fabsf(f->curl[AT(f, x, y - 1)]));
            float l = sqrtf(gx * gx + gy * gy) + 1e-6f, c = f->curl[AT(f, x, y)];
            f->u[AT(f, x, y)] += dt * eps * (gy / l) * c;
            f->v[AT(f, x, y)] -= dt * eps * (gx / l) * c;
        }
}

oak_flames_desc oak_flames_desc_defaults(const oak_flames_desc *desc) {
    oak_flames_desc d = desc ? *desc : (oak_flames_desc){0};
    if (!d.width) d.width = 32;
    if (!d.height) d.height = 64;
    if (!d.columns) d.columns = 4;
    if (!d.rows) d.rows = 4;
    if (!d.steps_per_frame) d.steps_per_frame = 3;
    if (!(d.kelvin > 0)) d.kelvin = 1900;
    return d;
}

oak_result oak_flames_bake(uint8_t *rgba, float *heat_out, const oak_flames_desc *desc) {
    oak_flames_desc d = oak_flames_desc_defaults(desc);
    if (!rgba || d.width < 8 || d.height < 8 || d.width > 256 || d.height > 256 ||
        d.columns * d.rows > OAK_PARTICLE_FRAMES || d.steps_per_frame > 64 || !(d.kelvin <= 1e5f))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_flames_bake: %ux%u cells (8 .. 256), %ux%u frames (at most %u), %u "
                         "steps a frame (.. 64), %g K (.. 1e5)",
                         d.width, d.height, d.columns, d.rows, OAK_PARTICLE_FRAMES,
                         d.steps_per_frame, (double)d.kelvin);
    fluid f = {.w = (int)d.width, .h = (int)d.height};
    size_t n = (size_t)f.w * (size_t)f.h;
    float *mem = oak_calloc(9 * n, sizeof(float));
    if (!mem) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "flames: no memory");
    float **fields[9] = {&f.u, &f.v, &f.heat, &f.smoke, &f.t0, &f.t1, &f.p, &f.div, &f.curl};
    for (int i = 0; i < 9; i++) *fields[i] = mem + (size_t)i * n;
    const uint32_t frames = d.columns * d.rows;
    const uint32_t steps = frames * d.steps_per_frame;
    const float dt = 1.0f; /* in cells per unit velocity */
    float *heats = oak_alloc(sizeof(float) * n * frames);
    if (!heats) {
        oak_free(mem);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "flames: no memory");
    }
    for (uint32_t s = 0; s < steps; s++) {
        /* the feed: hot gas at the foot for the first 40% of the run, a
           flickering band across the middle third, then let go */
        if (s * 10 < steps * 4)
            for (int x = f.w / 3; x < f.w - f.w / 3; x++)
                for (int y = 0; y < 3; y++) {
                    float jit = _oak_world_hash01((uint32_t)(x + f.w * (int)s), d.seed);
                    size_t i = AT(&f, x, y);
                    f.heat[i] = fminf(1.0f, f.heat[i] + 0.5f + 0.5f * jit);
                    f.smoke[i] = fminf(1.0f, f.smoke[i] + 0.3f);
                    f.v[i] += 0.4f * jit;
                }
        /* buoyancy: hot gas rises, smoke weighs a little */
        for (size_t i = 0; i < n; i++) f.v[i] += dt * (0.35f * f.heat[i] - 0.05f * f.smoke[i]);
        confine(&f, 0.6f, dt);
        project(&f, 30);
        advect(&f, f.u, f.t0, dt);
        advect(&f, f.v, f.t1, dt);
        memcpy(f.u, f.t0, sizeof(float) * n);
        memcpy(f.v, f.t1, sizeof(float) * n);
        project(&f, 30);
        advect(&f, f.heat, f.t0, dt);
        advect(&f, f.smoke, f.t1, dt);
        for (size_t i = 0; i < n; i++) f.heat[i] = f.t0[i] * 0.93f, f.smoke[i] = f.t1[i] * 0.985f;
        if ((s + 1) % d.steps_per_frame == 0)
            memcpy(heats + n * ((s + 1) / d.steps_per_frame - 1), f.heat, sizeof(float) * n);
    }
    /* the atlas: frame k in cell (k % columns, k / columns), the grid's top
       row at the cell's top; heat as a share of the hottest texel of the run;
   a frame's border texels dark */
    float top = 0;
    for (size_t i = 0; i < n * frames; i++) top = fmaxf(top, heats[i]);
    const uint32_t aw = d.width * d.columns;
    for (uint32_t k = 0; k < frames; k++)
        for (int y = 0; y < f.h; y++)
            for (int x = 0; x < f.w; x++) {
                /* a frame's edge texels stay dark: filtering reads across it */
                bool edge = x == 0 || y == 0 || x == f.w - 1 || y == f.h - 1;
                float h = top > 0 && !edge ? heats[n * k + AT(&f, x, y)] / top : 0;
                float c[3];
                oak_blackbody(h * d.kelvin, c);
                float glow = h * h * h * h;
                uint32_t ax = (k % d.columns) * d.width + (uint32_t)x;
                uint32_t ay = (k / d.columns) * d.height + (d.height - 1 - (uint32_t)y);
                uint8_t *o = rgba + ((size_t)ay * aw + ax) * 4;
                for (int ch = 0; ch < 3; ch++) {
                    float l = c[ch] * glow,
                          e = l <= 0.0031308f ? 12.92f * l : 1.055f * powf(l, 1 / 2.4f) - 0.055f;
                    o[ch] = (uint8_t)lroundf(fminf(1, fmaxf(0, e)) * 255);
                }
                o[3] = (uint8_t)lroundf(fminf(1, 2 * h) * 255);
            }
    if (heat_out) memcpy(heat_out, heats, sizeof(float) * n * frames);
    oak_free(heats);
    oak_free(mem);
    return OAK_OK;
}
