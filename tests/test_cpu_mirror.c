/* CPU backend internals that no other backend shares: the asset mirrors'
 * lifetime. (test_cpu_render.c and test_cpu_shading.c hold only picture
 * tests, which the Vulkan tests include and run on their backend too.) */
#include "cpu_scene.h"
#include "huge_pages.h"

#include "backend/cpu/cpu_internal.h"

static const float UP_Y[3] = {0, 1, 0};

/* A mesh of these positions and indices; frees both (heap buffers the
   caller made for it). */
static oak_mesh mesh_taking(float *pos, uint32_t nv, uint32_t *idx, uint32_t ni) {
    oak_mesh_desc d = {0};
    d.vertex_count = nv;
    d.index_count = ni;
    d.positions = pos;
    d.indices = idx;
    oak_mesh m = {0};
    CHECK_OK(oak_make_mesh(&m, &d));
    free(pos);
    free(idx);
    return m;
}

/* Blades: each triangle's twin (its points in the other winding, a
   rotation of it) 1 to 5 triangles later; some blades off screen, some
   across the near plane, some between pixel centres or of no area. */
static oak_mesh twin_mesh(uint32_t blades, uint32_t *pairs) {
    uint32_t nv = blades * 3, ni = blades * 6;
    float *pos = calloc((size_t)nv * 3, sizeof(float));
    uint32_t *idx = calloc(ni, sizeof(uint32_t));
    CHECK(pos && idx);
    uint32_t r = 12345, in = 0;
    for (uint32_t b = 0; b < blades; b++) {
        float c[3];
        for (int k = 0; k < 3; k++) {
            r = r * 1664525u + 1013904223u;
            c[k] = ((float)(r >> 8) / 16777216.0f - 0.5f) * 12.0f;
        }
        c[2] -= b % 9 == 0 ? 0 : 7; /* most in front of the eye, looking down -z */
        float size = b % 4 == 0 ? 0.004f : b % 11 == 0 ? 25.0f : 1.5f; /* tiny, huge, plain */
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++) {
                r = r * 1664525u + 1013904223u;
                float far = size > 2 && k == 2 ? -60.0f : 0.0f; /* the huge ones behind */
                pos[(b * 3 + v) * 3 + k] =
                    c[k] + far + ((float)(r >> 8) / 16777216.0f - 0.5f) * size;
            }
        if (b % 13 == 0) /* no area: the third point between the first two */
            for (int k = 0; k < 3; k++)
                pos[(b * 3 + 2) * 3 + k] = 0.5f * (pos[b * 9 + k] + pos[b * 9 + 3 + k]);
    }
    /* groups of g blades: their faces, then the twins rotated by b % 3 */
    for (uint32_t b0 = 0; b0 < blades;) {
        uint32_t g = 1 + b0 % 5;
        if (b0 + g > blades) g = blades - b0;
        for (uint32_t b = b0; b < b0 + g; b++)
            for (int v = 0; v < 3; v++) idx[in++] = b * 3 + (uint32_t)v;
        for (uint32_t b = b0; b < b0 + g; b++) {
            uint32_t t[3] = {b * 3, b * 3 + 2, b * 3 + 1};
            for (uint32_t v = 0; v < 3; v++) idx[in++] = t[(v + b) % 3];
        }
        b0 += g;
    }
    *pairs = blades;
    return mesh_taking(pos, nv, idx, ni);
}

static void twin_frame(uint8_t *px, uint32_t w, uint32_t h, oak_mesh m, uint32_t *skipped,
                       uint32_t *twins) {
    sc_scene s;
    sc_init(&s, w, h);
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 0}, at[3] = {0, 0, -1};
    sc_camera(&s, eye, at, UP_Y, 70, 0, 0.05f, 100);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    oak_material_desc cd = oak_material_desc_defaults(NULL);
    cd.base_color[0] = 0.9f, cd.base_color[1] = 0.3f, cd.base_color[2] = 0.1f;
    cd.double_sided = false; /* back faces culled: one of each pair drawn */
    cd.unlit = true;         /* flat: the picture is the coverage */
    oak_material culled = {0};
    CHECK_OK(oak_make_material(&culled, &cd));
    sc_draw(&s, m, culled, id);
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 0.1f, md.base_color[1] = 0.4f, md.base_color[2] = 0.8f;
    md.double_sided = true; /* both faces drawn: no twin may be skipped for being culled */
    md.unlit = true;
    oak_material two = {0};
    CHECK_OK(oak_make_material(&two, &md));
    mat4 rot;
    glm_mat4_identity(rot);
    glm_rotate_y(rot, 0.5f, rot);
    sc_draw(&s, m, two, rot);
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 3);
    const float dir[3] = {-0.3f, -0.8f, -0.52f};
    memcpy(sun->direction, dir, sizeof dir);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {w, h, NULL, 0};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    cpu_backend *b = self;
    CHECK_OK(be->sync(self, &s.view));
    CHECK_OK(be->render(self, &s.view));
    CHECK_OK(be->read_pixels(self, px, (size_t)w * h * 4));
    *skipped = b->opaque.twins_skipped;
    *twins = 0;
    int32_t mi = _oak_cpu_mesh_index(b, m);
    CHECK(mi >= 0);
    if (mi >= 0 && b->meshes[mi].twin)
        for (uint32_t t = 0; t < b->meshes[mi].index_count / 3; t++)
            *twins += b->meshes[mi].twin[t] != 0;
    be->destroy(self);
}

/* The set-up skips a twin it knows to be rejected (cpu_mesh.twin): the
   picture is the one drawn with every twin set up. */
TEST(cpuTwinsSkippedDrawTheSamePicture) {
    enum { W = 256, H = 160 };
    static uint8_t ref[W * H * 4], px[W * H * 4];
    uint32_t pairs = 0, skipped = 0, twins = 0, skipped0 = 0, twins0 = 0;
    oak_mesh m = twin_mesh(2000, &pairs);
    setenv("OAK_CPU_NO_TWINS", "1", 1);
    twin_frame(ref, W, H, m, &skipped0, &twins0);
    unsetenv("OAK_CPU_NO_TWINS");
    twin_frame(px, W, H, m, &skipped, &twins);
    CHECK_EQ_INT(twins0, 0);
    CHECK_EQ_INT(skipped0, 0);
    CHECK_EQ_INT(twins, pairs); /* every blade's twin found */
    /* culled draw: over a third of its twins skipped (off screen, tiny,
       no area, or the face kept); the double-sided one only the rejected */
    CHECK(skipped > pairs / 3 && skipped < 2 * pairs);
    int diff = 0, lit = 0;
    for (size_t k = 0; k < (size_t)W * H; k++) {
        diff += memcmp(px + k * 4, ref + k * 4, 4) != 0;
        lit += ref[k * 4] + ref[k * 4 + 1] + ref[k * 4 + 2] > 30;
    }
    CHECK_EQ_INT(diff, 0);
    CHECK(lit > W * H / 10 && lit < W * H * 95 / 100);
    sc_save("cpuTwinsSkippedDrawTheSamePicture.png", ref, W, H);
    oak_destroy_mesh(m);
}

TEST(cpuMirrorsOfDestroyedMeshesAreFreedAndReused) {
    enum { W = 32, H = 16 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    const float left[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    const float right[4][3] = {{0, -0.5f, 0}, {1, -0.5f, 0}, {1, 0.5f, 0}, {0, 0.5f, 0}};
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, sc_quad(left), sc_material(1, 1, 1, 0, 1, true), id);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {W, H, NULL, 0};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    cpu_backend *b = self;
    CHECK_OK(be->render(self, &s.view));
    /* the first mesh dies; a second takes its place for a sweep period */
    oak_destroy_mesh(s.mesh[0]);
    s.mesh[0] = sc_quad(left);
    for (int f = 0; f < CPU_EVICT_PERIOD + 1; f++) CHECK_OK(be->render(self, &s.view));
    CHECK_EQ_INT(b->mesh_count, 2);
    CHECK(b->meshes[0].id == 0 && b->meshes[0].pos == NULL); /* freed */
    /* a third mesh reuses the freed slot and draws where it should */
    oak_mesh third = sc_quad(right);
    s.mesh[0] = third;
    CHECK_OK(be->render(self, &s.view));
    CHECK_EQ_INT(b->mesh_count, 2);
    CHECK_EQ_INT(b->meshes[0].id, third.id);
    uint8_t px[W * H * 4];
    CHECK_OK(be->read_pixels(self, px, sizeof px));
    CHECK_EQ_INT(sc_px(px, W, 8, 8)[0], 0);
    CHECK(sc_px(px, W, 24, 8)[0] > 150);
    be->destroy(self);
}

/* A W x H ortho view where a world unit is a pixel: cells of four kinds at
   every other pixel, each a pixel's triangles given in the pixel's own
   coordinates (x right, y down, its centre at 0.5, 0.5; dyadic, so the
   snapped points are exact):
   0: a sliver whose bounds hold the centre, the centre outside its edges;
   1: two halves split by a vertical edge through the centre;
   2: two halves split by a horizontal edge through the centre;
   3: a triangle over the centre.
   In 1 and 2 the top-left rule gives the centre to one half only. Then
   two long wedges at the corner (below), counted as kinds 0 and 3. */
static oak_mesh cover_mesh(uint32_t w, uint32_t h, uint32_t n[4]) {
    static const float kinds[4][2][3][2] = {
        {{{0.2f, 0.1f}, {0.9f, 0.1f}, {0.9f, 0.7f}}, {{0}}},
        {{{0.25f, 0.25f}, {0.5f, 0.25f}, {0.5f, 0.75f}},
         {{0.5f, 0.25f}, {0.75f, 0.75f}, {0.5f, 0.75f}}},
        {{{0.25f, 0.25f}, {0.75f, 0.5f}, {0.25f, 0.5f}},
         {{0.25f, 0.5f}, {0.75f, 0.5f}, {0.75f, 0.75f}}},
        {{{0.3f, 0.2f}, {0.8f, 0.6f}, {0.2f, 0.8f}}, {{0}}},
    };
    uint32_t cells = (w / 2) * (h / 2), nv = cells * 6 + 6;
    float *pos = calloc((size_t)nv * 3, sizeof(float));
    uint32_t *idx = calloc(nv, sizeof(uint32_t));
    CHECK(pos && idx);
    uint32_t v = 0;
    memset(n, 0, 4 * sizeof n[0]);
    for (uint32_t j = 2; j + 2 < h; j += 2)
        for (uint32_t i = 2; i + 2 < w; i += 2) {
            uint32_t k = (i / 2 + j / 2 + j / 4) % 4;
            n[k]++;
            for (int t = 0; t < (k == 1 || k == 2 ? 2 : 1); t++)
                for (int c = 0; c < 3; c++, v++) {
                    pos[v * 3 + 0] = (float)i + kinds[k][t][c][0] - (float)w / 2;
                    pos[v * 3 + 1] = (float)h / 2 - ((float)j + kinds[k][t][c][1]);
                    pos[v * 3 + 2] = -5.0f;
                    idx[v] = v;
                }
        }
    /* two wedges from 5000 px off the top-left corner (bounds wider than
       the 32-bit test takes: the 64-bit one runs): along y - x = 0.5, in
       0.4375..0.5 once snapped, between every centre (a sliver); along
       y - x = 0 over pixel (0, 0)'s centre (covering) */
    static const float wedges[2][3][2] = {
        {{-5000.0f, -4999.5f}, {1.0f, 1.45f}, {1.05f, 1.55f}},
        {{-5000.0f, -5000.0f}, {1.0f, 0.9375f}, {0.9375f, 1.0f}},
    };
    for (int t = 0; t < 2; t++) {
        n[t ? 3 : 0]++;
        for (int c = 0; c < 3; c++, v++) {
            pos[v * 3 + 0] = wedges[t][c][0] - (float)w / 2;
            pos[v * 3 + 1] = (float)h / 2 - wedges[t][c][1];
            pos[v * 3 + 2] = -5.0f;
            idx[v] = v;
        }
    }
    return mesh_taking(pos, v, idx, v);
}

static void cover_frame(uint8_t *px, uint32_t w, uint32_t h, oak_mesh m, float jx, float jy,
                        uint32_t *uncovered, uint32_t *kept) {
    sc_scene s;
    sc_init(&s, w, h);
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 0}, at[3] = {0, 0, -1};
    sc_camera(&s, eye, at, UP_Y, 0, (float)h, 0.5f, 50);
    s.view.jitter[0] = jx, s.view.jitter[1] = jy; /* pixels */
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 0.9f, md.base_color[1] = 0.3f, md.base_color[2] = 0.1f;
    md.double_sided = true; /* no facing: coverage alone decides */
    md.unlit = true;
    oak_material mat = {0};
    CHECK_OK(oak_make_material(&mat, &md));
    sc_draw(&s, m, mat, id);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {w, h, NULL, 0};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    cpu_backend *b = self;
    CHECK_OK(be->sync(self, &s.view));
    CHECK_OK(be->render(self, &s.view));
    CHECK_OK(be->read_pixels(self, px, (size_t)w * h * 4));
    *uncovered = b->opaque.uncovered;
    *kept = b->opaque.tri_total;
    be->destroy(self);
}

/* Set-up drops a small triangle whose edges hold no pixel centre
   (cpu_geometry.c covers_centre): exactly the slivers and the halves the
   top-left rule leaves without their centre, and the picture is the one
   drawn with every triangle rasterized ($OAK_CPU_NO_COVER). */
TEST(cpuSetupDropsTrianglesOfNoPixelCentre) {
    enum { W = 256, H = 128 };
    static uint8_t ref[W * H * 4], px[W * H * 4];
    uint32_t n[4], un = 0, kept = 0, un0 = 0, kept0 = 0;
    oak_mesh m = cover_mesh(W, H, n);
    CHECK(n[0] > 1000 && n[1] > 1000 && n[2] > 1000 && n[3] > 1000);
    /* no jitter: the split edges run through the centres */
    setenv("OAK_CPU_NO_COVER", "1", 1);
    cover_frame(ref, W, H, m, 0, 0, &un0, &kept0);
    unsetenv("OAK_CPU_NO_COVER");
    cover_frame(px, W, H, m, 0, 0, &un, &kept);
    CHECK_EQ_INT(un0, 0);
    CHECK_EQ_INT(kept0, n[0] + 2 * n[1] + 2 * n[2] + n[3]);
    CHECK_EQ_INT(un, n[0] + n[1] + n[2]);
    CHECK_EQ_INT(kept, n[1] + n[2] + n[3]);
    int diff = 0, lit = 0;
    for (size_t k = 0; k < (size_t)W * H; k++) {
        diff += memcmp(px + k * 4, ref + k * 4, 4) != 0;
        lit += ref[k * 4] > 100;
    }
    CHECK_EQ_INT(diff, 0);
    CHECK_EQ_INT(lit, (int)(n[1] + n[2] + n[3])); /* one pixel a cell, none for a sliver */
    CHECK(ref[0] > 100 && ref[W * 4] <= 100);     /* the covering wedge, the sliver */
    sc_save("cpuSetupDropsTrianglesOfNoPixelCentre.png", ref, W, H);
    /* a TAA jitter moves the centres off the split edges: still the same
       picture, some triangles still dropped */
    setenv("OAK_CPU_NO_COVER", "1", 1);
    cover_frame(ref, W, H, m, 0.1875f, -0.3125f, &un0, &kept0);
    unsetenv("OAK_CPU_NO_COVER");
    cover_frame(px, W, H, m, 0.1875f, -0.3125f, &un, &kept);
    CHECK(un > n[0] / 2);
    CHECK_EQ_INT(kept + un, kept0);
    CHECK(memcmp(px, ref, sizeof px) == 0);
    oak_destroy_mesh(m);
}

/* The raster alone keeps the top-left rule on small triangles (their
   edges walked in 32 bits, cpu_raster.c RASTER32): each half of kinds 1
   and 2 of cover_mesh drawn on its own, the two halves of one split in
   neighbouring cells, with set-up's dropping off ($OAK_CPU_NO_COVER) so
   every half reaches the raster. Of each pair exactly one pixel is lit:
   the half the rule gives the centre to; a centre on an edge given to
   both (or neither) lights two (or none). */
TEST(cpuRasterGivesEachSplitCentreToOneHalf) {
    enum { W = 64, H = 32 };
    static const float halves[2][2][3][2] = {
        {{{0.25f, 0.25f}, {0.5f, 0.25f}, {0.5f, 0.75f}},
         {{0.5f, 0.25f}, {0.75f, 0.75f}, {0.5f, 0.75f}}},
        {{{0.25f, 0.25f}, {0.75f, 0.5f}, {0.25f, 0.5f}},
         {{0.25f, 0.5f}, {0.75f, 0.5f}, {0.75f, 0.75f}}},
    };
    static uint8_t px[W * H * 4];
    float *pos = calloc((size_t)W * H * 3, sizeof(float));
    uint32_t *idx = calloc((size_t)W * H, sizeof(uint32_t));
    CHECK(pos && idx);
    if (!pos || !idx) return;
    uint32_t v = 0, pairs = 0;
    for (uint32_t j = 2; j + 2 < H; j += 2)
        for (uint32_t i = 2; i + 4 < W; i += 4, pairs++)
            for (uint32_t t = 0; t < 2; t++) /* half t in cell i + 2 t */
                for (int c = 0; c < 3; c++, v++) {
                    const float *q = halves[(j / 2) % 2][t][c];
                    pos[v * 3 + 0] = (float)(i + 2 * t) + q[0] - (float)W / 2;
                    pos[v * 3 + 1] = (float)H / 2 - ((float)j + q[1]);
                    pos[v * 3 + 2] = -5.0f;
                    idx[v] = v;
                }
    oak_mesh m = mesh_taking(pos, v, idx, v);
    uint32_t un = 0, kept = 0;
    setenv("OAK_CPU_NO_COVER", "1", 1);
    cover_frame(px, W, H, m, 0, 0, &un, &kept);
    unsetenv("OAK_CPU_NO_COVER");
    CHECK_EQ_INT(kept, 2 * pairs);
    int bad = 0, lit = 0;
    for (uint32_t j = 2; j + 2 < H; j += 2)
        for (uint32_t i = 2; i + 4 < W; i += 4) {
            int a = px[((size_t)j * W + i) * 4] > 100, b = px[((size_t)j * W + i + 2) * 4] > 100;
            bad += a + b != 1;
            lit += a + b;
        }
    for (size_t k = 0; k < (size_t)W * H; k++) lit -= px[k * 4] > 100;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(lit, 0); /* no pixel lit outside the cells */
    CHECK(pairs > 100);
    oak_destroy_mesh(m);
}

/* The vertex stage's arrays (clip positions, snapped points: 32 bytes a
   vertex) are advised into huge pages when they are at least 2 MiB
   (cpu_draws.c _oak_cpu_huge_pages): on 4 KiB pages the stage was mostly
   TLB misses (docs/PERFORMANCE.md, grass44). $OAK_CPU_NO_HUGE leaves
   them as they were; the picture is the same bytes either way. */
TEST(cpuVertexArraysAskForHugePages) {
#if defined(__linux__)
    enum { W = 64, H = 32, NV = 300000 };
    static uint8_t ref[W * H * 4], px[W * H * 4];
    float *pos = calloc((size_t)NV * 3, sizeof(float));
    uint32_t *idx = calloc(6, sizeof(uint32_t));
    CHECK(pos && idx);
    if (!pos || !idx) return;
    /* a quad over the left half, the other vertices at the origin, unused */
    const float q[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    memcpy(pos, q, sizeof q);
    const uint32_t t[6] = {0, 1, 2, 0, 2, 3};
    memcpy(idx, t, sizeof t);
    oak_mesh m = mesh_taking(pos, NV, idx, 6);
    int advised[2] = {-2, -2};
    for (int k = 0; k < 2; k++) {
        if (k == 0) setenv("OAK_CPU_NO_HUGE", "1", 1);
        sc_scene s;
        sc_init(&s, W, H);
        s.view.post.no_tonemap = true;
        const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
        sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
        mat4 id = GLM_MAT4_IDENTITY_INIT;
        sc_draw(&s, m, sc_material(1, 0, 0, 0, 1, true), id);
        const oak_backend *be = oak_backend_cpu();
        void *self = NULL;
        oak_backend_desc d = {W, H, NULL, 0};
        CHECK_OK(be->create(&self, &d));
        unsetenv("OAK_CPU_NO_HUGE");
        if (!self) return;
        cpu_backend *b = self;
        CHECK_OK(be->sync(self, &s.view));
        CHECK_OK(be->render(self, &s.view));
        CHECK_OK(be->read_pixels(self, k ? px : ref, sizeof px));
        CHECK(b->opaque.clip_cap >= NV * 4u && b->opaque.svert_cap >= NV);
        /* a page inside both arrays, past the first 2 MiB boundary */
        const char *c = (const char *)b->opaque.clip, *v = (const char *)b->opaque.svert;
        int hc = huge_advised(c + (4u << 20)), hv = huge_advised(v + (4u << 20));
        advised[k] = hc < 0 || hv < 0 ? -1 : hc && hv;
        be->destroy(self);
    }
    if (advised[1] >= 0) { /* smaps readable */
        CHECK_EQ_INT(advised[0], 0);
        CHECK_EQ_INT(advised[1], 1);
    }
    CHECK(memcmp(px, ref, sizeof px) == 0);
    CHECK_EQ_INT(sc_px(px, W, 16, 16)[0], 255); /* the quad drawn, red */
    CHECK_EQ_INT(sc_px(px, W, 48, 16)[0], 0);
    oak_destroy_mesh(m);
#endif
}

int main(void) {
    oak_test_init(0);
    RUN(cpuMirrorsOfDestroyedMeshesAreFreedAndReused);
    RUN(cpuTwinsSkippedDrawTheSamePicture);
    RUN(cpuSetupDropsTrianglesOfNoPixelCentre);
    RUN(cpuRasterGivesEachSplitCentreToOneHalf);
    RUN(cpuVertexArraysAskForHugePages);
    oak_shutdown();
    return TEST_SUMMARY();
}
