/* MASK (cut-out) bands in the compute raster (docs/ARCHITECTURE.md "Compute
 * rasterization", "MASK bands"): on the CPU (no argument) the plans' rule
 * for MASK streams and OAK_CRASTER_MASK's parsing; on vulkan or gl, a field
 * of alpha-cut cards in two streams (one single-sided on uv set 0 with a
 * linear mag filter, one double-sided on uv set 1 under a texture transform
 * with vertex alpha and a nearest mag filter), each instance its own colour
 * and each triangle its own normal, drawn with every band in compute
 * (OAK_CRASTER=all) and by the hardware (off): the instance and triangle on
 * each covered pixel agree on at least 99% of them, the covered counts
 * within 1%; the same with a single-level texture, whose difference from
 * the mipped one's is the share the analytic uv derivatives change; the
 * picture meets the parity rule against the hardware's and is no further
 * from the CPU's than the hardware's; the cards' shadows
 * in the cascade atlas agree texel for texel as test_craster's. */
#include "oak_test.h"

#include "backend/gpu/craster.h"
#include "backend_start.h"

#define W    320
#define H    180
#define GX   16
#define GZ   20
#define CAP  (GX * GZ / 2) /* per stream */
#define LOD1 9.0f          /* metres: the far band starts here */
#define TEX  64

static const char *g_backend = "cpu";
static oak_material g_mat[2][2]; /* [mipped][stream] */
static oak_texture g_tex[2];     /* [mipped] */
static oak_mesh g_card[2];

#include "craster_test.h"

/* White leaves: disks of alpha 1 with a soft rim of two texels on a
   jittered grid, 0 between (about half the texels kept). */
static oak_result make_leaves(oak_texture *out, bool mips) {
    static uint8_t px[TEX * TEX * 4];
    for (int y = 0; y < TEX; y++)
        for (int x = 0; x < TEX; x++) {
            float best = 1e9f;
            for (int cy = -1; cy <= 4; cy++)
                for (int cx = -1; cx <= 4; cx++) {
                    uint32_t k = (uint32_t)((cy + 1) * 6 + cx + 1);
                    float ox = 16.0f * (float)cx + 8 + 6 * (oak_test_hash01(k, 31) - 0.5f);
                    float oy = 16.0f * (float)cy + 8 + 6 * (oak_test_hash01(k, 32) - 0.5f);
                    float r = 5.0f + 3.0f * oak_test_hash01(k, 33);
                    float d = sqrtf(((float)x + 0.5f - ox) * ((float)x + 0.5f - ox) +
                                    ((float)y + 0.5f - oy) * ((float)y + 0.5f - oy)) -
                              r;
                    best = d < best ? d : best;
                }
            float a = 0.5f - best * 0.5f;
            a = a < 0 ? 0 : a > 1 ? 1 : a;
            uint8_t *p = &px[(y * TEX + x) * 4];
            p[0] = p[1] = p[2] = 255;
            p[3] = (uint8_t)(a * 255 + 0.5f);
        }
    oak_texture_desc d = {.width = TEX,
                          .height = TEX,
                          .format = OAK_FORMAT_RGBA8_SRGB,
                          .pixels = px,
                          .no_mips = !mips,
                          .coverage_cutoff = 0.5f,
                          .name = mips ? "leaves" : "leaves one level"};
    return oak_make_texture(out, &d);
}

/* A 0.5 m card standing on y 0 facing +z, two triangles that share no
   vertex, each its own normal (tilted +-x); with `uv1`, a second uv set
   (the first's twice, shifted) and vertex alpha 1 below, 0.75 on top. */
static oak_result make_card(oak_mesh *out, bool uv1) {
    static const float p[] = {-0.25f, 0, 0, 0.25f, 0,    0, 0.25f,  0.5f, 0,
                              -0.25f, 0, 0, 0.25f, 0.5f, 0, -0.25f, 0.5f, 0};
    static const float n[] = {0.2f,  0, 0.98f, 0.2f,  0, 0.98f, 0.2f,  0, 0.98f,
                              -0.2f, 0, 0.98f, -0.2f, 0, 0.98f, -0.2f, 0, 0.98f};
    static const float t0[] = {0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0};
    static const float t1[] = {0.1f, 2.1f, 2.1f, 2.1f, 2.1f, 0.1f,
                               0.1f, 2.1f, 2.1f, 0.1f, 0.1f, 0.1f};
    static const float c[] = {1, 1, 1, 1, 1, 1, 1, 1,     1, 1, 1, 0.75f,
                              1, 1, 1, 1, 1, 1, 1, 0.75f, 1, 1, 1, 0.75f};
    oak_mesh_desc d = {.vertex_count = 6,
                       .positions = p,
                       .normals = n,
                       .uv0 = t0,
                       .uv1 = uv1 ? t1 : NULL,
                       .colors = uv1 ? c : NULL,
                       .name = uv1 ? "card uv1" : "card"};
    return oak_make_mesh(out, &d);
}

static oak_result make_materials(bool mips) {
    oak_result r = make_leaves(&g_tex[mips], mips);
    if (r) return r;
    for (int k = 0; k < 2; k++) {
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.roughness = 0.8f;
        md.alpha_mode = OAK_ALPHA_MASK;
        md.alpha_cutoff = 0.5f;
        md.double_sided = k == 1;
        md.base_color_tex.texture = g_tex[mips];
        /* single-level: nearest everywhere, so the derivatives pick nothing */
        md.base_color_tex.sampler.mag = k == 1 || !mips ? OAK_FILTER_NEAREST : OAK_FILTER_LINEAR;
        if (k == 1) {
            md.base_color_tex.uv_set = 1;
            md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 0.5f;
            md.base_color_tex.offset[0] = 0.05f;
        }
        if ((r = oak_make_material(&g_mat[mips][k], &md))) return r;
    }
    return OAK_OK;
}

static void scene_init(scene *s, bool mips) {
    oak_stream_desc d[2];
    for (uint32_t k = 0; k < 2; k++)
        d[k] = (oak_stream_desc){.capacity = CAP,
                                 .lod_count = 2,
                                 .lods = {{g_card[k], LOD1}, {g_card[k], 0}},
                                 .material = g_mat[mips][k]};
    /* from 2 to 26 m ahead, each card turned up to 60 degrees either way */
    const grid_desc g = {-4.8f, 0.6f, 0.3f, 1.2f, 2.0944f, 0.5f};
    scene_make(s, d, &g);
}

/* Pixel i's surface in frame 0 and frame 1 the same: both sky, or the same
   instance (albedo) and triangle (normal). */
static bool same_surface(const float *const a[2], const float *const n[2], const float *const d[2],
                         size_t i, size_t j) {
    if ((d[0][i * 4] > 0) != (d[1][j * 4] > 0)) return false;
    if (!(d[0][i * 4] > 0)) return true;
    for (int c = 0; c < 3; c++)
        if (fabsf(a[0][i * 4 + c] - a[1][j * 4 + c]) > 1e-4f ||
            fabsf(n[0][i * 4 + c] - n[1][j * 4 + c]) > 1e-3f)
            return false;
    return true;
}

typedef struct ids_diff {
    size_t covered[2], either, match, inner;
} ids_diff;

/* The hardware's frame (0) against compute's (1): pixels covered in each,
   in either, the same surface, and differing away from every edge of the
   hardware's frame (all eight neighbours the pixel's own surface: the cut's
   edges count as edges). */
static ids_diff compare_ids(const float *const a[2], const float *const n[2],
                            const float *const d[2]) {
    ids_diff r = {{0, 0}, 0, 0, 0};
    const float *const a0[2] = {a[0], a[0]}, *const n0[2] = {n[0], n[0]},
                       *const d0[2] = {d[0], d[0]};
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            size_t i = (size_t)y * W + (size_t)x;
            bool c0 = d[0][i * 4] > 0, c1 = d[1][i * 4] > 0;
            r.covered[0] += c0, r.covered[1] += c1, r.either += c0 || c1;
            if (!c0 && !c1) continue;
            if (same_surface(a, n, d, i, i)) {
                r.match++;
                continue;
            }
            bool edge = false;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
                    edge |= !same_surface(a0, n0, d0, i, (size_t)yy * W + (size_t)xx);
                }
            r.inner += !edge;
        }
    return r;
}

/* Compute against the hardware on the cards: returns the share of covered
   pixels whose surface differs (the ids' miss), or -1. */
static double ids_vs_hardware(bool mips) {
    static scene s;
    static float a[2][W * H * 4], n[2][W * H * 4], d[2][W * H * 4];
    double miss = -1;
    scene_init(&s, mips);
    if (!s.streams[1]) goto out;
    g_bands = -1;
    bool made = channels(&s, "off", a[0], n[0], d[0]);
    CHECK_EQ_INT(g_bands, -1); /* off never plans */
    made = made && channels(&s, "all", a[1], n[1], d[1]);
    CHECK_EQ_INT(g_bands, 4); /* two MASK streams, two bands each */
    if (!made) goto out;
    const float *const pa[2] = {a[0], a[1]}, *const pn[2] = {n[0], n[1]},
                       *const pd[2] = {d[0], d[1]};
    ids_diff r = compare_ids(pa, pn, pd);
    double frac = (double)r.match / (double)(r.either ? r.either : 1);
    double cover = fabs((double)r.covered[1] - (double)r.covered[0]) / (double)r.covered[0];
    double inner = (double)r.inner / (double)(r.either ? r.either : 1);
    fprintf(stderr,
            "  %s %s: covered %zu (hardware) %zu (compute); same surface on %zu of %zu (%.4f); "
            "%zu (%.4f) differ away from an edge; coverage differs by %.4f\n",
            g_backend, mips ? "mipped" : "one level", r.covered[0], r.covered[1], r.match, r.either,
            frac, r.inner, inner, cover);
    CHECK(r.covered[0] > W * H / 10); /* the cards fill a good part of the frame */
    CHECK(frac >= 0.99);
    CHECK(inner <= 0.002); /* a level flipped inside a leaf: rare */
    CHECK(cover <= 0.01);
    miss = 1 - frac;
out:
    scene_free(&s);
    return miss;
}

/* The ids with the mipped leaves, then with one level (no level to choose,
   nearest taps: the derivatives change nothing there), and the difference:
   what the analytic derivatives' level changes against the hardware's per
   quad ones. */
TEST(idsMatchHardware) {
    double mipped = ids_vs_hardware(true), flat = ids_vs_hardware(false);
    if (mipped < 0 || flat < 0) return;
    fprintf(stderr,
            "  %s: pixels differing %.4f mipped, %.4f with one level: the level from analytic "
            "derivatives changes %.4f of the covered pixels\n",
            g_backend, mipped, flat, mipped - flat);
    CHECK(mipped - flat <= 0.01);
}

/* The share of two W x H RGBA8 frames' channels within 2/255: per pixel
   (`block` 1) or of their 4 x 4 block means (4: DESIGN.md's measure for
   sub-pixel foliage). */
static double within(const uint8_t *a, const uint8_t *b, int block) {
    size_t n = 0, ok = 0;
    for (int by = 0; by < H / block; by++)
        for (int bx = 0; bx < W / block; bx++)
            for (int c = 0; c < 4; c++) {
                int sa = 0, sb = 0;
                for (int y = 0; y < block; y++)
                    for (int x = 0; x < block; x++) {
                        size_t i = ((size_t)(by * block + y) * W + (size_t)(bx * block + x)) * 4 +
                                   (size_t)c;
                        sa += a[i], sb += b[i];
                    }
                n++, ok += abs(sa - sb) <= 2 * block * block;
            }
    return (double)ok / (double)n;
}

/* One frame's picture of a fresh renderer under OAK_CRASTER=mode. */
static bool picture(scene *s, const char *mode, uint8_t *px) {
    setenv("OAK_CRASTER", mode, 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r && oak_renderer_draw(r, &s->in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
    CHECK(ok);
    oak_destroy_renderer(r);
    unsetenv("OAK_CRASTER");
    return ok;
}

/* The picture with every band in compute against the hardware's, under the
   parity rule per pixel; and against the CPU's, no further from it than the
   hardware's own picture is, per pixel and in 4 x 4 block means (the CPU's
   cutout differs from both GPUs' along the cut edges alike, below the
   rule: the figures are printed). */
TEST(pictureMatchesCpu) {
    static scene s;
    static uint8_t cpu[W * H * 4], off[W * H * 4], all[W * H * 4];
    scene_init(&s, true);
    if (!s.streams[1]) goto out;
    g_bands = g_shadow_bands = -1;
    bool made = oak_test_cpu_picture(&s.in, 1, W, H, cpu) && picture(&s, "off", off) &&
                picture(&s, "all", all);
    CHECK(made);
    CHECK_EQ_INT(g_bands, 4);
    CHECK(g_shadow_bands >= 4); /* the cards' shadows in compute too */
    if (!made) goto out;
    double px[3] = {within(cpu, off, 1), within(cpu, all, 1), within(off, all, 1)};
    double bl[3] = {within(cpu, off, 4), within(cpu, all, 4), within(off, all, 4)};
    fprintf(stderr,
            "  %s: within 2/255 per pixel / 4x4 block means: cpu vs hardware %.4f / %.4f, cpu "
            "vs compute %.4f / %.4f, hardware vs compute %.4f / %.4f\n",
            g_backend, px[0], bl[0], px[1], bl[1], px[2], bl[2]);
    char label[64];
    snprintf(label, sizeof label, "cut-out cards hardware vs compute on %s", g_backend);
    oak_test_parity(label, off, all, W, H); /* per pixel: 0.9976 on lavapipe */
    CHECK(bl[1] >= bl[0] - 0.005);
    CHECK(px[1] >= px[0] - 0.005);
out:
    scene_free(&s);
}

/* OAK_CRASTER_MASK=off: the MASK bands stay on the hardware, under all too. */
TEST(maskOffKeepsThemOnHardware) {
    static scene s;
    scene_init(&s, true);
    oak_renderer *r = NULL;
    setenv("OAK_CRASTER", "all", 1);
    setenv("OAK_CRASTER_MASK", "off", 1);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (r && s.streams[1]) {
        g_bands = g_shadow_bands = -1;
        CHECK_OK(oak_renderer_draw(r, &s.in));
        CHECK(g_bands <= 0);
        CHECK(g_shadow_bands <= 0);
    }
    oak_destroy_renderer(r);
    unsetenv("OAK_CRASTER_MASK");
    unsetenv("OAK_CRASTER");
    scene_free(&s);
}

/* test_craster's shadowTexelsMatchHardware's measure (diff_atlas), with
   the share differing away from an edge asked at most 0.2% (the cut's
   edges inside a card). */
static void check_atlas(const char *what, const float *a, const float *b) {
    atlas_diff d = diff_atlas(a, b);
    double frac = (double)d.equal / (double)(d.either ? d.either : 1);
    double cover = fabs((double)d.covered[1] - (double)d.covered[0]) /
                   (double)(d.covered[0] ? d.covered[0] : 1);
    double in = (double)d.inner / (double)(d.either ? d.either : 1);
    fprintf(stderr,
            "  %s %s: texels cast %zu (hardware) %zu (compute); equal on %zu of %zu (%.4f); "
            "%zu (%.4f) differ away from an edge; coverage differs by %.4f\n",
            g_backend, what, d.covered[0], d.covered[1], d.equal, d.either, frac, d.inner, in,
            cover);
    CHECK(d.covered[0] > 1000); /* the cards cast a good number of texels */
    CHECK(frac >= 0.99);
    CHECK(in <= 0.002);
    CHECK(cover <= 0.01);
}

TEST(shadowTexelsMatchHardware) {
    static scene s;
    static float a[ATLAS * ATLAS], b[ATLAS * ATLAS];
    scene_init(&s, true);
    if (!s.streams[1]) goto out;
    /* one plain caster: without any the frontend keys no static layer */
    mat4 world;
    glm_translate_make(world, (vec3){1, 0, -3});
    s.in.draw_count = 1, s.in.meshes = &g_card[0], s.in.materials = &g_mat[1][0];
    s.in.transforms = (const mat4 *)&world;
    /* frame 1: streams seen for the first time cast as movers */
    g_shadow_bands = -1;
    bool made = shadow_atlas(&s, "off", 1, false, a);
    CHECK_EQ_INT(g_shadow_bands, -1); /* off never plans */
    made = made && shadow_atlas(&s, "all", 1, false, b);
    CHECK(g_shadow_bands >= 4); /* two streams, two bands, in each cascade they reach */
    if (made) check_atlas("first frame (movers)", a, b);
    /* frame 2: still, so into the static layer, drawn afresh */
    made = made && shadow_atlas(&s, "off", 2, false, a);
    made = made && shadow_atlas(&s, "all", 2, false, b);
    if (made) check_atlas("static layer", a, b);
out:
    scene_free(&s);
}

/* The mesh look-up of planRuleTakesMask: every mesh 6 indices at 0. */
static bool plan_mesh(void *user, oak_mesh mesh, uint32_t out[3]) {
    (void)user, (void)mesh;
    out[0] = 6, out[1] = 0, out[2] = 0;
    return true;
}

/* The plans' rule on four streams (opaque single-sided, opaque two-sided,
   MASK single-sided, MASK two-sided) and one not drawn from the lists,
   under OAK_CRASTER=all: every band of the first four (the MASK ones
   single-sided as the opaque's), none of the fifth; with
   OAK_CRASTER_MASK=off the opaque two's only. */
TEST(planRuleTakesMask) {
    static oak_render_view v;
    static oak_render_stream rs[5];
    static oak_gpu_instcull heads[5];
    static uint32_t table[1 + 2 * OAK_GPU_CRASTER_BANDS][4];
    memset(&v, 0, sizeof v);
    memset(rs, 0, sizeof rs);
    memset(heads, 0, sizeof heads);
    const uint32_t group[5] = {0, 1, 2, 3, UINT32_MAX};
    const bool moved[5] = {false};
    for (int s = 0; s < 5; s++) {
        rs[s].count = 10, rs[s].lod_count = 1, rs[s].lods[0] = g_card[0], rs[s].native = true;
        heads[s].info[0] = 1, heads[s].info[3] = 100 * (uint32_t)s, heads[s].bounds[0][3] = 0.5f;
    }
    v.streams = rs, v.stream_count = 5, v.width = W, v.height = H;
    _oak_craster_streams in = {
        .v = &v, .heads = heads, .group = group, .moved = moved, .count = 5, .mesh = plan_mesh};
    uint8_t lods[OAK_STREAM_MAX_PER_VIEW] = {0};
    setenv("OAK_CRASTER", "all", 1);
    uint32_t split = 0;
    uint32_t n = _oak_craster_plan(&in, W, H, table, lods, &split);
    CHECK_EQ_INT((int)n, 4);
    for (uint32_t b = 0; b < n && b < 4; b++) {
        CHECK_EQ_INT((int)table[1 + 2 * b][0], (int)b);                  /* stream b */
        CHECK_EQ_INT((int)table[2 + 2 * b][3], (int)(b == 0 || b == 2)); /* single-sided */
    }
    CHECK_EQ_INT(lods[2] | lods[3], 1);
    CHECK_EQ_INT(lods[4], 0);
    setenv("OAK_CRASTER_MASK", "off", 1);
    memset(lods, 0, sizeof lods);
    n = _oak_craster_plan(&in, W, H, table, lods, &split);
    CHECK_EQ_INT((int)n, 2);
    CHECK_EQ_INT(lods[2] | lods[3], 0);
    /* the switch's words */
    unsetenv("OAK_CRASTER_MASK");
    CHECK(_oak_craster_mask_get());
    CHECK(strstr(_oak_craster_kinds(), "MASK") != NULL);
    setenv("OAK_CRASTER_MASK", "off", 1);
    CHECK(!_oak_craster_mask_get());
    CHECK(strstr(_oak_craster_kinds(), "OAK_CRASTER_MASK=off") != NULL);
    setenv("OAK_CRASTER_MASK", "maybe", 1); /* warns once, reads as on */
    CHECK(_oak_craster_mask_get());
    unsetenv("OAK_CRASTER_MASK");
    unsetenv("OAK_CRASTER");
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    oak_engine_desc desc = {.log = log_bands, .log_level = OAK_LOG_INFO};
    int started = oak_test_backend_start_desc(g_backend, &desc);
    if (started) return started;
    CHECK_OK(make_card(&g_card[0], false));
    CHECK_OK(make_card(&g_card[1], true));
    CHECK_OK(make_materials(true));
    CHECK_OK(make_materials(false));
    fprintf(stderr, "  backend %s\n", g_backend);
    if (!strcmp(g_backend, "cpu")) {
        RUN(planRuleTakesMask);
    } else {
        RUN(idsMatchHardware);
        RUN(pictureMatchesCpu);
        RUN(maskOffKeepsThemOnHardware);
        RUN(shadowTexelsMatchHardware);
    }
    if (g_oak_test_validation)
        fprintf(stderr, "FAIL: %d validation or GL debug messages\n", g_oak_test_validation);
    oak_shutdown();
    return g_oak_test_validation ? 1 : TEST_SUMMARY();
}
