/* The shading kernel's lane lookups held bit for bit to the scalar functions
 * they replace, at every lane width the CPU has (8 AVX2, 4 SSE4.1, 1):
 * the key light's cascade filter (cascade pick, blend band, projection, the
 * receiver plane and every PCF tap, on and off the map and across tiles)
 * against _oak_cpu_sun_shadow, and the sky light's reads (octahedral
 * bilinear across the seams, the two prefiltered levels, the split-sum
 * table) against _oak_sky_irradiance, _oak_sky_specular and _oak_sky_brdf.
 * Random points, plus the edge cases by hand (zero and axis directions,
 * NaN and out-of-range roughness). And the surface set-up in lanes against
 * _oak_cpu_surface: every material flag the set-up reads, broadcast and
 * gathered batches, a short last batch. And the material prep in lanes
 * against _oak_cpu_shade_prep: textured and empty slots, normal maps,
 * nearest/bilinear/trilinear taps over mips, materials it leaves to the
 * scalar prep, batches at any lane offset, every wrap mode far outside
 * [0, 1] on power-of-two and other sizes. And the mip level's log2
 * (cpu_log2_level): its error bound over every float mantissa in (1, 4)
 * and a stride of them to 2^32, exact at powers of two, monotonic, and
 * each lane width equal to it bit for bit. And the exp2 fog's 2^y
 * (cpu_exp2): its relative error bound against exp2 in double over a
 * stride of every float f in [-1/2, 1/2] (the polynomial's whole domain)
 * and of the fog's y in [-125, 0] (and on to 127), exact at whole y, the
 * clamps, the fog's transmittance against e^(-fd^2), and each lane width
 * equal to it bit for bit. */
#include <stddef.h>

#include "oak_test.h"

#include "backend/cpu/cpu_exp2.h"
#include "backend/cpu/cpu_internal.h"
#include "backend/cpu/cpu_sample.h"
#include "render/skylight.h"
#include "shaders/common/oak_gpu.h"

typedef void (*sun_fn)(const cpu_backend *, uint32_t, const float *, const float *, float *);
typedef void (*sky_fn)(const float *, uint32_t, const float *, const float *, const float *,
                       float *);

static const char *const k_name[3] = {"avx2", "sse4", "scalar"};
static const sun_fn k_sun[3] = {_oak_cpu_lanes_sun_avx2, _oak_cpu_lanes_sun_sse4,
                                _oak_cpu_lanes_sun_scalar};
static const sky_fn k_sky[3] = {_oak_cpu_lanes_sky_avx2, _oak_cpu_lanes_sky_sse4,
                                _oak_cpu_lanes_sky_scalar};

static bool has_isa(int i) {
    __builtin_cpu_init();
    if (i == 0) return __builtin_cpu_supports("avx2");
    if (i == 1) return __builtin_cpu_supports("sse4.1");
    return true;
}

static uint32_t g_rng = 12345u;
static float rnd(float lo, float hi) { /* uniform in [lo, hi) */
    g_rng = g_rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(g_rng >> 8) / 16777216.0f;
}

/* the number of floats that differ in bits */
static uint32_t bits_differ(const float *a, const float *b, uint32_t n) {
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++) d += memcmp(a + i, b + i, sizeof(float)) != 0;
    return d;
}

#define SUN_N  3000
#define SHADOW 256 /* texels across a cascade: 4 x 4 tiles of 64 */

TEST(laneSunShadowEqualsScalar) {
    static float maps[3][SHADOW * SHADOW];
    static float P[SUN_N * 3], Ng[SUN_N * 3], ref[SUN_N], got[SUN_N];
    cpu_backend *b = calloc(1, sizeof *b);
    oak_render_view *v = calloc(1, sizeof *v);
    oak_render_light sun;
    memset(&sun, 0, sizeof sun);
    float d[3] = {0.3f, -0.8f, 0.2f}, dl = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) sun.direction[k] = d[k] / dl;
    sun.light.type = OAK_LIGHT_DIRECTIONAL;
    v->lights = &sun;
    v->light_count = 1;
    v->key_light = 0;
    v->znear = 0.1f;
    /* view depth = 1.5 y + 0.1 z + 20: from before the first slice to past the last */
    v->view[1][2] = -1.5f, v->view[2][2] = -0.1f, v->view[3][2] = -20.0f;
    v->cascade_count = 3;
    for (uint32_t c = 0; c < 3; c++) {
        oak_shadow_cascade *cas = &v->cascades[c];
        float ext = 10.0f * (float)(1u << c);
        cas->split_far = 12.0f * (float)(1u << c);
        cas->texel_world = 2.1f * ext / SHADOW;   /* not a power of two: rounding shows */
        cas->depth_range = c == 1 ? 0.0f : 40.0f; /* 0: read as 1 */
        cas->view_proj[0][0] = 1.0f / ext, cas->view_proj[1][0] = 0.01f;
        cas->view_proj[2][1] = 1.0f / ext, cas->view_proj[0][1] = -0.02f;
        cas->view_proj[1][2] = 1.0f / 40.0f, cas->view_proj[3][2] = 0.5f;
        cas->view_proj[3][3] = 1.0f;
        /* every entry in use, so no sum in the projection is exact by chance */
        cas->view_proj[2][0] = 0.013f, cas->view_proj[1][1] = 0.017f;
        cas->view_proj[0][2] = 0.003f, cas->view_proj[2][2] = -0.002f;
        cas->view_proj[3][0] = 0.031f, cas->view_proj[3][1] = -0.027f;
        if (c == 2) cas->view_proj[0][3] = 0.002f; /* w != 1: the divide */
        /* blocks of 16 x 16 texels near or far, in the tiled layout's order */
        for (uint32_t i = 0; i < SHADOW * SHADOW; i++) {
            uint32_t h = (i / 256) * 2654435761u ^ c * 40503u;
            maps[c][i] = (h >> 13) & 1 ? 0.8f : 0.2f;
        }
        b->shadow_read[c] = maps[c];
    }
    b->view = v;
    b->shadow_edge = SHADOW;
    _oak_cpu_shadow_setup(b, v);
    for (uint32_t i = 0; i < SUN_N; i++) {
        P[i * 3 + 0] = rnd(-12, 12); /* the first cascade's map is +-10 across */
        P[i * 3 + 1] = rnd(-20, 20);
        P[i * 3 + 2] = rnd(-12, 12);
        if (i >= SUN_N / 2 && i % 8) { /* the second half in runs of eight a texel or so apart, as
                                          a pixel row's: whole batches read rows of taps, and
                                          where a run meets a tile's edge or the map's, taps */
            for (int k = 0; k < 3; k++) P[i * 3 + k] = P[(i - 1) * 3 + k];
            P[i * 3 + 0] += 0.07f;
            P[i * 3 + 2] += 0.011f * (float)(i % 3);
        }
        float n[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
        if (i % 7 == 0) n[0] = n[2] = 0; /* straight up or down: no slope */
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) Ng[i * 3 + k] = l > 0 ? n[k] / l : 0;
    }
    for (uint32_t K = 1; K <= OAK_SHADOW_PCF_SIZE; K++) {
        v->post.shadow_filter = K;
        uint32_t lit = 0, dark = 0, part = 0;
        for (uint32_t i = 0; i < SUN_N; i++) {
            ref[i] = _oak_cpu_sun_shadow(b, P + i * 3, Ng + i * 3);
            lit += ref[i] == 1.0f, dark += ref[i] == 0.0f, part += ref[i] > 0 && ref[i] < 1;
        }
        fprintf(stderr, "  K=%u: %u lit, %u dark, %u in between of %u\n", K, lit, dark, part,
                SUN_N);
        CHECK(lit >= 300 && dark >= 300 && part >= 150); /* every kind of pixel, in numbers */
        for (int w = 0; w < 3; w++) {
            if (!has_isa(w)) continue;
            for (uint32_t i = 0; i < SUN_N; i++) got[i] = -1;
            k_sun[w](b, SUN_N, P, Ng, got);
            uint32_t diff = bits_differ(ref, got, SUN_N);
            if (diff) fprintf(stderr, "  %s K=%u: %u of %u differ\n", k_name[w], K, diff, SUN_N);
            CHECK_EQ_INT(diff, 0);
            /* a count that is not the width's multiple: the last batch masked */
            k_sun[w](b, 13, P, Ng, got);
            CHECK_EQ_INT(bits_differ(ref, got, 13), 0);
        }
    }
    free(v);
    free(b);
}

#define SKY_N 4000

TEST(laneSkyReadsEqualScalar) {
    size_t floats = ((size_t)OAK_GPU_SKY_SPEC_AT + OAK_GPU_SKY_SPEC_TEXELS) * 4;
    float *sky = malloc(floats * sizeof *sky);
    static float dir[SKY_N * 3], rough[SKY_N], ndv[SKY_N], ref[SKY_N * 8], got[SKY_N * 8];
    for (size_t i = 0; i < floats; i++) sky[i] = rnd(0, 4);
    for (uint32_t i = 0; i < SKY_N; i++) {
        for (int k = 0; k < 3; k++) dir[i * 3 + k] = rnd(-1, 1);
        rough[i] = rnd(-0.1f, 1.1f);
        ndv[i] = rnd(-0.1f, 1.1f);
    }
    /* by hand: the axes, no direction at all, the seams, level boundaries, NaN */
    static const float axes[7][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0},
                                     {0, 0, 1}, {0, 0, -1}, {0, 0, 0}};
    for (uint32_t i = 0; i < 7; i++) memcpy(dir + i * 3, axes[i], sizeof axes[i]);
    for (uint32_t i = 7; i < 200; i++) dir[i * 3 + 1] = -1e-3f * (float)(i % 5); /* the fold */
    for (uint32_t i = 0; i < 6; i++) rough[i] = 0.2f * (float)i, ndv[i] = 0.2f * (float)i;
    rough[6] = ndv[6] = NAN;
    /* whole batches on one roughness (one pair of specular levels on every
       lane, looked up once) between two levels, and on the last one */
    for (uint32_t i = 256; i < 512; i++) rough[i] = i < 384 ? 0.37f : 1.0f;
    for (uint32_t i = 0; i < SKY_N; i++) {
        _oak_sky_irradiance(sky, dir + i * 3, ref + i * 8);
        _oak_sky_specular(sky, dir + i * 3, rough[i], ref + i * 8 + 3);
        _oak_sky_brdf(sky, ndv[i], rough[i], ref + i * 8 + 6, ref + i * 8 + 7);
    }
    uint32_t varied = 0;
    for (uint32_t i = 1; i < SKY_N; i++) varied += memcmp(ref + i * 8, ref, 8 * sizeof(float)) != 0;
    CHECK(varied == SKY_N - 1); /* no constant answer */
    for (int w = 0; w < 3; w++) {
        if (!has_isa(w)) continue;
        for (uint32_t i = 0; i < SKY_N * 8; i++) got[i] = -1;
        k_sky[w](sky, SKY_N, dir, rough, ndv, got);
        uint32_t diff = bits_differ(ref, got, SKY_N * 8);
        if (diff) fprintf(stderr, "  %s: %u of %u differ\n", k_name[w], diff, SKY_N * 8);
        CHECK_EQ_INT(diff, 0);
    }
    free(sky);
}

/* ---- the surface set-up: _oak_cpu_surface against each width's lanes */

#define SURF_TRIS 24
#define SURF_PIX  4000

/* the fields _oak_cpu_surface writes for this material, equal in bits */
static bool surface_same(const cpu_surface *a, const cpu_surface *b) {
    return !memcmp(a, b, offsetof(cpu_surface, back)) && a->back == b->back &&
           !memcmp(&a->gtao, &b->gtao, sizeof a->gtao);
}

TEST(laneSurfaceEqualsScalar) {
    cpu_backend *b = calloc(1, sizeof *b);
    oak_render_view *v = calloc(1, sizeof *v);
    cpu_pass *p = calloc(1, sizeof *p);
    static cpu_draw draws[SURF_TRIS];
    static cpu_material mats[SURF_TRIS];
    static cpu_tri_ctx tris[SURF_TRIS];
    static float attr[SURF_TRIS][3][CPU_ATTR];
    static const cpu_tri_ctx *tc[SURF_PIX];
    static uint32_t px[SURF_PIX], py[SURF_PIX];
    static cpu_surface ref[SURF_PIX], got[SURF_PIX];
    b->view = v;
    p->width = 160, p->height = 90, p->flip_y = true;
    p->jitter[0] = 0.3f, p->jitter[1] = -0.2f;
    for (int i = 0; i < SURF_TRIS; i++) {
        cpu_draw *d = &draws[i];
        cpu_material *m = &mats[i];
        cpu_tri_ctx *t = &tris[i];
        float(*W)[4] = (float(*)[4])d->world;
        for (int r = 0; r < 4; r++)
            for (int k = 0; k < 3; k++) W[r][k] = (r == k ? 1.0f : 0.0f) + rnd(-0.4f, 0.4f);
        W[3][3] = 1;
        for (int k = 0; k < 9; k++) d->nmat[k] = (k % 4 == 0 ? 1.0f : 0.0f) + rnd(-0.3f, 0.3f);
        for (int k = 0; k < 4; k++) d->color[k] = rnd(0.5f, 1.5f);
        /* every mix of what the set-up reads, one triangle each */
        m->textured = i % 2 == 0;
        m->uv1 = i % 4 == 0;
        m->fx_map = i % 6 == 0;
        m->desc.fx.triplanar = i % 12 == 0 ? 2.0f : 0.0f;
        m->normal_map = i % 3 == 0;
        m->aniso = i == 5;
        m->coat_normal = i == 7;
        m->desc.water = i % 5 == 1;
        m->desc.double_sided = i % 2 == 1;
        float clip[3][4];
        for (int j = 0; j < 3; j++) {
            float w = rnd(0.5f, 4.0f);
            clip[j][0] = rnd(-1.2f, 1.2f) * w, clip[j][1] = rnd(-1.2f, 1.2f) * w;
            clip[j][2] = rnd(0, 1) * w, clip[j][3] = w;
            for (int k = 0; k < CPU_ATTR; k++) attr[i][j][k] = rnd(-1, 1);
            if (i == 8) /* normals that cancel: Ng instead */
                for (int k = 0; k < 3; k++) attr[i][j][CPU_ATTR_N + k] = 0;
            if (i == 11) /* a tangent of length 0: left as it is */
                for (int k = 0; k < 3; k++) attr[i][j][CPU_ATTR_T + k] = 0;
            for (int k = 0; k < 3; k++) t->pos[j][k] = rnd(-3, 3);
            t->attr[j] = attr[i][j];
        }
        if (i == 10) clip[2][3] = -clip[2][3]; /* a vertex behind the eye */
        _oak_cpu_bary_setup(&t->bary, p, clip[0], clip[1], clip[2]);
        t->id = (uint32_t)i + 1;
        t->d = d, t->mat = m;
        float n[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) t->Ng[k] = n[k] / l;
        t->back = i % 4 == 1 || i % 4 == 2;
        _oak_cpu_surface_consts(t);
    }
    /* runs of one triangle (whole batches broadcast), runs of three (a
       batch of two to four triangles: each one broadcast, or their constants
       gathered), runs of seven (a batch of two whose second starts at any
       lane, the last one's alone too: not one triangle however like it the
       lanes before look), runs of three of one flag set, then any mix */
    /* triangles of one set of flags (the set most share): runs of three of
       them make whole batches of two or three triangles whose lanes all
       take the same fields (the 8-lane store's rows merged from each
       triangle's) */
    uint32_t alike[SURF_TRIS], nalike = 0;
    for (int i = 0; i < SURF_TRIS; i++) {
        uint32_t n = 0, set[SURF_TRIS];
        for (int k = 0; k < SURF_TRIS; k++)
            if (tris[k].sflags == tris[i].sflags) set[n++] = (uint32_t)k;
        if (n > nalike) memcpy(alike, set, n * sizeof *set), nalike = n;
    }
    CHECK(nalike >= 3);
    for (uint32_t i = 0; i < SURF_PIX; i++) {
        uint32_t k = i < SURF_PIX / 4       ? (i / 24) % SURF_TRIS
                     : i < SURF_PIX / 2     ? (i / 3) % SURF_TRIS
                     : i < SURF_PIX * 5 / 8 ? (i / 7) % SURF_TRIS
                     : i < SURF_PIX * 3 / 4 ? alike[(i / 3) % nalike]
                                            : (uint32_t)rnd(0, SURF_TRIS);
        tc[i] = &tris[k];
        px[i] = (uint32_t)rnd(0, (float)p->width), py[i] = (uint32_t)rnd(0, (float)p->height);
        /* every other run of 24 along a row, pixel after pixel (the
           kernel's coordinates from the first) */
        if (i < SURF_PIX / 2 && i / 24 % 2 == 0 && i % 24) px[i] = px[i - 1] + 1, py[i] = py[i - 1];
    }
    static const cpu_surface_fn k_surf[3] = {
        _oak_cpu_surface_lanes_avx2, _oak_cpu_surface_lanes_sse4, _oak_cpu_surface_lanes_scalar};
    for (int pass = 0; pass < 2; pass++) {
        v->post.render_scale = pass ? 0.5f : 1.0f; /* the mip bias on the derivatives */
        memset(ref, 0x5a, sizeof ref);
        uint32_t flat = 0, turned = 0;
        for (uint32_t i = 0; i < SURF_PIX; i++) {
            _oak_cpu_surface(b, p, tc[i], px[i], py[i], &ref[i]);
            flat += !memcmp(ref[i].Nv, tc[i]->Ng, sizeof ref[i].Nv);
            turned += tc[i]->back && tc[i]->mat->desc.double_sided;
        }
        CHECK(flat > 50 && turned > 500); /* the Ng fallback and the flip both run */
        uint32_t varied = 0;
        for (uint32_t i = 1; i < SURF_PIX; i++) varied += memcmp(ref[i].P, ref[0].P, 12) != 0;
        CHECK(varied == SURF_PIX - 1);
        for (int w = 0; w < 3; w++) {
            if (!has_isa(w)) continue;
            memset(got, 0x5a, sizeof got);
            k_surf[w](b, p, SURF_PIX, tc, px, py, got);
            uint32_t diff = 0;
            for (uint32_t i = 0; i < SURF_PIX; i++) diff += !surface_same(&ref[i], &got[i]);
            if (diff) fprintf(stderr, "  %s: %u of %u differ\n", k_name[w], diff, SURF_PIX);
            CHECK_EQ_INT(diff, 0);
            /* a count that is not the width's multiple: the last batch short */
            memset(got, 0x5a, sizeof got);
            k_surf[w](b, p, 13, tc + SURF_PIX / 2, px + SURF_PIX / 2, py + SURF_PIX / 2, got);
            for (uint32_t i = 0; i < 13; i++) CHECK(surface_same(&ref[SURF_PIX / 2 + i], &got[i]));
            cpu_surface untouched;
            memset(&untouched, 0x5a, sizeof untouched);
            CHECK(!memcmp(&got[13], &untouched, sizeof untouched)); /* nothing past n */
        }
    }
    free(p);
    free(v);
    free(b);
}

#define LOG2_N 4096

typedef void (*log2_fn)(const float *, float *, uint32_t);

TEST(log2LevelBound) {
    /* the bound, over every mantissa of (1, 4) and every 61st to 2^32 */
    double worst = 0;
    uint32_t checked = 0, nonmono = 0;
    float prev = 0;
    for (uint32_t e = 0; e < 32; e++)
        for (uint32_t mb = 0; mb < 0x800000u; mb += e < 2 ? 1 : 61) {
            uint32_t u = ((e + 127u) << 23) | mb;
            float m;
            memcpy(&m, &u, sizeof m);
            if (!(m > 1)) continue;
            float a = cpu_log2_level(m);
            double half = 0.5 * ((double)nextafterf(a, INFINITY) - (double)a);
            double err = fabs((double)a - log2((double)m)) - half;
            if (err > worst) worst = err;
            if (e < 2) nonmono += a < prev;
            prev = a, checked++;
        }
    fprintf(stderr, "  log2 level: %u values, worst %.3g beyond half an ulp (bound %.3g)\n",
            checked, worst, (double)CPU_LOG2_BOUND);
    CHECK(worst <= CPU_LOG2_BOUND);
    CHECK_EQ_INT(nonmono, 0);
    for (int k = 0; k < 32; k++) CHECK(cpu_log2_level(ldexpf(1.0f, k)) == (float)k);
    CHECK(cpu_log2_level(INFINITY) >= 32.0f); /* clamps to the last level as log2f's +inf */
    /* each lane width gives the scalar bits */
    static float m[LOG2_N], ref[LOG2_N], got[LOG2_N];
    for (uint32_t i = 0; i < LOG2_N; i++)
        m[i] = i % 5 == 0   ? ldexpf(1.0f, (int)(i % 40))
               : i % 5 == 1 ? 1.0f + rnd(0, 1e-5f)
                            : ldexpf(rnd(1, 2), (int)(i % 24));
    m[7] = INFINITY, m[8] = nextafterf(1.0f, 2.0f), m[9] = nextafterf(CPU_LOG2_SQRT2, 2.0f);
    for (uint32_t i = 0; i < LOG2_N; i++) ref[i] = cpu_log2_level(m[i]);
    static const log2_fn k_log2[3] = {_oak_cpu_log2_lanes_avx2, _oak_cpu_log2_lanes_sse4,
                                      _oak_cpu_log2_lanes_scalar};
    for (int w = 0; w < 3; w++) {
        if (!has_isa(w)) continue;
        memset(got, 0x5a, sizeof got);
        k_log2[w](m, got, LOG2_N);
        uint32_t d = bits_differ(ref, got, LOG2_N);
        if (d) fprintf(stderr, "  %s: %u of %u differ\n", k_name[w], d, LOG2_N);
        CHECK_EQ_INT(d, 0);
    }
}

#define EXP2_N 4096

/* the relative error of cpu_exp2(y) against 2^y in double */
static double exp2_err(float y) {
    return fabs((double)cpu_exp2(y) / exp2((double)y) - 1.0);
}

TEST(exp2Bound) {
    /* the polynomial's domain: f in [-1/2, 1/2] is y itself where n is 0,
       and every f that occurs is one of these floats (y - n is exact) */
    double worst = 0;
    uint32_t checked = 0;
    for (uint32_t sg = 0; sg < 2; sg++)
        for (uint32_t u = (127u - 24u) << 23; u <= 0x3f000000u; u += 13) {
            uint32_t v = u | sg << 31;
            float f;
            memcpy(&f, &v, sizeof f);
            double e = exp2_err(f);
            if (e > worst) worst = e;
            checked++;
        }
    /* the fog's range (y from -1/2 to -125), and 1/2 to 127, every 101st float */
    for (uint32_t sg = 0; sg < 2; sg++)
        for (uint32_t u = 0x3f000000u; u <= 0x42fe0000u; u += 101) { /* 1/2 to 127 */
            uint32_t v = u | sg << 31;
            float y;
            memcpy(&y, &v, sizeof y);
            if (y < CPU_EXP2_LO) break; /* clamped: checked below */
            double e = exp2_err(y);
            if (e > worst) worst = e;
            checked++;
        }
    fprintf(stderr, "  exp2: %u values, worst relative error %.3g (bound %.3g)\n", checked, worst,
            (double)CPU_EXP2_BOUND);
    CHECK(worst <= CPU_EXP2_BOUND);
    CHECK(checked > 1000000);
    /* exact at whole y, 1 at 0, clamped below (NaN too) and above */
    uint32_t inexact = 0;
    for (int k = -125; k <= 127; k++) inexact += cpu_exp2((float)k) != ldexpf(1.0f, k);
    CHECK_EQ_INT(inexact, 0);
    CHECK(cpu_exp2(-0.0f) == 1.0f);
    CHECK(cpu_exp2(-1000.0f) == ldexpf(1.0f, -125));
    CHECK(cpu_exp2(-INFINITY) == ldexpf(1.0f, -125));
    CHECK(cpu_exp2(NAN) == ldexpf(1.0f, -125));
    CHECK(cpu_exp2(INFINITY) == ldexpf(1.0f, 127));
    /* the fog's transmittance against e^(-fd^2): the rounding of fd^2 and
       of its product with log2 e (3 x 2^-24 of y, with log2 e's own) moves
       2^y by at most ln 2 |y| x 1.8e-7 = fd^2 x 1.8e-7 of itself */
    double fworst = 0;
    for (uint32_t i = 0; i <= 200000; i++) {
        float fd = 9.3f * (float)i / 200000.0f; /* to y = -125 */
        double t = exp(-(double)fd * fd);
        double e = fabs((double)cpu_fog_transmittance(fd) / t - 1.0) - 1.8e-7 * (double)fd * fd;
        if (e > fworst) fworst = e;
    }
    fprintf(stderr, "  fog: worst %.3g beyond fd^2 x 1.8e-7\n", fworst);
    CHECK(fworst <= CPU_EXP2_BOUND);
    /* each lane width gives the scalar bits, ties, clamps and NaN included */
    static float y[EXP2_N], ref[EXP2_N], got[EXP2_N];
    for (uint32_t i = 0; i < EXP2_N; i++)
        y[i] = i % 4 == 0   ? rnd(-130.0f, 0.0f)
               : i % 4 == 1 ? rnd(-0.5f, 0.5f)
               : i % 4 == 2 ? (float)((int)(i % 300) - 150) + 0.5f /* ties to even */
                            : rnd(0.0f, 130.0f);
    y[0] = NAN, y[1] = -INFINITY, y[2] = INFINITY, y[3] = -125.0f, y[4] = 127.0f;
    y[5] = nextafterf(-125.0f, -200.0f), y[6] = -0.0f, y[7] = 0.5f, y[9] = -0.5f;
    for (uint32_t i = 0; i < EXP2_N; i++) ref[i] = cpu_exp2(y[i]);
    static const log2_fn k_exp2[3] = {_oak_cpu_exp2_lanes_avx2, _oak_cpu_exp2_lanes_sse4,
                                      _oak_cpu_exp2_lanes_scalar};
    for (int w = 0; w < 3; w++) {
        if (!has_isa(w)) continue;
        memset(got, 0x5a, sizeof got);
        k_exp2[w](y, got, EXP2_N);
        uint32_t d = bits_differ(ref, got, EXP2_N);
        if (d) fprintf(stderr, "  %s: %u of %u differ\n", k_name[w], d, EXP2_N);
        CHECK_EQ_INT(d, 0);
    }
}

#define PREP_TEX  4
#define PREP_MATS 16
#define PREP_PIX  3000

/* a texture of w x w texels with its mips, random linear rgba */
static void prep_texture(cpu_texture *t, uint32_t w) {
    uint32_t levels = 0, total = 0;
    for (uint32_t s = w; s; s /= 2)
        t->mw[levels] = t->mh[levels] = s, t->offset[levels] = total, total += s * s, levels++;
    t->width = t->height = w, t->mip_count = levels;
    t->texels = malloc((size_t)total * 4 * sizeof(float));
    for (uint32_t i = 0; i < total * 4; i++) t->texels[i] = rnd(0, 1);
}

TEST(lanePrepEqualsScalar) {
    cpu_backend *b = calloc(1, sizeof *b);
    oak_render_view *v = calloc(1, sizeof *v);
    static cpu_texture tex[PREP_TEX];
    static cpu_draw draws[2];
    static cpu_material mats[PREP_MATS];
    static cpu_tri_ctx tris[PREP_MATS];
    static const cpu_tri_ctx *tc[PREP_PIX];
    static cpu_surface surf[PREP_PIX];
    static cpu_lanes ref, got;
    static float attr[CPU_ATTR]; /* the set-up's constants read it; the prep does not */
    b->view = v;
    b->textures = tex, b->texture_count = PREP_TEX;
    for (int i = 0; i < PREP_TEX; i++)
        prep_texture(&tex[i], i == 3 ? 12 : 16u >> i); /* 12: not a power of two */
    v->camera_pos[0] = 0.5f, v->camera_pos[1] = 2.0f, v->camera_pos[2] = -3.0f;
    v->directional_count = 1, v->light_count = 3;
    draws[1].flags = OAK_DRAW_NO_RECEIVE;
    for (int i = 0; i < PREP_MATS; i++) {
        cpu_material *m = &mats[i];
        oak_material_desc *md = &m->desc;
        for (int k = 0; k < CPU_TEX_COUNT; k++) {
            cpu_tex_ref *r = &m->tex[k];
            /* slot k textured on some materials, empty on others */
            r->tex = (i + k) % 3 == 0 ? -1 : (i + k) % PREP_TEX;
            r->uv_set = (uint32_t)(i + k) % 2;
            r->sampler.wrap_u = (oak_wrap)((i + k) % 3 + 1);
            r->sampler.wrap_v = (oak_wrap)((i + 2 * k) % 3 + 1);
            r->sampler.mag = (i + k) % 2 ? OAK_FILTER_NEAREST : OAK_FILTER_LINEAR;
            r->sampler.min = (i + k) % 4 == 1 ? OAK_FILTER_NEAREST : OAK_FILTER_LINEAR;
            r->sampler.mip = (i + k) % 3 == 1 ? OAK_FILTER_NEAREST : OAK_FILTER_LINEAR;
            r->m[0] = rnd(0.5f, 2), r->m[1] = rnd(-0.5f, 0.5f);
            r->m[2] = rnd(-0.5f, 0.5f), r->m[3] = rnd(0.5f, 2);
            r->off[0] = rnd(-1, 1), r->off[1] = rnd(-1, 1);
        }
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) m->lobe_tex[k].tex = -1;
        for (int k = 0; k < 4; k++) md->base_color[k] = rnd(0, 1);
        for (int k = 0; k < 3; k++) md->emissive[k] = rnd(0, 2), m->f0[k] = rnd(0.02f, 0.08f);
        md->emissive_strength = rnd(0, 3);
        md->metallic = rnd(0, 1), md->roughness = rnd(0, 1.2f);
        md->occlusion_strength = rnd(0, 1), md->normal_scale = rnd(0.5f, 1.5f);
        m->f90 = 1;
        m->normal_map = m->tex[CPU_TEX_NORMAL].tex >= 0;
        for (int k = 0; k < CPU_TEX_COUNT; k++) { /* the flags as cpu_mirror.c sets them */
            m->textured |= m->tex[k].tex >= 0;
            m->uv1 |= m->tex[k].tex >= 0 && m->tex[k].uv_set == 1;
        }
        /* what the lane prep leaves to _oak_cpu_shade_prep */
        md->unlit = i == 12;
        md->water = i == 13;
        m->transmit = i == 14;
        m->spec_tex = i == 15;
        cpu_tri_ctx *t = &tris[i];
        t->id = (uint32_t)i + 1;
        t->mat = m, t->d = &draws[i % 2];
        t->attr[0] = t->attr[1] = t->attr[2] = attr;
        _oak_cpu_surface_consts(t);
    }
    uint32_t plain = 0, mapped = 0;
    for (uint32_t i = 0; i < PREP_PIX; i++) {
        /* runs of one material (its slots in lanes), then any mix (lane by lane) */
        tc[i] = &tris[i < PREP_PIX / 2 ? (i / 24) % PREP_MATS : (uint32_t)rnd(0, PREP_MATS)];
        cpu_surface *s = &surf[i];
        float n[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) {
            s->P[k] = rnd(-4, 4), s->Nv[k] = n[k] / l, s->Ng[k] = rnd(-1, 1);
            s->T[k] = rnd(-1, 1);
        }
        s->T[3] = i % 2 ? 1.0f : -1.0f;
        for (int k = 0; k < 4; k++) s->C[k] = rnd(0.5f, 1);
        for (int u = 0; u < 2; u++)
            for (int k = 0; k < 2; k++) { /* footprints from magnified to past the last level */
                float fp = i % 4 == 0 ? 0.01f : i % 11 == 5 ? 9.0f : 0.3f;
                s->uv[u][k] = i % 7 == 3 ? rnd(-40, 40) : rnd(-2, 3); /* far repeats too */
                s->duvdx[u][k] = rnd(-1, 1) * fp;
                s->duvdy[u][k] = rnd(-1, 1) * fp;
            }
        s->px = i % 97, s->py = i % 61;
        s->gtao = rnd(0.3f, 1);
        plain += (tc[i]->sflags & CPU_SF_PREP) != 0;
        mapped += (tc[i]->sflags & CPU_SF_PREP) && tc[i]->mat->normal_map;
    }
    CHECK(plain > PREP_PIX / 2 && mapped > PREP_PIX / 4 && plain < PREP_PIX - 400);
    static const cpu_prep_fn k_prep[3] = {_oak_cpu_prep_lanes_avx2, _oak_cpu_prep_lanes_sse4,
                                          _oak_cpu_prep_lanes_scalar};
    for (int w = 0; w < 3; w++) {
        if (!has_isa(w)) continue;
        uint32_t diff = 0, batches = 0, one = 0, mixed = 0, whole = 0;
        uint32_t width = w == 0 ? 8 : w == 1 ? 4 : 1;
        for (uint32_t i = 0; i < PREP_PIX;) {
            /* lanes o .. o + n - 1 of a batch, as the resolve's short batches */
            uint32_t o = batches % 3 == 0 ? (uint32_t)rnd(0, 7) : 0;
            uint32_t n = CPU_LANES_MAX - o - (batches % 5 == 0 ? (uint32_t)rnd(0, 3) : 0);
            if (n < 1) n = 1;
            if (n > PREP_PIX - i) n = PREP_PIX - i;
            memset(&ref, 0x5a, sizeof ref);
            memset(&got, 0x5a, sizeof got);
            for (uint32_t j = 0; j < n; j++)
                _oak_cpu_shade_prep(b, tc[i + j], &surf[i + j], &ref, o + j);
            k_prep[w](b, n, tc + i, surf + i, &got, o);
            diff += memcmp(&ref, &got, sizeof ref) != 0;
            const cpu_material *m0 = NULL; /* the first plain lane's */
            bool same = true;
            for (uint32_t j = 0; j < n; j++) {
                if (!(tc[i + j]->sflags & CPU_SF_PREP)) continue;
                if (!m0) m0 = tc[i + j]->mat;
                same &= tc[i + j]->mat == m0;
            }
            one += m0 && same, mixed += m0 && !same;
            /* the kernel's groups of `width` lanes all plain on one
               material: their columns are stored whole */
            for (uint32_t g0 = 0; g0 + width <= n; g0 += width) {
                bool all = true;
                for (uint32_t j = g0; j < g0 + width; j++)
                    all &= (tc[i + j]->sflags & CPU_SF_PREP) && tc[i + j]->mat == tc[i + g0]->mat;
                whole += all;
            }
            i += n, batches++;
        }
        if (diff) fprintf(stderr, "  %s: %u of %u batches differ\n", k_name[w], diff, batches);
        CHECK_EQ_INT(diff, 0);
        if (w == 0) fprintf(stderr, "  batches on one material %u, mixed %u\n", one, mixed);
        CHECK(one > 100 && mixed > 100); /* both ways through the slots run */
        fprintf(stderr, "  %s: groups of %u plain lanes on one material %u\n", k_name[w], width,
                whole);
        CHECK(whole > 50); /* and the whole groups' stores */
    }
    for (int i = 0; i < PREP_TEX; i++) free(tex[i].texels);
    free(v);
    free(b);
}

int main(void) {
    oak_test_init(0);
    RUN(laneSunShadowEqualsScalar);
    RUN(laneSkyReadsEqualScalar);
    RUN(laneSurfaceEqualsScalar);
    RUN(lanePrepEqualsScalar);
    RUN(log2LevelBound);
    RUN(exp2Bound);
    oak_shutdown();
    return TEST_SUMMARY();
}
