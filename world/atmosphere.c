/* A physically based sky on the CPU after Hillaire 2020 ("A Scalable and
 * Production Ready Sky and Atmosphere Rendering Technique"): Rayleigh, Mie
 * and ozone; a transmittance table, the multiple-scattering table and a
 * sky-view table, baked into the equirectangular RGBA32F sky image with the
 * stars and the moon's disc painted in. Lengths are km. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "world/internal.h"
#include "world/sky_internal.h"

#define PI_D 3.14159265358979323846
#define DEG  (PI_D / 180.0)

/* Earth and its air (Hillaire 2020, table 1; Bruneton 2017's defaults) */
#define R_GROUND 6360.0
#define R_TOP    6460.0
#define EYE_KM   0.05                                               /* the viewer stands 50 m up */
static const double k_rayleigh[3] = {5.802e-3, 13.558e-3, 33.1e-3}; /* per km, at sea level */
#define RAYLEIGH_H 8.0
#define MIE_SCAT   3.996e-3
#define MIE_EXT    4.40e-3
#define MIE_H      1.2
#define MIE_G      0.8
static const double k_ozone[3] = {0.650e-3, 1.881e-3, 0.085e-3}; /* absorption, per km */
#define OZONE_MID  25.0 /* a tent 30 km wide around 25 km */
#define OZONE_HALF 15.0
#define ALBEDO     0.3 /* the ground under the air, for multiple scattering */

/* table sizes */
#define TR_W     128 /* transmittance: view cosine across (Bruneton's mapping) */
#define TR_H     32  /* ... height down */
#define TR_STEPS 40
#define MS_N     32 /* multiple scattering: sun cosine across */
#define MS_H     16 /* ... height down (smooth in height: half of Hillaire's 32) */
#define MS_DIRS  8  /* 8 x 8 directions on the sphere */
#define MS_STEPS 16
#define SV_W     64 /* sky view: azimuth from the light, 0..180 degrees, squared mapping */
#define SV_H     48 /* ... elevation 0..90 degrees, squared mapping */
#define SV_STEPS 32

/* aerial perspective: steps between two of a ray's ends (a second changes
   the 20 km transmittance by less than 1e-4) */
#define AP_SUBSTEPS 1
/* the image */
#define IMG_W 512
#define IMG_H 256

struct _oak_atmosphere {
    float tr[TR_H][TR_W][3];
    float ms[MS_H][MS_N][3];
};

typedef struct medium {
    double ray[3], mie, ext[3];
} medium;

static void medium_at(double h, medium *m) {
    if (h < 0) h = 0;
    double dr = exp(-h / RAYLEIGH_H), dm = exp(-h / MIE_H);
    double doz = 1.0 - fabs(h - OZONE_MID) / OZONE_HALF;
    if (doz < 0) doz = 0;
    m->mie = MIE_SCAT * dm;
    for (int c = 0; c < 3; c++) {
        m->ray[c] = k_rayleigh[c] * dr;
        m->ext[c] = m->ray[c] + MIE_EXT * dm + k_ozone[c] * doz;
    }
}

/* distance along (r, mu) to the sphere of radius R, the far root; -1: none */
static double to_sphere(double r, double mu, double R) {
    double disc = r * r * (mu * mu - 1.0) + R * R;
    if (disc < 0) return -1;
    return -r * mu + sqrt(disc);
}

/* distance to the ground, or -1 where the ray misses it */
static double to_ground(double r, double mu) {
    if (mu >= 0) return -1;
    double disc = r * r * (mu * mu - 1.0) + R_GROUND * R_GROUND;
    if (disc < 0) return -1;
    double t = -r * mu - sqrt(disc);
    return t >= 0 ? t : -1;
}

/* ---- transmittance (Bruneton's parameterization) ------------------------ */

static const double k_H2 = R_TOP * R_TOP - R_GROUND * R_GROUND;

static void tr_from_uv(double xm, double xr, double *r, double *mu) {
    double H = sqrt(k_H2), rho = H * xr;
    *r = sqrt(rho * rho + R_GROUND * R_GROUND);
    double dmin = R_TOP - *r, dmax = rho + H, d = dmin + xm * (dmax - dmin);
    *mu = d <= 0 ? 1.0 : (H * H - rho * rho - d * d) / (2.0 * *r * d);
    *mu = *mu > 1 ? 1 : *mu < -1 ? -1 : *mu;
}

static void bilinear(const float *tab, int w, int h, double x, double y, float out[3]) {
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    y = y < 0 ? 0 : y > 1 ? 1 : y;
    double fx = x * (w - 1), fy = y * (h - 1);
    int x0 = (int)fx, y0 = (int)fy;
    if (x0 > w - 2) x0 = w - 2;
    if (y0 > h - 2) y0 = h - 2;
    double ax = fx - x0, ay = fy - y0;
    for (int c = 0; c < 3; c++) {
        double a = tab[(y0 * w + x0) * 3 + c], b = tab[(y0 * w + x0 + 1) * 3 + c];
        double d = tab[((y0 + 1) * w + x0) * 3 + c], e = tab[((y0 + 1) * w + x0 + 1) * 3 + c];
        out[c] = (float)((a + (b - a) * ax) * (1 - ay) + (d + (e - d) * ax) * ay);
    }
}

/* transmittance from radius r along mu to space; 0 where the ground is hit */
static void tr_lookup(const _oak_atmosphere *a, double r, double mu, float out[3]) {
    if (to_ground(r, mu) >= 0) {
        out[0] = out[1] = out[2] = 0;
        return;
    }
    if (r > R_TOP) r = R_TOP;
    if (r < R_GROUND) r = R_GROUND;
    double H = sqrt(k_H2), rho = sqrt(fmax(r * r - R_GROUND * R_GROUND, 0));
    double d = fmax(to_sphere(r, mu, R_TOP), 0), dmin = R_TOP - r, dmax = rho + H;
    double xm = dmax > dmin ? (d - dmin) / (dmax - dmin) : 0, xr = rho / H;
    bilinear(&a->tr[0][0][0], TR_W, TR_H, xm, xr, out);
}

/* rows [begin, end) of the transmittance table (a job) */
static void transmittance_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    _oak_atmosphere *a = user;
    for (int j = (int)begin; j < (int)end; j++) {
        for (int i = 0; i < TR_W; i++) {
            double r, mu;
            tr_from_uv((double)i / (TR_W - 1), (double)j / (TR_H - 1), &r, &mu);
            double len = fmax(to_sphere(r, mu, R_TOP), 0), dt = len / TR_STEPS;
            double depth[3] = {0, 0, 0};
            for (int s = 0; s < TR_STEPS; s++) {
                double t = (s + 0.5) * dt;
                double h = sqrt(r * r + t * t + 2 * r * mu * t) - R_GROUND;
                medium m;
                medium_at(h, &m);
                for (int c = 0; c < 3; c++) depth[c] += m.ext[c] * dt;
            }
            for (int c = 0; c < 3; c++) a->tr[j][i][c] = (float)exp(-depth[c]);
        }
    }
}

/* ---- multiple scattering (Hillaire 2020, section 5.5) -------------------- */

static void ms_lookup(const _oak_atmosphere *a, double r, double mu_s, float out[3]) {
    bilinear(&a->ms[0][0][0], MS_N, MS_H, (mu_s + 1) * 0.5, (r - R_GROUND) / (R_TOP - R_GROUND),
             out);
}

/* rows [begin, end) of the multiple-scattering table (a job) */
static void multiscatter_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    _oak_atmosphere *a = user;
    for (int j = (int)begin; j < (int)end; j++) {
        double r =
            R_GROUND + fmin((double)j / (MS_H - 1) * (R_TOP - R_GROUND), R_TOP - R_GROUND - 0.01);
        r = fmax(r, R_GROUND + 0.001);
        for (int i = 0; i < MS_N; i++) {
            double mu_s = 2.0 * i / (MS_N - 1) - 1.0;
            double sun[3] = {sqrt(fmax(1 - mu_s * mu_s, 0)), mu_s, 0};
            double l2[3] = {0, 0, 0}, f[3] = {0, 0, 0};
            for (int dj = 0; dj < MS_DIRS; dj++) {
                for (int di = 0; di < MS_DIRS; di++) {
                    double ct = 1.0 - 2.0 * (dj + 0.5) / MS_DIRS, st = sqrt(fmax(1 - ct * ct, 0));
                    double ph = 2.0 * PI_D * (di + 0.5) / MS_DIRS;
                    double dir[3] = {st * cos(ph), ct, st * sin(ph)};
                    double tg = to_ground(r, ct), tmax = tg >= 0 ? tg : to_sphere(r, ct, R_TOP);
                    double dt = fmax(tmax, 0) / MS_STEPS;
                    double L[3] = {0, 0, 0}, F[3] = {0, 0, 0}, thr[3] = {1, 1, 1};
                    for (int s = 0; s < MS_STEPS; s++) {
                        double t = (s + 0.5) * dt;
                        double p[3] = {dir[0] * t, r + dir[1] * t, dir[2] * t};
                        double rp = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
                        double mus = (p[0] * sun[0] + p[1] * sun[1] + p[2] * sun[2]) / rp;
                        medium m;
                        medium_at(rp - R_GROUND, &m);
                        float ts[3];
                        tr_lookup(a, rp, mus, ts);
                        for (int c = 0; c < 3; c++) {
                            double scat = m.ray[c] + m.mie, ext = m.ext[c];
                            double st_ = exp(-ext * dt);
                            double S = ts[c] * scat / (4 * PI_D);
                            L[c] += thr[c] * (S - S * st_) / ext;
                            F[c] += thr[c] * (scat - scat * st_) / ext;
                            thr[c] *= st_;
                        }
                    }
                    if (tg >= 0) { /* the lit ground bounces light back up */
                        double p[3] = {dir[0] * tg, r + dir[1] * tg, dir[2] * tg};
                        double rp = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
                        double nl = (p[0] * sun[0] + p[1] * sun[1] + p[2] * sun[2]) / rp;
                        float ts[3];
                        tr_lookup(a, rp + 1e-4, nl, ts);
                        for (int c = 0; c < 3; c++)
                            L[c] += ts[c] * thr[c] * fmax(nl, 0) * ALBEDO / PI_D;
                    }
                    for (int c = 0; c < 3; c++) {
                        l2[c] += L[c] / (MS_DIRS * MS_DIRS);
                        f[c] += F[c] / (MS_DIRS * MS_DIRS);
                    }
                }
            }
            for (int c = 0; c < 3; c++) a->ms[j][i][c] = (float)(l2[c] / (1.0 - f[c]));
        }
    }
}

/* The tables depend on the air alone: built once per process, on first
   use, and read by every bake after (66 ms on one core in a release build
   here, 36 ms on two; a bake then takes 12-35 ms). */
static _oak_atmosphere g_air;
static pthread_once_t g_air_once = PTHREAD_ONCE_INIT;

static void air_init(void) {
    /* rows on the job pool: each texel is its own, so any thread count
       gives the same tables */
    oak_parallel_for(TR_H, 1, transmittance_rows, &g_air);
    oak_parallel_for(MS_H, 1, multiscatter_rows, &g_air);
}

const _oak_atmosphere *_oak_atmosphere_get(void) {
    pthread_once(&g_air_once, air_init);
    return &g_air;
}

void _oak_atmosphere_transmittance(const _oak_atmosphere *a, double elevation_deg, float out[3]) {
    tr_lookup(a, R_GROUND + EYE_KM, sin(elevation_deg * DEG), out);
}

/* ---- sky view ---------------------------------------------------------- */

static double phase_rayleigh(double c) {
    return 3.0 / (16.0 * PI_D) * (1.0 + c * c);
}

static double phase_mie(double c) { /* Henyey-Greenstein */
    double g = MIE_G, d = 1.0 + g * g - 2.0 * g * c;
    return (1.0 - g * g) / (4.0 * PI_D * d * sqrt(d));
}

/* One step of a view ray from radius r (km) along v, sampled at distance
   t and dt long: the light l's single scattering through the transmittance
   table (0 in the earth's shadow) and the multiple scattering, integrated
   over the step's own transmittance into L, thr carried along. The sky
   view and the aerial perspective march the same step. */
static void scatter_step(const _oak_atmosphere *a, const double v[3], const double l[3], double r,
                         double t, double dt, double pr, double pm, double L[3], double thr[3]) {
    double p[3] = {v[0] * t, r + v[1] * t, v[2] * t};
    double rp = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    double mus = (p[0] * l[0] + p[1] * l[1] + p[2] * l[2]) / rp;
    medium m;
    medium_at(rp - R_GROUND, &m);
    float ts[3], ms[3];
    tr_lookup(a, rp, mus, ts); /* 0 in the earth's shadow */
    ms_lookup(a, rp, mus, ms);
    for (int c = 0; c < 3; c++) {
        double ext = m.ext[c], st = exp(-ext * dt);
        double S = ts[c] * (m.ray[c] * pr + m.mie * pm) + ms[c] * (m.ray[c] + m.mie);
        L[c] += thr[c] * (S - S * st) / ext;
        thr[c] *= st;
    }
}

void _oak_atmosphere_radiance(const _oak_atmosphere *a, const float view[3], const float light[3],
                              float out[3]) {
    double r = R_GROUND + EYE_KM;
    double v[3] = {view[0], view[1], view[2]}, l[3] = {light[0], light[1], light[2]};
    double cth = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
    double pr = phase_rayleigh(cth), pm = phase_mie(cth);
    double tg = to_ground(r, v[1]), tmax = tg >= 0 ? tg : to_sphere(r, v[1], R_TOP);
    double L[3] = {0, 0, 0}, thr[3] = {1, 1, 1}, prev = 0;
    for (int s = 0; s < SV_STEPS; s++) {
        double t1 = (double)(s + 1) / SV_STEPS;
        t1 = t1 * t1 * tmax;
        double dt = t1 - prev, t = prev + 0.3 * dt;
        prev = t1;
        scatter_step(a, v, l, r, t, dt, pr, pm, L, thr);
    }
    for (int c = 0; c < 3; c++) out[c] = (float)L[c];
}

void _oak_atmosphere_march(const _oak_atmosphere *a, double eye_km, const float view[3],
                           const float light[3], uint32_t n, const float *ends_km,
                           float (*scatter)[3], float (*trans)[3]) {
    double r = R_GROUND + fmin(fmax(eye_km, 0.0), R_TOP - R_GROUND - 0.01);
    double v[3] = {view[0], view[1], view[2]}, l[3] = {light[0], light[1], light[2]};
    double cth = v[0] * l[0] + v[1] * l[1] + v[2] * l[2];
    double pr = phase_rayleigh(cth), pm = phase_mie(cth);
    double L[3] = {0, 0, 0}, thr[3] = {1, 1, 1}, prev = 0;
    for (uint32_t k = 0; k < n; k++) {
        double dt = (fmax(ends_km[k], prev) - prev) / AP_SUBSTEPS;
        for (int s = 0; s < AP_SUBSTEPS; s++) {
            double t = prev + (s + 0.5) * dt;
            scatter_step(a, v, l, r, t, dt, pr, pm, L, thr);
        }
        prev = fmax(ends_km[k], prev);
        for (int c = 0; c < 3; c++) scatter[k][c] = (float)L[c], trans[k][c] = (float)thr[c];
    }
}

/* The sky from the ground for a light at elevation el: SV_W x SV_H, the
   azimuth from the light and the elevation each on a squared mapping. */
typedef struct sky_view_job {
    const _oak_atmosphere *a;
    float light[3];
    float *tab;
} sky_view_job;

static void sky_view_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const sky_view_job *job = user;
    const float *l = job->light;
    for (int j = (int)begin; j < (int)end; j++) {
        double y = (double)j / (SV_H - 1), el = 90.0 * y * y;
        for (int i = 0; i < SV_W; i++) {
            double x = (double)i / (SV_W - 1), az = PI_D * x * x;
            float v[3] = {(float)(cos(el * DEG) * cos(az)), (float)sin(el * DEG),
                          (float)(cos(el * DEG) * sin(az))};
            _oak_atmosphere_radiance(job->a, v, l, job->tab + (j * SV_W + i) * 3);
        }
    }
}

static void sky_view(const _oak_atmosphere *a, double light_el, float *tab) {
    sky_view_job job = {a, {(float)cos(light_el * DEG), (float)sin(light_el * DEG), 0}, tab};
    oak_parallel_for(SV_H, 4, sky_view_rows, &job);
}

static void sky_view_at(const float *tab, double el, double daz, float out[3]) {
    daz = fabs(fmod(daz, 360.0));
    if (daz > 180.0) daz = 360.0 - daz;
    bilinear(tab, SV_W, SV_H, sqrt(daz / 180.0), sqrt(fmax(el, 0) / 90.0), out);
}

/* ---- the image ------------------------------------------------------------ */

static double hash01(uint32_t i, uint32_t salt) {
    return (double)(_oak_world_hash_u32(i * 0x9E3779B9u + salt) >> 8) * (1.0 / 16777216.0);
}

/* texel of a direction, upper half only; false below the horizon */
static bool texel_of(const float d[3], uint32_t *x, uint32_t *y) {
    double u = atan2(d[0], -d[2]) / (2 * PI_D) + 0.5, v = acos(fmax(fmin(d[1], 1), -1)) / PI_D;
    int ix = (int)(u * IMG_W), iy = (int)(v * IMG_H);
    if (ix >= IMG_W) ix = IMG_W - 1;
    if (ix < 0) ix = 0;
    if (iy < 0) iy = 0;
    if (iy >= IMG_H / 2) return false;
    *x = (uint32_t)ix, *y = (uint32_t)iy;
    return true;
}

static void texel_dir(uint32_t x, uint32_t y, double d[3]) {
    double u = (x + 0.5) / IMG_W, v = (y + 0.5) / IMG_H;
    double az = (u - 0.5) * 2 * PI_D, th = v * PI_D;
    d[0] = sin(th) * sin(az), d[1] = cos(th), d[2] = -sin(th) * cos(az);
}

static double dot3(const double a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* A disc of angular radius `radius_deg` around `dir` at luminance `lum`
   (colour `tint`), lit where the side facing `sun` is: its phase. */
static void paint_disc(float *img, const float dir[3], const float sun[3], double radius_deg,
                       const float tint[3], double lum, double dark_share) {
    double sr = sin(radius_deg * DEG);
    /* toward the sun across the disc */
    double cs = sun[0] * dir[0] + sun[1] * dir[1] + sun[2] * dir[2];
    double s[3] = {sun[0] - dir[0] * cs, sun[1] - dir[1] * cs, sun[2] - dir[2] * cs};
    double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    if (sl < 1e-6) s[0] = 1, s[1] = 0, s[2] = 0, sl = 1;
    for (int k = 0; k < 3; k++) s[k] /= sl;
    double b[3] = {dir[1] * s[2] - dir[2] * s[1], dir[2] * s[0] - dir[0] * s[2],
                   dir[0] * s[1] - dir[1] * s[0]};
    double cos_i =
        -cs; /* phase angle ~ the angle between the sun and the eye, seen from the moon */
    /* only the rows the disc can touch */
    double th = acos(fmax(fmin(dir[1], 1), -1)) / DEG, reach = radius_deg * 1.2;
    int y0 = (int)floor((th - reach) / 180.0 * IMG_H), y1 = (int)ceil((th + reach) / 180.0 * IMG_H);
    y0 = y0 < 0 ? 0 : y0;
    y1 = y1 > IMG_H / 2 ? IMG_H / 2 : y1;
    for (uint32_t y = (uint32_t)y0; y < (uint32_t)y1; y++) {
        for (uint32_t x = 0; x < IMG_W; x++) {
            double d[3];
            texel_dir(x, y, d);
            double c = dot3(d, dir);
            if (c < cos(radius_deg * DEG * 1.2)) continue;
            double o[3] = {d[0] - dir[0] * c, d[1] - dir[1] * c, d[2] - dir[2] * c};
            double px = (o[0] * s[0] + o[1] * s[1] + o[2] * s[2]) / sr;
            double py = (o[0] * b[0] + o[1] * b[1] + o[2] * b[2]) / sr;
            double rr = px * px + py * py;
            if (rr >= 1.0) continue;
            bool lit = px >= -cos_i * sqrt(1.0 - py * py);
            double share = lit ? 1.0 : dark_share;
            float *t = img + ((size_t)y * IMG_W + x) * 4;
            for (int k = 0; k < 3; k++) t[k] += (float)(lum * share * tint[k]);
        }
    }
}

#define STAR_COUNT 900

/* the sky above the horizon from the lights' sky views (a job over rows) */
typedef struct fill_job {
    float *img;
    const float *sun_tab, *moon_tab; /* NULL: that light is off */
    double sun_lux, moon_lux, sun_az, moon_az;
} fill_job;

static void fill_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const fill_job *j = user;
    /* the night's floor: airglow and a little light from towns, cd/m^2 */
    static const float k_night[3] = {3.0e-4f, 3.5e-4f, 4.5e-4f};
    for (uint32_t y = begin; y < end; y++) {
        double el = 90.0 - (y + 0.5) * 180.0 / IMG_H;
        for (uint32_t x = 0; x < IMG_W; x++) {
            double az = ((x + 0.5) / IMG_W - 0.5) * 360.0;
            float *t = j->img + ((size_t)y * IMG_W + x) * 4, s[3] = {0, 0, 0}, m[3] = {0, 0, 0};
            if (j->sun_tab) sky_view_at(j->sun_tab, el, az - j->sun_az, s);
            if (j->moon_tab) sky_view_at(j->moon_tab, el, az - j->moon_az, m);
            for (int c = 0; c < 3; c++)
                t[c] = (float)(s[c] * j->sun_lux + m[c] * j->moon_lux) + k_night[c];
            t[3] = 1.0f;
        }
    }
}

oak_result _oak_sky_bake_image(_oak_sky_bake *out, const _oak_atmosphere *a,
                               const _oak_sky_bake_desc *d) {
    memset(out, 0, sizeof *out);
    float *img = oak_alloc((size_t)IMG_W * IMG_H * 4 * sizeof(float));
    float *sun_tab = oak_alloc((size_t)SV_W * SV_H * 3 * sizeof(float));
    float *moon_tab = oak_alloc((size_t)SV_W * SV_H * 3 * sizeof(float));
    if (!img || !sun_tab || !moon_tab) {
        oak_free(img), oak_free(sun_tab), oak_free(moon_tab);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "sky bake: out of memory");
    }
    memset(img, 0, (size_t)IMG_W * IMG_H * 4 * sizeof(float));
    double sun_el = asin(fmax(fmin(d->sun_dir[1], 1), -1)) / DEG;
    double moon_el = asin(fmax(fmin(d->moon_dir[1], 1), -1)) / DEG;
    double sun_az = atan2(d->sun_dir[0], -d->sun_dir[2]) / DEG;
    double moon_az = atan2(d->moon_dir[0], -d->moon_dir[2]) / DEG;
    bool sun_on = d->sun_lux > 0 && sun_el > -20.0, moon_on = d->moon_lux > 0 && moon_el > -5.0;
    if (sun_on) sky_view(a, sun_el, sun_tab);
    if (moon_on) sky_view(a, moon_el, moon_tab);
    fill_job fj = {
        img,    sun_on ? sun_tab : NULL, moon_on ? moon_tab : NULL, d->sun_lux, d->moon_lux, sun_az,
        moon_az};
    oak_parallel_for(IMG_H / 2, 8, fill_rows, &fj);
    /* stars: fixed on the celestial sphere (a hash gives each its right
       ascension, declination, brightness and tint), turned by the sidereal
       time; painted about ten times brighter than real ones would cover a
       texel, so the night camera sees them; dimmed by the air toward them */
    double phi = d->latitude * DEG;
    for (uint32_t i = 0; i < STAR_COUNT; i++) {
        double ra = 360.0 * hash01(i, 11), dec = asin(2.0 * hash01(i, 23) - 1.0) / DEG;
        double bright = 1.2 * pow(hash01(i, 37), 5.0), warm = hash01(i, 41);
        double h = (d->sidereal_deg - ra) * DEG;
        double el = asin(sin(phi) * sin(dec * DEG) + cos(phi) * cos(dec * DEG) * cos(h)) / DEG;
        if (el <= 0.5) continue;
        double az = atan2(sin(h), cos(h) * sin(phi) - tan(dec * DEG) * cos(phi)) / DEG + 180.0;
        float dir[3], tr[3];
        _oak_sky_direction(el, az, dir);
        uint32_t x, y;
        if (!texel_of(dir, &x, &y)) continue;
        _oak_atmosphere_transmittance(a, el, tr);
        float tint[3] = {(float)(0.8 + 0.3 * warm), 0.95f, (float)(1.2 - 0.4 * warm)};
        float *t = img + ((size_t)y * IMG_W + x) * 4;
        for (int c = 0; c < 3; c++) t[c] += (float)(bright * tint[c] * tr[c]);
    }
    /* the moon's disc, 5 degrees across (ten times the real one) so its
       phase reads; its light is a tenth of the moon's, so the sky light
       hardly counts the moon twice; the dark part shows earthshine */
    if (moon_el > -3.0) {
        float tr[3];
        _oak_atmosphere_transmittance(a, fmax(moon_el, 0), tr);
        double radius = 2.5, omega = PI_D * pow(radius * DEG, 2);
        double lum = 0.1 * OAK_SKY_FULL_MOON_LUX_TOA / omega;
        paint_disc(img, d->moon_dir, d->sun_dir, radius, tr, lum, 0.02);
    }
    /* No sun disc: at 0.7 degrees a texel, any texel it touches clips to
       white and shows as a square block; the forward Mie glow stands in for
       it until the sky shading draws the disc itself. */
    /* the sky's light on a level card, and the horizon's colour */
    double e[3] = {0, 0, 0}, hz[3] = {0, 0, 0};
    int hn = 0;
    for (uint32_t y = 0; y < IMG_H / 2; y++) {
        double th = (y + 0.5) * PI_D / IMG_H;
        double w = cos(th) * sin(th) * (2 * PI_D / IMG_W) * (PI_D / IMG_H);
        bool horizon = 90.0 - th / DEG < 3.0;
        for (uint32_t x = 0; x < IMG_W; x++) {
            const float *t = img + ((size_t)y * IMG_W + x) * 4;
            for (int c = 0; c < 3; c++) {
                e[c] += w * t[c];
                if (horizon) hz[c] += t[c];
            }
            hn += horizon;
        }
    }
    for (int c = 0; c < 3; c++) {
        out->sky_irradiance[c] = (float)e[c];
        out->horizon[c] = hn ? (float)(hz[c] / hn) : 0;
    }
    oak_free(sun_tab);
    oak_free(moon_tab);
    out->rgba = img;
    out->width = IMG_W;
    out->height = IMG_H;
    return OAK_OK;
}
