/* Compute rasterization (docs/ARCHITECTURE.md "Compute rasterization"): on
 * the CPU (no argument) the band rule and OAK_CRASTER's parsing; on vulkan
 * or gl, a field of tiny two-triangle tufts in two streams (one
 * single-sided, one double-sided), each instance its own colour and each
 * triangle its own normal, drawn with the compute raster forced on every
 * band (OAK_CRASTER=all) and off: which instance and triangle covers each
 * pixel (the albedo and normal channels) agrees on at least 99% of the
 * covered pixels and differs only within a pixel of an edge, the covered
 * pixel counts agree within 1%, the picture meets the parity rule against
 * the CPU's, and OAK_CRASTER=on picks the far band by the threshold. The
 * same tufts cast into the cascade atlas: its texels drawn in compute
 * (every band of every cascade) against the hardware's, read back, on a
 * fresh static layer, on a cached one and with the streams as movers. */
#include "oak_test.h"

#include "backend/gpu/craster.h"
#include "backend_start.h"

#define W    320
#define H    180
#define GX   40
#define GZ   24
#define CAP  (GX * GZ / 2) /* per stream */
#define LOD1 9.0f          /* metres: the far band starts here */

static const char *g_backend = "cpu";
static oak_material g_one_sided, g_two_sided;
static oak_mesh g_tuft;

#include "craster_test.h"

/* Two triangles that share no vertex: one facing +z, one facing +x. */
static oak_result make_tuft(oak_mesh *out) {
    static const float p[] = {-0.07f, 0, 0,     0.07f, 0, 0,      0.01f, 0.3f,  0,
                              0,      0, 0.06f, 0,     0, -0.06f, 0,     0.22f, 0.02f};
    static const float n[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0};
    oak_mesh_desc d = {.vertex_count = 6, .positions = p, .normals = n, .name = "tuft"};
    return oak_make_mesh(out, &d);
}

static void scene_init(scene *s) {
    oak_stream_desc d[2];
    for (uint32_t k = 0; k < 2; k++)
        d[k] = (oak_stream_desc){.capacity = CAP,
                                 .lod_count = 2,
                                 .lods = {{g_tuft, LOD1}, {g_tuft, 0}},
                                 .material = k ? g_two_sided : g_one_sided};
    /* from 2 to 26 m ahead, turned any way */
    const grid_desc g = {-5.0f, 0.25f, 0.2f, 1.0f, 6.2831853f, 0.0f};
    scene_make(s, d, &g);
}

/* Pixel i's surface in one frame: 0 none, else the same key for the same
   instance (albedo) and triangle (normal). */
static bool same_surface(const float *a0, const float *n0, const float *d0, const float *a1,
                         const float *n1, const float *d1, size_t i) {
    if ((d0[i * 4] > 0) != (d1[i * 4] > 0)) return false;
    if (!(d0[i * 4] > 0)) return true;
    for (int c = 0; c < 3; c++)
        if (fabsf(a0[i * 4 + c] - a1[i * 4 + c]) > 1e-4f ||
            fabsf(n0[i * 4 + c] - n1[i * 4 + c]) > 1e-3f)
            return false;
    return true;
}

/* Frame 0 (the hardware's) against frame 1 pixel by pixel: the pixels each
   covers, those either covers, those showing the same surface, and the
   misses away from every edge of the hardware's frame. */
static void compare_ids(float a[][W * H * 4], float n[][W * H * 4], float d[][W * H * 4],
                        size_t covered[2], size_t *either, size_t *match, size_t *inner) {
    covered[0] = covered[1] = *either = *match = *inner = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            size_t i = (size_t)y * W + (size_t)x;
            bool c0 = d[0][i * 4] > 0, c1 = d[1][i * 4] > 0;
            covered[0] += c0, covered[1] += c1, *either += c0 || c1;
            if (!c0 && !c1) continue;
            if (same_surface(a[0], n[0], d[0], a[1], n[1], d[1], i)) {
                (*match)++;
                continue;
            }
            bool edge = false;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= W || yy >= H) continue;
                    size_t j = (size_t)yy * W + (size_t)xx;
                    edge |= (d[0][j * 4] > 0) != c0 || fabsf(a[0][j * 4] - a[0][i * 4]) > 1e-4f ||
                            fabsf(n[0][j * 4] - n[0][i * 4]) > 1e-3f;
                }
            *inner += !edge;
        }
}
/* compare_ids's counts printed and held to what both tests ask: the frame
   well covered, 99% of the covered pixels on the same surface, none
   different away from an edge, coverage within 1%. what: frame 1's name. */
static void check_ids(float a[][W * H * 4], float n[][W * H * 4], float d[][W * H * 4],
                      const char *what) {
    size_t covered[2], either, match, inner;
    compare_ids(a, n, d, covered, &either, &match, &inner);
    double frac = (double)match / (double)(either ? either : 1);
    double cover = fabs((double)covered[1] - (double)covered[0]) / (double)covered[0];
    fprintf(stderr,
            "  %s: covered %zu (hardware) %zu (%s); same surface on %zu of %zu (%.4f); "
            "%zu differ away from an edge; coverage differs by %.4f\n",
            g_backend, covered[0], covered[1], what, match, either, frac, inner, cover);
    CHECK(covered[0] > W * H / 20); /* the field fills a good part of the frame */
    CHECK(frac >= 0.99);
    CHECK_EQ_INT((int)inner, 0);
    CHECK(cover <= 0.01);
}
TEST(idsMatchHardware) {
    static scene s;
    static float a[2][W * H * 4], n[2][W * H * 4], d[2][W * H * 4];
    scene_init(&s);
    g_bands = -1;
    bool made = channels(&s, "off", a[0], n[0], d[0]);
    CHECK_EQ_INT(g_bands, -1); /* off never plans */
    made = made && channels(&s, "all", a[1], n[1], d[1]);
    CHECK_EQ_INT(g_bands, 4); /* two streams, two bands each */
    if (!made) goto out;
    check_ids(a, n, d, "compute");
out:
    scene_free(&s);
}

TEST(pictureMatchesCpu) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s);
    setenv("OAK_CRASTER", "all", 1);
    g_bands = g_shadow_bands = -1;
    if (s.streams[1]) oak_test_parity_frame("compute raster vs cpu", g_backend, &s.in, W, H, a, b);
    CHECK_EQ_INT(g_bands, 4);
    CHECK(g_shadow_bands >= 4); /* the tufts' shadows in compute too */
    unsetenv("OAK_CRASTER");
    scene_free(&s);
}

/* OAK_CRASTER=on: the far band goes to compute by the threshold (these
   tufts' triangles are 5.2 px across from 9 m by the rule: in at 8 px, out
   at 4), the near band never. */
TEST(onPicksFarBandsByThreshold) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (!r || !s.streams[1]) goto out;
    g_bands = -1;
    setenv("OAK_CRASTER_PIXELS", "8", 1);
    CHECK_OK(oak_renderer_draw(r, &s.in));
    CHECK_EQ_INT(g_bands, 2);
    setenv("OAK_CRASTER_PIXELS", "4", 1);
    CHECK_OK(oak_renderer_draw(r, &s.in));
    CHECK_EQ_INT(g_bands, 0);
    unsetenv("OAK_CRASTER_PIXELS");
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
out:
    oak_destroy_renderer(r);
    scene_free(&s);
}

static void check_atlas(const char *what, const float *a, const float *b) {
    atlas_diff d = diff_atlas(a, b);
    double frac = (double)d.equal / (double)(d.either ? d.either : 1);
    double cover = fabs((double)d.covered[1] - (double)d.covered[0]) /
                   (double)(d.covered[0] ? d.covered[0] : 1);
    fprintf(stderr,
            "  %s %s: texels cast %zu (hardware) %zu (compute); equal on %zu of %zu (%.4f); "
            "%zu differ away from an edge; coverage differs by %.4f\n",
            g_backend, what, d.covered[0], d.covered[1], d.equal, d.either, frac, d.inner, cover);
    CHECK(d.covered[0] > 1000); /* the tufts cast a good number of texels */
    CHECK(frac >= 0.99);
    CHECK_EQ_INT((int)d.inner, 0);
    CHECK(cover <= 0.01);
}

TEST(shadowTexelsMatchHardware) {
    static scene s;
    static float a[ATLAS * ATLAS], b[ATLAS * ATLAS];
    scene_init(&s);
    if (!s.streams[1]) goto out;
    /* one plain caster: without any the frontend keys no static layer
       (static_key 0, redrawn every frame) and the cache never holds */
    mat4 world;
    glm_translate_make(world, (vec3){1, 0, -3});
    s.in.draw_count = 1, s.in.meshes = &g_tuft, s.in.materials = &g_one_sided;
    s.in.transforms = (const mat4 *)&world;
    /* frame 1: a stream seen for the first time casts as a mover */
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
    /* frame 3: the layer cached, nothing rasterized, the same texels */
    g_shadow_bands = -1;
    made = made && shadow_atlas(&s, "all", 3, false, b);
    CHECK_EQ_INT(g_shadow_bands, 0); /* the last frame planned no band */
    if (made) check_atlas("cached layer", a, b);
    /* movers every frame: drawn over the copied layer */
    made = made && shadow_atlas(&s, "off", 3, true, a);
    made = made && shadow_atlas(&s, "all", 3, true, b);
    if (made) check_atlas("movers", a, b);
out:
    scene_free(&s);
}

/* One frame's picture of a fresh renderer under OAK_CRASTER=mode. */
static bool picture(scene *s, const char *mode, uint8_t *px) {
    setenv("OAK_CRASTER", mode, 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = SM};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r && oak_renderer_draw(r, &s->in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
    CHECK(ok);
    oak_destroy_renderer(r);
    unsetenv("OAK_CRASTER");
    return ok;
}

/* The tufts' shadows on a ground quad: the picture with every band of
   every cascade in compute against the hardware's, under the parity rule,
   and the dark pixels (under half the lit ground's green: shadows and
   dark tufts) in equal number within 1%. */
TEST(shadowPictureAllVsOff) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s);
    oak_mesh ground = {0};
    static const float p[] = {-8, 0, 4, 8, 0, 4, 8, 0, -30, -8, 0, 4, 8, 0, -30, -8, 0, -30};
    static const float nrm[] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    oak_mesh_desc md = {.vertex_count = 6, .positions = p, .normals = nrm, .name = "ground"};
    CHECK_OK(oak_make_mesh(&ground, &md));
    if (!s.streams[1] || !ground.id) goto out;
    mat4 world;
    glm_mat4_identity(world);
    s.in.draw_count = 1, s.in.meshes = &ground, s.in.materials = &g_two_sided;
    s.in.transforms = (const mat4 *)&world;
    g_shadow_bands = -1;
    bool made = picture(&s, "off", a) && picture(&s, "all", b);
    CHECK(g_shadow_bands >= 4);
    if (!made) goto out;
    char label[64];
    snprintf(label, sizeof label, "shadows all vs off on %s", g_backend);
    oak_test_parity(label, a, b, W, H);
    /* shaded: the green below half the bottom row's brightest (the lit
       ground near the eye, before the field) */
    int lit = 0;
    for (int x = 0; x < W; x++) {
        int g = a[((size_t)(H - 1) * W + (size_t)x) * 4 + 1];
        lit = g > lit ? g : lit;
    }
    size_t dark[2] = {0, 0}, px = 0, same = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        int ga = a[i * 4 + 1], gb = b[i * 4 + 1];
        dark[0] += ga * 2 < lit;
        dark[1] += gb * 2 < lit;
        px++, same += a[i * 4] == b[i * 4] && ga == gb && a[i * 4 + 2] == b[i * 4 + 2];
    }
    fprintf(stderr,
            "  %s: lit ground green %d, shaded pixels %zu (hardware) %zu (compute); %zu of %zu "
            "pixels the same\n",
            g_backend, lit, dark[0], dark[1], same, px);
    CHECK(lit > 40 && dark[0] > 200); /* the shadows show */
    CHECK(fabs((double)dark[1] - (double)dark[0]) <= 0.01 * (double)dark[0]);
out:
    oak_destroy_mesh(ground);
    scene_free(&s);
}

/* `frames` frames of a fresh renderer under occlusion `occ` with
   OAK_CRASTER=on and the far band in compute (8 px): the picture, the
   camera's stream counts and the occlusion counters of the last frame. */
static bool hiz_run(scene *s, oak_occlusion_mode occ, int frames, uint8_t *px, oak_stream_stats *ss,
                    oak_occlusion_stats *os) {
    setenv("OAK_CRASTER", "on", 1);
    setenv("OAK_CRASTER_PIXELS", "8", 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {
        .backend = g_backend, .width = W, .height = H, .shadow_map_size = SM, .occlusion = occ};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r != NULL;
    for (int i = 0; i < frames && ok; i++) ok = oak_renderer_draw(r, &s->in) == OAK_OK;
    /* the stream counts wait for the GPU, so the counters are the last frame's */
    ok = ok && oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK &&
         oak_renderer_stream_stats(r, ss) == OAK_OK &&
         oak_renderer_occlusion_stats(r, os) == OAK_OK;
    CHECK(ok);
    oak_destroy_renderer(r);
    unsetenv("OAK_CRASTER");
    unsetenv("OAK_CRASTER_PIXELS");
    return ok;
}

/* Two-pass Hi-Z keeps the small bands in compute (issue 16: the meadow's
   pass 1 on the H200 took 42 ms, every band on the hardware, against a
   3.3 ms raster without Hi-Z). A wall hides part of the field: under Hi-Z
   the same two bands go to compute (before the fix none did), both passes
   draw (frames after the first are no cut), the wall hides instances, the
   instances drawn are no more than without Hi-Z, and the picture is the
   same bytes. */
TEST(hizKeepsComputeBands) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s);
    oak_mesh wall = {0};
    /* 1.2 m high across x -6..0 at z = -2: the field's left half behind it */
    static const float p[] = {-6, 0, -2, 0, 0,    -2, 0,  1.2f, -2,
                              -6, 0, -2, 0, 1.2f, -2, -6, 1.2f, -2};
    static const float nrm[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    oak_mesh_desc md = {.vertex_count = 6, .positions = p, .normals = nrm, .name = "wall"};
    CHECK_OK(oak_make_mesh(&wall, &md));
    if (!s.streams[1] || !wall.id) goto out;
    mat4 world;
    glm_mat4_identity(world);
    s.in.draw_count = 1, s.in.meshes = &wall, s.in.materials = &g_two_sided;
    s.in.transforms = (const mat4 *)&world;
    oak_stream_stats ss[2];
    oak_occlusion_stats os[2];
    g_bands = -1;
    bool made = hiz_run(&s, OAK_OCCLUSION_OFF, 4, a, &ss[0], &os[0]);
    CHECK_EQ_INT(g_bands, 2); /* the far band of each stream */
    g_bands = -1;
    made = made && hiz_run(&s, OAK_OCCLUSION_ON, 4, b, &ss[1], &os[1]);
    if (!made) goto out;
    fprintf(stderr,
            "  %s: compute bands under Hi-Z %d; instances drawn %u (off) %u (Hi-Z: pass 1 %u, "
            "pass 2 %u, hidden %u)\n",
            g_backend, g_bands, ss[0].visible, ss[1].visible, os[1].instances_pass1,
            os[1].instances_pass2, os[1].instances_occluded);
    CHECK_EQ_INT(g_bands, 2);
    CHECK(os[1].instances_pass1 > 0);      /* pass 1 drew last frame's visible */
    CHECK(os[1].instances_occluded > 100); /* the wall hides a good part */
    CHECK(ss[1].visible <= ss[0].visible);
    CHECK_EQ_INT((int)ss[1].visible, (int)(os[1].instances_pass1 + os[1].instances_pass2));
    size_t differ[2] = {0, 0};
    for (size_t i = 0; i < sizeof a; i++) differ[0] += a[i] != b[i];
    /* a first frame is a cut: pass 1 draws nothing, so the compute bands
       come from pass 2's (LATE) lists */
    made = hiz_run(&s, OAK_OCCLUSION_OFF, 1, a, &ss[0], &os[0]) &&
           hiz_run(&s, OAK_OCCLUSION_ON, 1, b, &ss[1], &os[1]);
    if (!made) goto out;
    for (size_t i = 0; i < sizeof a; i++) differ[1] += a[i] != b[i];
    fprintf(stderr,
            "  %s: bytes of the picture that differ, Hi-Z against off: %zu (fourth frame), %zu "
            "(first frame: pass 2 drew %u instances)\n",
            g_backend, differ[0], differ[1], os[1].instances_pass2);
    CHECK_EQ_INT((int)differ[0], 0);
    CHECK_EQ_INT((int)differ[1], 0);
    CHECK_EQ_INT((int)os[1].instances_pass1, 0);
    CHECK(os[1].instances_pass2 > 0);
out:
    oak_destroy_mesh(wall);
    scene_free(&s);
}

/* Issue 16's per-instance split: the tufts in streams of a single LOD band
   (the near band, which the band rule never sends), under OAK_CRASTER=on. */
static void scene_single(scene *s) {
    oak_stream_desc d[2];
    for (uint32_t k = 0; k < 2; k++)
        d[k] = (oak_stream_desc){.capacity = CAP,
                                 .lod_count = 1,
                                 .lods = {{g_tuft, 0}},
                                 .material = k ? g_two_sided : g_one_sided};
    const grid_desc g = {-5.0f, 0.25f, 0.2f, 1.0f, 6.2831853f, 0.0f};
    scene_make(s, d, &g);
}

/* One frame of a fresh renderer under OAK_CRASTER=on with the split on or
   off (OAK_CRASTER_INSTANCE) at `pixels` (0: the default): its channels
   (when albedo is not NULL) and the stream counts. */
static bool split_run(scene *s, bool split, const char *pixels, float *albedo, float *normal,
                      float *depth, oak_stream_stats *ss) {
    setenv("OAK_CRASTER_INSTANCE", split ? "on" : "off", 1);
    if (pixels) setenv("OAK_CRASTER_PIXELS", pixels, 1);
    bool ok = channels_stats(s, "on", albedo, normal, depth, ss);
    unsetenv("OAK_CRASTER_INSTANCE");
    unsetenv("OAK_CRASTER_PIXELS");
    return ok;
}

/* The split's instances: the far ones (by the band rule per instance, from
   small_at x scale on) go to compute, the near ones to the hardware, the
   two lists together the camera's count; the ids as the all-hardware
   picture's (idsMatchHardware's checks); every instance at a huge
   threshold, none at a tiny one; the picture against the CPU's. */
TEST(splitPerInstance) {
    static scene s;
    static float a[2][W * H * 4], n[2][W * H * 4], d[2][W * H * 4];
    static uint8_t pa[W * H * 4], pb[W * H * 4];
    scene_single(&s);
    if (!s.streams[1]) goto out;
    oak_stream_stats ss[2];
    g_bands = g_split = -1;
    bool made = split_run(&s, false, NULL, a[0], n[0], d[0], &ss[0]);
    /* a near band never goes whole, nor per instance with the switch off
       (a fresh renderer logs only a change from 0: -1, nothing logged) */
    CHECK(g_bands <= 0 && g_split <= 0);
    made = made && split_run(&s, true, NULL, a[1], n[1], d[1], &ss[1]);
    CHECK_EQ_INT(g_bands, 0);
    CHECK_EQ_INT(g_split, 2); /* a per-instance band per stream */
    if (!made) goto out;
    /* where the rule puts each instance: small_at (the tuft's sphere, the
       view's 50 degrees over H rows, OAK_CRASTER_PIXELS) x its scale */
    oak_render_view v;
    memset(&v, 0, sizeof v);
    v.height = H, v.proj[1][1] = 1.0f / tanf(25.0f * (float)OAK_PI / 180.0f);
    const oak_mesh_data *md = oak_mesh_get(g_tuft);
    float at = md ? _oak_craster_small_at(&v, md->bounds.radius, 2, _oak_craster_pixels()) : 0;
    uint32_t far = 0, near = 0, edge = 0;
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t i = 0; i < CAP; i++) {
            uint32_t j = i * 2 + k, gx = j % GX, gz = j / GX;
            float x = -5.0f + 0.25f * (float)gx + 0.2f * oak_test_hash01(j, 4);
            float z = 2.0f - 1.0f * (float)gz - 0.8f * oak_test_hash01(j, 5);
            float sc = 0.8f + 0.4f * oak_test_hash01(j, 3);
            float dist = sqrtf(x * x + 1.6f * 1.6f + (z - 4) * (z - 4));
            far += dist >= at * sc, near += dist < at * sc;
            edge += fabsf(dist - at * sc) < 1e-3f * dist; /* either way by rounding */
        }
    uint32_t compute = ss[1].per_instance[0], hardware = ss[1].per_lod[0] - compute;
    fprintf(stderr,
            "  %s: small from %.2f m x scale; instances seen %u (all hardware) %u (split): %u in "
            "compute (of %u far), %u on the hardware (of %u near)\n",
            g_backend, (double)at, ss[0].per_lod[0], ss[1].per_lod[0], compute, far, hardware,
            near);
    CHECK(at > 5 && at < 20);
    CHECK_EQ_INT((int)ss[0].per_instance[0], 0);
    CHECK_EQ_INT((int)ss[1].per_lod[0], (int)ss[0].per_lod[0]); /* both lists counted */
    CHECK(compute > 100 && hardware > 100);                     /* both take a good part */
    CHECK(compute <= far + edge && hardware <= near + edge);
    /* the ids: idsMatchHardware's checks */
    check_ids(a, n, d, "split");
    /* the threshold moves them: all at a huge one, none at a tiny one */
    made = split_run(&s, true, "100000", NULL, NULL, NULL, &ss[1]);
    CHECK(made && ss[1].per_instance[0] == ss[0].per_lod[0]);
    made = split_run(&s, true, "0.01", NULL, NULL, NULL, &ss[1]);
    CHECK(made && ss[1].per_instance[0] == 0 && ss[1].per_lod[0] == ss[0].per_lod[0]);
    /* the picture (split on by default) against the CPU's */
    setenv("OAK_CRASTER", "on", 1);
    oak_test_parity_frame("per-instance split", g_backend, &s.in, W, H, pa, pb);
    unsetenv("OAK_CRASTER");
out:
    scene_free(&s);
}

/* A band whose stream's whole count x triangles passes 2^32 but whose
   visible count does not: a 1 x 0.5 m card of BIG_TRIS triangles (a grid of
   tiny quads), BIG_COUNT records of which BIG_SEEN stand in a row 3 m ahead
   and the rest far behind the eye (culled). The host's old item budget
   (2^32 over whole counts) left it on the hardware; the GPU's plan numbers
   the visible items only, so under OAK_CRASTER=all it is drawn in compute
   and shows the same instances and triangles as the hardware's. */
#define BIG_QX    256
#define BIG_QY    128
#define BIG_TRIS  (2u * BIG_QX * BIG_QY) /* 65,536 */
#define BIG_COUNT 65600u                 /* x BIG_TRIS = 4.299e9 items, past 2^32 */
#define BIG_SEEN  8u

static oak_result make_big_card(oak_mesh *out) {
    enum { VX = BIG_QX + 1, VY = BIG_QY + 1 };
    static float p[VX * VY * 3], n[VX * VY * 3];
    static uint32_t idx[BIG_TRIS * 3];
    for (uint32_t y = 0; y < VY; y++)
        for (uint32_t x = 0; x < VX; x++) {
            uint32_t v = y * VX + x;
            p[v * 3] = -0.5f + (float)x / BIG_QX, p[v * 3 + 1] = 0.5f * (float)y / BIG_QY;
            p[v * 3 + 2] = 0, n[v * 3] = n[v * 3 + 1] = 0, n[v * 3 + 2] = 1;
        }
    uint32_t k = 0;
    for (uint32_t y = 0; y < BIG_QY; y++)
        for (uint32_t x = 0; x < BIG_QX; x++) {
            uint32_t a = y * VX + x, b = a + 1, c = a + VX, d = c + 1;
            const uint32_t q[6] = {a, b, d, a, d, c}; /* counter-clockwise from +z */
            for (int i = 0; i < 6; i++) idx[k++] = q[i];
        }
    oak_mesh_desc d = {.vertex_count = VX * VY,
                       .index_count = BIG_TRIS * 3,
                       .positions = p,
                       .normals = n,
                       .indices = idx,
                       .name = "big card"};
    return oak_make_mesh(out, &d);
}

TEST(bandPastWholeItemBudget) {
    static scene s;
    static float a[2][W * H * 4], n[2][W * H * 4], d[2][W * H * 4];
    static oak_instance rec[BIG_COUNT];
    oak_mesh card = {0};
    memset(&s, 0, sizeof s);
    CHECK_OK(make_big_card(&card));
    oak_test_sunlit_input(&s.in, 0, NULL, NULL, NULL, &s.sun, &s.env, &s.post, 50, 200);
    s.post.ao = OAK_AO_OFF;
    mat4 view;
    glm_lookat((vec3){0, 1.6f, 4}, (vec3){0, 0.2f, -8}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s.in.camera_world);
    oak_stream_desc sd = {
        .capacity = BIG_COUNT, .lod_count = 1, .lods = {{card, 0}}, .material = g_one_sided};
    CHECK_OK(oak_make_stream(&s.streams[0], &sd));
    if (!s.streams[0]) goto out;
    for (uint32_t i = 0; i < BIG_COUNT; i++) {
        bool seen = i < BIG_SEEN;
        rec[i] = (oak_instance){.position = {seen ? -3.5f + (float)i : (float)(i % 256), 0,
                                             seen ? 1.0f : 5000.0f + (float)(i / 256)},
                                .scale = 1,
                                .rotation = {0, 0, 0, 1}};
        for (int c = 0; c < 3; c++)
            rec[i].color[c] = 0.2f + 0.8f * oak_test_hash01(i, 7 + (uint32_t)c);
    }
    CHECK_OK(oak_stream_write(s.streams[0], 0, rec, BIG_COUNT));
    CHECK_OK(oak_stream_set_count(s.streams[0], BIG_COUNT));
    s.in.stream_count = 1, s.in.streams = s.streams;
    g_bands = -1;
    bool made = channels(&s, "off", a[0], n[0], d[0]);
    made = made && channels(&s, "all", a[1], n[1], d[1]);
    CHECK_EQ_INT(g_bands, 1); /* the one band, in compute (the old budget: 0) */
    if (!made) goto out;
    size_t covered[2], either, match, inner;
    compare_ids(a, n, d, covered, &either, &match, &inner);
    fprintf(stderr, "  %s: big card: covered %zu (hardware) %zu (compute); same on %zu of %zu\n",
            g_backend, covered[0], covered[1], match, either);
    CHECK(covered[0] > W * H / 20);
    CHECK((double)match >= 0.99 * (double)either);
    CHECK_EQ_INT((int)inner, 0);
out:
    oak_destroy_stream(s.streams[0]);
    s.streams[0] = NULL;
    if (card.id) oak_destroy_mesh(card);
}

/* plan_past_budget's mesh look-up: 1,024 triangles at 0. */
static bool kilo_mesh(void *user, oak_mesh mesh, uint32_t out[3]) {
    (void)user, (void)mesh;
    out[0] = 3 * 1024, out[1] = 0, out[2] = 0;
    return true;
}

/* The camera's plan keeps a band whose stream's whole count x triangles
   passes 2^32 (2^23 records of 1,024 triangles): the GPU numbers the
   visible items (craster_plan.comp); the old budget left it out. */
static void plan_past_budget(void) {
    static oak_render_view v;
    static oak_render_stream rs;
    static oak_gpu_instcull head;
    static uint32_t table[1 + 2 * OAK_GPU_CRASTER_BANDS][4];
    memset(&v, 0, sizeof v), memset(&rs, 0, sizeof rs), memset(&head, 0, sizeof head);
    rs.count = 1u << 23, rs.lod_count = 1, rs.lods[0] = g_tuft, rs.native = true;
    head.info[0] = 1, head.info[3] = 40, head.bounds[0][3] = 0.5f;
    v.streams = &rs, v.stream_count = 1, v.width = W, v.height = H;
    const uint32_t group = 0;
    const bool moved = false;
    _oak_craster_streams in = {
        .v = &v, .heads = &head, .group = &group, .moved = &moved, .count = 1, .mesh = kilo_mesh};
    uint8_t lods[OAK_STREAM_MAX_PER_VIEW] = {0};
    uint32_t split = 0;
    setenv("OAK_CRASTER", "all", 1);
    CHECK_EQ_INT((int)_oak_craster_plan(&in, W, H, table, lods, &split), 1);
    CHECK_EQ_INT(lods[0], 1);
    CHECK_EQ_INT((int)table[1][2], 1024);
    CHECK_EQ_INT((int)table[2][2], 40); /* its camera command */
    unsetenv("OAK_CRASTER");
}

/* The band rule in numbers, and the switch's words. */
TEST(bandRuleAndSwitch) {
    oak_render_view v;
    memset(&v, 0, sizeof v);
    v.height = 180, v.znear = 0.1f;
    v.proj[1][1] = 1.7320508f; /* 60 degrees */
    oak_render_stream rs;
    memset(&rs, 0, sizeof rs);
    rs.lod_count = 2, rs.lod_distance[0] = 10, rs.lod_distance[1] = 0;
    /* a 0.5 m sphere of 4 triangles from 10 m: 2 0.5 / 2 x 1.732 x 90 / 10 = 7.8 px */
    CHECK(_oak_craster_small(&v, &rs, 1, 0.5f, 4, 8, OAK_CRASTER_MODE_ON));
    CHECK(!_oak_craster_small(&v, &rs, 1, 0.5f, 4, 7.5f, OAK_CRASTER_MODE_ON));
    CHECK(_oak_craster_small(&v, &rs, 1, 0.5f, 16, 4, OAK_CRASTER_MODE_ON));    /* 3.9 px */
    CHECK(!_oak_craster_small(&v, &rs, 0, 0.5f, 4, 1e9f, OAK_CRASTER_MODE_ON)); /* the near band */
    CHECK(_oak_craster_small(&v, &rs, 0, 0.5f, 4, 1, OAK_CRASTER_MODE_ALL));
    CHECK(!_oak_craster_small(&v, &rs, 1, 0.5f, 4, 1e9f, OAK_CRASTER_MODE_OFF));
    v.ortho = true;
    CHECK(!_oak_craster_small(&v, &rs, 1, 0.5f, 4, 1e9f, OAK_CRASTER_MODE_ON));
    /* a cascade of 5 cm texels: a 0.5 m sphere of 16 triangles has 0.25 m
       ones, 5 texels across, near band or not */
    oak_shadow_cascade c;
    memset(&c, 0, sizeof c);
    c.texel_world = 0.05f;
    CHECK(_oak_craster_shadow_small(&c, 0.5f, 16, 5.01f, OAK_CRASTER_MODE_ON));
    CHECK(!_oak_craster_shadow_small(&c, 0.5f, 16, 4.99f, OAK_CRASTER_MODE_ON));
    CHECK(!_oak_craster_shadow_small(&c, 0.5f, 16, 1e9f, OAK_CRASTER_MODE_OFF));
    CHECK(_oak_craster_shadow_small(&c, 0.5f, 16, 0.1f, OAK_CRASTER_MODE_ALL));
    c.texel_world = 0; /* unknown texels: the hardware's */
    CHECK(!_oak_craster_shadow_small(&c, 0.5f, 16, 1e9f, OAK_CRASTER_MODE_ON));
    unsetenv("OAK_CRASTER");
    CHECK_EQ_INT(_oak_craster_mode_get(), OAK_CRASTER_MODE_ON);
    setenv("OAK_CRASTER", "off", 1);
    CHECK_EQ_INT(_oak_craster_mode_get(), OAK_CRASTER_MODE_OFF);
    setenv("OAK_CRASTER", "all", 1);
    CHECK_EQ_INT(_oak_craster_mode_get(), OAK_CRASTER_MODE_ALL);
    setenv("OAK_CRASTER", "sometimes", 1); /* warns once, reads as on */
    CHECK_EQ_INT(_oak_craster_mode_get(), OAK_CRASTER_MODE_ON);
    unsetenv("OAK_CRASTER");
    setenv("OAK_CRASTER_PIXELS", "2.5", 1);
    CHECK(_oak_craster_pixels() == 2.5f);
    setenv("OAK_CRASTER_PIXELS", "-1", 1);
    CHECK(_oak_craster_pixels() == (float)OAK_CRASTER_PIXELS);
    /* the split's own threshold: the band rule's unless set apart */
    setenv("OAK_CRASTER_PIXELS", "3", 1);
    CHECK(_oak_craster_instance_pixels() == 3.0f);
    setenv("OAK_CRASTER_INSTANCE_PIXELS", "1.5", 1);
    CHECK(_oak_craster_instance_pixels() == 1.5f && _oak_craster_pixels() == 3.0f);
    setenv("OAK_CRASTER_INSTANCE_PIXELS", "none", 1);
    CHECK(_oak_craster_instance_pixels() == 3.0f);
    unsetenv("OAK_CRASTER_INSTANCE_PIXELS");
    unsetenv("OAK_CRASTER_PIXELS");
    /* a band row's work groups: 64 items each, capped (OAK_CRASTER_GROUPS) */
    CHECK_EQ_INT((int)_oak_craster_groups(0), 0);
    CHECK_EQ_INT((int)_oak_craster_groups(64), 1);
    CHECK_EQ_INT((int)_oak_craster_groups(65), 2);
    CHECK_EQ_INT((int)_oak_craster_groups(1ull << 40), (int)OAK_GPU_CRASTER_GROUPS);
    setenv("OAK_CRASTER_GROUPS", "100", 1);
    CHECK_EQ_INT((int)_oak_craster_groups(1ull << 40), 100);
    CHECK_EQ_INT((int)_oak_craster_groups(640), 10);
    setenv("OAK_CRASTER_GROUPS", "1e9", 1); /* a dispatch's row holds at most 65535 */
    CHECK_EQ_INT((int)_oak_craster_groups(1ull << 40), 65535);
    setenv("OAK_CRASTER_GROUPS", "-3", 1);
    CHECK_EQ_INT((int)_oak_craster_groups(1ull << 40), (int)OAK_GPU_CRASTER_GROUPS);
    unsetenv("OAK_CRASTER_GROUPS");
    /* the per-instance split's rule and switch */
    v.ortho = false;
    /* 2 0.5 / 2 x 1.732 x 90 / 8 px = 9.74 m a unit of scale (7.8 px at 10 m above) */
    CHECK(fabsf(_oak_craster_small_at(&v, 0.5f, 4, 8) - 9.743f) < 0.01f);
    CHECK(_oak_craster_small_at(&v, 0.5f, 0, 8) == 0);
    v.ortho = true;
    CHECK(_oak_craster_small_at(&v, 0.5f, 4, 8) == 0);
    unsetenv("OAK_CRASTER_INSTANCE");
    CHECK(_oak_craster_instance_get());
    setenv("OAK_CRASTER_INSTANCE", "off", 1);
    CHECK(!_oak_craster_instance_get());
    CHECK(strstr(_oak_craster_instance_words(true), "OAK_CRASTER_INSTANCE=off") != NULL);
    setenv("OAK_CRASTER_INSTANCE", "sometimes", 1); /* warns once, reads as on */
    CHECK(_oak_craster_instance_get());
    unsetenv("OAK_CRASTER_INSTANCE");
    plan_past_budget();
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    oak_engine_desc desc = {.log = log_bands, .log_level = OAK_LOG_INFO};
    int started = oak_test_backend_start_desc(g_backend, &desc);
    if (started) return started;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 0.8f;
    CHECK_OK(oak_make_material(&g_one_sided, &md));
    md.double_sided = true;
    CHECK_OK(oak_make_material(&g_two_sided, &md));
    CHECK_OK(make_tuft(&g_tuft));
    fprintf(stderr, "  backend %s\n", g_backend);
    if (!strcmp(g_backend, "cpu")) {
        RUN(bandRuleAndSwitch);
    } else {
        RUN(idsMatchHardware);
        RUN(pictureMatchesCpu);
        RUN(onPicksFarBandsByThreshold);
        RUN(shadowTexelsMatchHardware);
        RUN(shadowPictureAllVsOff);
        RUN(hizKeepsComputeBands);
        RUN(splitPerInstance);
        RUN(bandPastWholeItemBudget);
    }
    if (g_oak_test_validation)
        fprintf(stderr, "FAIL: %d validation or GL debug messages\n", g_oak_test_validation);
    oak_shutdown();
    return g_oak_test_validation ? 1 : TEST_SUMMARY();
}
