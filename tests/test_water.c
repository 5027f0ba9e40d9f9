/* Water (world/water.c): the spectrum's waves and dispersion, the height
 * query's convergence and its agreement with the displacement function, the
 * drawn grid's vertices against the query (3 micrometres), the CPU
 * backend's drawn depth against the query, floating boxes (half and a
 * quarter of water's density settle half and a quarter under; on waves a
 * box bobs with the surface), bad descs; seen from below, Snell's window
 * and the sky through the water; and (argv[1] vulkan or gl) that backend
 * draws the water as the CPU does, at the parity rule, from above, below
 * and under the sky, and draws nothing new from above; the water
 * shaded in compute matches the forward pass's (vulkan, gl). */
#include <stdlib.h>
#include <string.h>

#include "oak_test.h"

#include "backend_start.h"
#include "backend/cpu/cpu_internal.h"
#include "world/water_internal.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";

static double rnd(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / 16777216.0;
}

TEST(waterWavesFollowTheSpectrum) {
    oak_water_desc d = {.wind = {1, 1}, .wind_speed = 6.0f, .steepness = 0.32f, .seed = 3};
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, NULL, &d));
    if (!w) return;
    const oak_water_wave *wv = oak_water_waves(w);
    double wind = atan2(1.0, 1.0), steep = 0, lp = 2 * OAK_PI * 9.81 / pow(0.877 * 9.81 / 6.0, 2);
    CHECK_NEAR(wv[0].wavelength, lp, 1e-3 * lp); /* Pierson-Moskowitz peak: 30 m at 6 m/s */
    for (int i = 0; i < OAK_WATER_WAVES; i++) {
        double k = 2 * OAK_PI / wv[i].wavelength;
        CHECK_NEAR(wv[i].omega * wv[i].omega, 9.81 * k, 1e-5 * 9.81 * k); /* w^2 = g k */
        if (i) CHECK_NEAR(wv[i].wavelength, 0.7 * wv[i - 1].wavelength, 1e-4);
        double off = fabs(atan2(wv[i].direction[1], wv[i].direction[0]) - wind);
        CHECK(off <= 0.6 + 1e-6);
        steep += k * wv[i].amplitude;
    }
    CHECK_NEAR(steep, 0.32, 1e-5);
    fprintf(stderr, "  8 waves from %.2f m to %.2f m, peak amplitude %.3f m\n", wv[0].wavelength,
            wv[OAK_WATER_WAVES - 1].wavelength, wv[0].amplitude);
    oak_destroy_water(w);
}

/* Rest points displaced by oak_water_point are found again by the query:
   the horizontal miss under 1e-9 m, the height equal, on steep choppy
   waves, at large t and 100 km out. */
TEST(waterQueryConvergesOnTheDisplacedSurface) {
    oak_water_desc d = {.wind_speed = 7.0f, .steepness = 0.6f, .choppiness = 1.0f, .seed = 9};
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, NULL, &d));
    if (!w) return;
    uint32_t s = 77;
    double worst_miss = 0, worst_h = 0, worst_n = 0;
    for (int i = 0; i < 2000; i++) {
        double far = i % 2 ? 1.0e5 : 0.0, t = i % 3 ? 1.0e6 + rnd(&s) * 100 : rnd(&s) * 100;
        double origin[2] = {far, -far};
        oak_water_set_origin(w, origin);
        double x = (rnd(&s) - 0.5) * 200, z = (rnd(&s) - 0.5) * 200, p[3], h = 0, miss = 1;
        float n0[3], n1[3];
        oak_water_point(w, x, z, t, p, n0, NULL);
        CHECK_OK(oak_water_height(w, p[0], p[2], t, &h, n1, &miss));
        worst_miss = fmax(worst_miss, miss);
        worst_h = fmax(worst_h, fabs(h - p[1]));
        for (int c = 0; c < 3; c++) worst_n = fmax(worst_n, fabs(n0[c] - n1[c]));
    }
    fprintf(stderr, "  2000 points: miss %.3g m, height %.3g m, normal %.3g\n", worst_miss, worst_h,
            worst_n);
    CHECK(worst_miss < 1e-9);
    CHECK(worst_h < 1e-9);
    CHECK(worst_n < 1e-5);
    /* the same world point gives the same height whatever the origin */
    double o1[2] = {1.0e5, 2.0e5}, o0[2] = {0, 0}, h1 = 0, h0 = 0;
    oak_water_set_origin(w, o1);
    CHECK_OK(oak_water_height(w, 3.5, -7.25, 5.0e5, &h1, NULL, NULL));
    oak_water_set_origin(w, o0);
    CHECK_OK(oak_water_height(w, 1.0e5 + 3.5, 2.0e5 - 7.25, 5.0e5, &h0, NULL, NULL));
    CHECK_NEAR(h1, h0, 1e-9);
    oak_destroy_water(w);
}

/* The drawn grid's vertices against the query at the same time: every
   vertex whose neighbouring cells carry all the waves (cells under a sixth
   of the shortest wavelength, where nothing is faded) within 3
   micrometres; the rest within the faded waves' amplitudes. At the origin
   and 100 km out at t = 10^6 s. */
static void grid_check(double far, double t, double *worst, int *checked, double *worst_far) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return;
    oak_water_desc d = {.level = 12.5f, .wind_speed = 8.0f, .grid_spacing = 0.1f, .seed = 4};
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, sc, &d));
    if (!w) {
        oak_destroy_scene(sc);
        return;
    }
    double origin[2] = {far, far * 0.5};
    oak_water_set_origin(w, origin);
    const float eye[3] = {3.37f, 20.0f, -7.91f};
    CHECK_OK(oak_water_update(w, eye, t));
    const oak_mesh_data *m = oak_mesh_get(oak_water_mesh(w));
    const oak_transform *tr = oak_scene_transform(sc, oak_water_entity(w));
    double centre[2];
    oak_water_grid_centre(w, centre);
    CHECK_NEAR(tr->position[0], centre[0], 0);
    CHECK_NEAR(tr->position[1], 12.5, 0);
    const oak_water_wave *wv = oak_water_waves(w);
    double lmin = wv[OAK_WATER_WAVES - 1].wavelength, amp_sum = 0;
    for (int i = 0; i < OAK_WATER_WAVES; i++) amp_sum += wv[i].amplitude * (1 + wv[i].chop);
    uint32_t g = d.grid_cells ? d.grid_cells + 1 : OAK_WATER_GRID_CELLS + 1;
    CHECK_EQ_INT(m->vertex_count, g * g);
    for (uint32_t j = 1; j + 1 < g; j++)
        for (uint32_t i = 1; i + 1 < g; i++) {
            const float *v = m->positions + 3 * (j * g + i);
            /* the largest cell beside the vertex, measured on the mesh */
            double cell = 0;
            const int nb[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
            for (int k = 0; k < 4; k++) {
                const float *u = m->positions + 3 * ((j + nb[k][1]) * g + i + nb[k][0]);
                cell = fmax(cell, hypot(u[0] - v[0], u[2] - v[2]));
            }
            double h = 0;
            CHECK_OK(oak_water_height(w, centre[0] + v[0], centre[1] + v[2], t, &h, NULL, NULL));
            double e = fabs(h - (12.5 + (double)v[1]));
            if (cell * 1.25 < lmin / 6.0) {
                *worst = fmax(*worst, e);
                ++*checked;
            } else {
                *worst_far = fmax(*worst_far, e);
            }
        }
    CHECK(*worst_far < amp_sum);
    oak_destroy_water(w);
    oak_destroy_scene(sc);
}

TEST(waterGridMatchesTheQuery) {
    double worst = 0, worst_far = 0, worst100 = 0, far100 = 0;
    int checked = 0, checked100 = 0;
    grid_check(0, 12.25, &worst, &checked, &worst_far);
    grid_check(1.0e5, 1.0e6 + 0.375, &worst100, &checked100, &far100);
    fprintf(stderr,
            "  origin: %d whole-wave vertices within %.3g m (faded ones %.3g m); 100 km out at "
            "t = 1e6 s: %d within %.3g m\n",
            checked, worst, worst_far, checked100, worst100);
    CHECK(checked > 400 && checked100 > 400);
    CHECK(worst < 3e-6);
    CHECK(worst100 < 3e-6);
}

/* The grid's displacement shares each line's sines and cosines between
   its vertices (angle sums, world/water.c): every vertex of the default
   grid, at the origin and 100 km out at t = 10^6 s, with and without an
   extent box the cells fold onto, against the wave sum formed per point at
   the same rest point and cell: positions within 2 float steps of the
   value (the doubles differ in their last bits, the floats may round the
   other way), normals and foam within 10^-6. */
TEST(waterGridLinesAreThePointSum) {
    uint64_t vertices = 0, far_pos = 0, far_nrm = 0;
    double worst = 0, worst_n = 0;
    for (int c = 0; c < 4; c++) {
        oak_scene *sc = NULL;
        CHECK_OK(oak_make_scene(&sc));
        if (!sc) return;
        double far = c & 1 ? 1.0e5 : 0, t = c & 1 ? 1.0e6 + 0.375 : 7.5;
        oak_water_desc d = {.level = 2.0f, .wind_speed = 9.0f, .seed = 3};
        if (c & 2) /* a box the grid overhangs */
            d.extent[0] = (float)far - 60, d.extent[1] = (float)(0.5 * far) - 35,
            d.extent[2] = (float)far + 45, d.extent[3] = (float)(0.5 * far) + 80;
        oak_water *w = NULL;
        CHECK_OK(oak_make_water(&w, sc, &d));
        if (!w) {
            oak_destroy_scene(sc);
            return;
        }
        double origin[2] = {far, far * 0.5};
        oak_water_set_origin(w, origin);
        const float eye[3] = {-13.3f, 9.0f, 21.7f};
        CHECK_OK(oak_water_update(w, eye, t));
        const oak_mesh_data *m = oak_mesh_get(oak_water_mesh(w));
        uint32_t g = OAK_WATER_GRID_CELLS + 1;
        for (uint32_t j = 0; m && j < g; j++)
            for (uint32_t i = 0; i < g; i++) {
                size_t v = (size_t)j * g + i;
                float p[3], n[3], foam;
                _oak_water_grid_reference(w, i, j, p, n, &foam);
                for (int k = 0; k < 3; k++) {
                    float a = m->positions[3 * v + k],
                          step = nextafterf(fabsf(p[k]), INFINITY) - fabsf(p[k]);
                    worst = fmax(worst, fabs((double)a - p[k]));
                    far_pos += fabsf(a - p[k]) > 2 * step;
                    worst_n = fmax(worst_n, fabs((double)m->normals[3 * v + k] - n[k]));
                    far_nrm += fabsf(m->normals[3 * v + k] - n[k]) > 1e-6f;
                }
                worst_n = fmax(worst_n, fabs((double)m->tangents[4 * v + 3] - foam));
                far_nrm += fabsf(m->tangents[4 * v + 3] - foam) > 1e-6f;
                vertices++;
            }
        oak_destroy_water(w);
        oak_destroy_scene(sc);
    }
    fprintf(stderr,
            "  %llu vertices: positions within %.3g m (%llu past 2 float steps), normals and foam "
            "within %.3g (%llu past 1e-6)\n",
            (unsigned long long)vertices, worst, (unsigned long long)far_pos, worst_n,
            (unsigned long long)far_nrm);
    CHECK(vertices == 4ull * (OAK_WATER_GRID_CELLS + 1) * (OAK_WATER_GRID_CELLS + 1));
    CHECK_EQ_INT(far_pos, 0);
    CHECK_EQ_INT(far_nrm, 0);
}

/* An opaque sea (it writes depth) of 0.1 m cells under a camera at
   k_sea_eye looking down to (0.3, 0, at_z) with a vertical field of view of
   fov_deg, for the depth tests; NULL when the scene cannot be made. */
static const float k_sea_eye[3] = {0.3f, 4.0f, 0.2f};
static oak_scene *opaque_sea(float fov_deg, float at_z, oak_material *mat, oak_water **w) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return NULL;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 0.4f;
    CHECK_OK(oak_make_material(mat, &md));
    oak_water_desc d = {.level = 1.0f,
                        .wind_speed = 10.0f,
                        .grid_spacing = 0.1f,
                        .grid_extent = 400.0f,
                        .material = *mat,
                        .seed = 6};
    CHECK_OK(oak_make_water(w, sc, &d));
    oak_entity cam = oak_scene_create(sc, "camera");
    oak_camera c = {.fov_y = glm_rad(fov_deg), .znear = 0.1f, .zfar = 500.0f};
    oak_scene_set_camera(sc, cam, &c);
    oak_scene_set_active_camera(sc, cam);
    const float at[3] = {0.3f, 0.0f, at_z};
    oak_transform t = oak_transform_look_at(k_sea_eye, at);
    oak_scene_set_transform(sc, cam, &t);
    return sc;
}

/* The half-width (metres from the grid's centre, written to centre) of
   the grid's whole-wave region, where cells carry every wave, less a metre
   (waves move points sideways by under a metre). */
static double whole_wave_half(oak_water *w, double centre[2]) {
    const oak_mesh_data *m = oak_mesh_get(oak_water_mesh(w));
    uint32_t g = OAK_WATER_GRID_CELLS + 1, mid = g / 2;
    double lmin = oak_water_waves(w)[OAK_WATER_WAVES - 1].wavelength, half = 0;
    oak_water_grid_centre(w, centre);
    for (uint32_t i = mid; i + 1 < g; i++) {
        const float *a = m->positions + 3 * (mid * g + i), *e = a + 3;
        if (hypot(e[0] - a[0], e[2] - a[2]) * 1.25 >= lmin / 6.0) break;
        half = a[0];
    }
    return half - 1.0;
}

/* The depth the CPU backend draws, turned back into a world point at the
   pixel centre, lies on the queried surface: within 5 mm at every pixel
   whose point is in the grid's whole-wave region (the drawn triangles are
   planar between vertices 0.1 m apart; the query is the curved surface). */
TEST(waterCpuDepthMatchesTheQuery) {
    oak_material mat = {0};
    oak_water *w = NULL;
    oak_scene *sc = opaque_sea(60.0f, -2.5f, &mat, &w);
    if (!sc) return;
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H};
    CHECK_OK(oak_make_renderer(&r, &rd));
    const double time = 3.75;
    if (w && r) CHECK_OK(oak_water_update(w, k_sea_eye, time));
    if (w && r) CHECK_OK(oak_scene_draw(sc, r));
    const oak_render_view *v = r ? oak_renderer_last_view(r) : NULL;
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc bd = {W, H, NULL, 0};
    if (v) CHECK_OK(be->create(&self, &bd));
    if (self && w) {
        CHECK_OK(be->render(self, v));
        cpu_backend *b = self;
        double centre[2], half = whole_wave_half(w, centre);
        double worst = 0;
        int n = 0;
        mat4 inv;
        glm_mat4_copy((vec4 *)v->inv_view_proj, inv);
        for (uint32_t y = 0; y < H; y += 3)
            for (uint32_t x = 0; x < W; x += 3) {
                float z = b->depth[_oak_cpu_tile_index(&b->opaque, x, y)];
                if (!(z > 0)) continue;
                vec4 q = {(x + 0.5f) / W * 2 - 1, 1 - (y + 0.5f) / H * 2, z, 1}, p;
                glm_mat4_mulv(inv, q, p);
                double px = p[0] / p[3], py = p[1] / p[3], pz = p[2] / p[3], h = 0;
                if (fabs(px - centre[0]) > half || fabs(pz - centre[1]) > half) continue;
                CHECK_OK(oak_water_height(w, px, pz, time, &h, NULL, NULL));
                worst = fmax(worst, fabs(h - py));
                n++;
            }
        fprintf(stderr,
                "  %d pixels within %.2f m of the centre: depth on the surface within %.4f m\n", n,
                half, worst);
        CHECK(n > 300);
        CHECK(worst < 0.005);
        be->destroy(self);
    }
    oak_destroy_renderer(r);
    oak_destroy_water(w);
    oak_destroy_scene(sc);
    oak_destroy_material(mat);
}

/* The depth a backend draws (the depth capture channel, metres along the
   view axis) at the pixels grid vertices land on, turned back into the
   world point on that pixel's ray, lies on the queried surface within
   0.5 mm, on every backend (at 320 x 180, the CI limit, and a 20 degree
   view: pixels under 9 mm on the water). Between vertices the drawn
   triangles are planes and the query is the curved surface
   (waterCpuDepthMatchesTheQuery holds 5 mm anywhere; half-way across a
   0.1 m cell they part by curvature x 1.25e-3 m^2); at a vertex's pixel
   the ray meets the triangles within half a pixel's diagonal s of the
   vertex, where they part by about curvature x s x (0.1 - s) / 2, a
   quarter of that. */
TEST(waterDrawnDepthMatchesTheQueryAtVertices) {
    enum { TW = 320, TH = 180 };
    oak_material mat = {0};
    oak_water *w = NULL;
    oak_scene *sc = opaque_sea(20.0f, -1.5f, &mat, &w);
    if (!sc) return;
    oak_scene_post(sc)->channel = OAK_CHANNEL_DEPTH;
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = g_backend, .width = TW, .height = TH};
    CHECK_OK(oak_make_renderer(&r, &rd));
    static float ch[TW * TH * 4];
    const double time = 3.75;
    if (w && r) CHECK_OK(oak_water_update(w, k_sea_eye, time));
    if (w && r) CHECK_OK(oak_scene_draw(sc, r));
    if (w && r) CHECK_OK(oak_renderer_read_channel(r, ch, (size_t)TW * TH * 4));
    const oak_render_view *v = r ? oak_renderer_last_view(r) : NULL;
    if (v && w) {
        const oak_mesh_data *m = oak_mesh_get(oak_water_mesh(w));
        uint32_t g = OAK_WATER_GRID_CELLS + 1;
        double centre[2], half = whole_wave_half(w, centre);
        mat4 inv, view;
        glm_mat4_copy((vec4 *)v->inv_view_proj, inv);
        glm_mat4_copy((vec4 *)v->view, view);
        double worst = 0, worst_vertex = 0;
        int n = 0;
        for (uint32_t j = 1; j + 1 < g; j++)
            for (uint32_t i = 1; i + 1 < g; i++) {
                const float *a = m->positions + 3 * (j * g + i);
                if (fabs(a[0]) > half || fabs(a[2]) > half) continue;
                vec4 wp = {(float)(centre[0] + a[0]), 1.0f + a[1], (float)(centre[1] + a[2]), 1},
                     cp;
                glm_mat4_mulv((vec4 *)v->view_proj, wp, cp);
                if (cp[3] <= 0) continue;
                int x = (int)floorf((cp[0] / cp[3] * 0.5f + 0.5f) * TW);
                int y = (int)floorf((0.5f - cp[1] / cp[3] * 0.5f) * TH);
                if (x < 0 || y < 0 || x >= TW || y >= TH) continue;
                double depth = ch[4 * (y * TW + x)];
                if (!(depth > 0)) continue;
                /* the pixel centre's ray: two points, the view depth affine along it */
                vec4 q0 = {(x + 0.5f) / TW * 2 - 1, 1 - (y + 0.5f) / TH * 2, 1.0f, 1}, q1, p0, p1,
                     v0, v1;
                glm_vec4_copy(q0, q1);
                q1[2] = 0.5f;
                glm_mat4_mulv(inv, q0, p0);
                glm_mat4_mulv(inv, q1, p1);
                glm_vec4_scale(p0, 1.0f / p0[3], p0);
                glm_vec4_scale(p1, 1.0f / p1[3], p1);
                glm_mat4_mulv(view, p0, v0);
                glm_mat4_mulv(view, p1, v1);
                double d0 = -v0[2], d1 = -v1[2], s = (depth - d0) / (d1 - d0), h = 0;
                double px = p0[0] + s * (p1[0] - p0[0]), py = p0[1] + s * (p1[1] - p0[1]),
                       pz = p0[2] + s * (p1[2] - p0[2]);
                CHECK_OK(oak_water_height(w, px, pz, time, &h, NULL, NULL));
                worst = fmax(worst, fabs(h - py));
                worst_vertex = fmax(worst_vertex, hypot(px - wp[0], pz - wp[2]));
                n++;
            }
        fprintf(stderr,
                "  %s: %d whole-wave vertices' pixels: drawn depth on the surface within %.4f mm "
                "(ray at most %.1f mm from the vertex)\n",
                g_backend, n, 1e3 * worst, 1e3 * worst_vertex);
        CHECK(n > 100);
        CHECK(worst < 5e-4);
    }
    oak_destroy_renderer(r);
    oak_destroy_water(w);
    oak_destroy_scene(sc);
    oak_destroy_material(mat);
}

/* The grid's update (displacement on the job pool, the mesh's vertices, the
   entity and the environment) makes no heap calls after the first. */
TEST(waterUpdateMakesNoHeapCalls) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return;
    long before = oak_test_heap_calls();
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, sc, NULL));
    CHECK(oak_test_heap_calls() > before); /* the counter sees the engine's calls */
    float eye[3] = {0, 5, 0};
    if (w) CHECK_OK(oak_water_update(w, eye, 0.0));
    before = oak_test_heap_calls();
    for (int f = 1; f <= 5 && w; f++) {
        eye[0] += 7.3f, eye[2] -= 3.1f;
        CHECK_OK(oak_water_update(w, eye, f / 30.0));
    }
    long calls = oak_test_heap_calls() - before;
    fprintf(stderr, "  heap calls in 5 updates: %ld\n", calls);
    CHECK_EQ_INT(calls, 0);
    oak_destroy_water(w);
    oak_destroy_scene(sc);
}

static oak_water *still_water(void) {
    oak_water_desc d = {.level = 2.0f, .steepness = -1.0f};
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, NULL, &d));
    return w;
}

/* ae3d's test: half water's density settles half under, a quarter's a
   quarter, within 0.01 after 20 s dropped from a metre above. */
TEST(waterBoxSettlesByDensity) {
    oak_water *w = still_water();
    if (!w) return;
    const float dens[2] = {500.0f, 250.0f};
    for (int k = 0; k < 2; k++) {
        oak_floater f = {.half = {0.5f, 0.5f, 0.75f}, .density = dens[k], .position = {1, 3.5, 2}};
        CHECK_OK(oak_floater_step(&f, w, 20.0));
        float sub = oak_floater_submerged(&f, w);
        fprintf(stderr, "  density %.0f: %.4f under after 20 s (velocity %.2g m/s)\n",
                (double)dens[k], (double)sub, f.velocity);
        CHECK_NEAR(sub, dens[k] / 1000.0, 0.01);
        CHECK(fabs(f.velocity) < 1e-3);
    }
    oak_destroy_water(w);
}

/* On waves a box bobs: its height follows the surface under it (correlation
   over 0.9 across 30 s after settling, swing within 25% of the water's). */
TEST(waterBoxBobsOnWaves) {
    oak_water_desc d = {.wind_speed = 6.0f, .steepness = 0.35f, .seed = 2};
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, NULL, &d));
    if (!w) return;
    oak_floater f = {.half = {0.4f, 0.4f, 0.4f}, .density = 500.0f, .position = {0, 0, 0}};
    CHECK_OK(oak_floater_step(&f, w, 10.0));
    enum { N = 600 };
    double sb = 0, sw = 0, sbb = 0, sww = 0, sbw = 0, bmin = 1e9, bmax = -1e9, wmin = 1e9,
           wmax = -1e9;
    for (int i = 1; i <= N; i++) {
        CHECK_OK(oak_floater_step(&f, w, 10.0 + i * 0.05));
        double h = 0, b = f.position[1];
        CHECK_OK(oak_water_height(w, 0, 0, f.time, &h, NULL, NULL));
        sb += b, sw += h, sbb += b * b, sww += h * h, sbw += b * h;
        bmin = fmin(bmin, b), bmax = fmax(bmax, b), wmin = fmin(wmin, h), wmax = fmax(wmax, h);
    }
    double cov = sbw / N - sb / N * sw / N, vb = sbb / N - sb / N * sb / N,
           vw = sww / N - sw / N * sw / N, corr = cov / sqrt(vb * vw);
    fprintf(stderr, "  box swings %.3f m, water %.3f m, correlation %.3f\n", bmax - bmin,
            wmax - wmin, corr);
    CHECK(corr > 0.9);
    CHECK(fabs((bmax - bmin) / (wmax - wmin) - 1.0) < 0.25);
    oak_destroy_water(w);
}

TEST(waterBadDescsAreOneLine) {
    oak_water *w = NULL;
    oak_water_desc bad[] = {{.wind_speed = -3.0f},
                            {.steepness = 2.0f},
                            {.choppiness = 1.5f},
                            {.grid_cells = 7},
                            {.level = NAN},
                            {.extent = {10, 0, 5, 5}},
                            {.grid_spacing = 100.0f, .grid_extent = 10.0f}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(oak_make_water(&w, NULL, &bad[i]) == OAK_ERROR_INVALID_ARGUMENT);
        CHECK(w == NULL);
        CHECK(strchr(oak_last_error(), '\n') == NULL);
    }
    oak_water_desc box = {.extent = {0, 0, 10, 10}};
    CHECK_OK(oak_make_water(&w, NULL, &box));
    if (!w) return;
    double h = 0;
    CHECK(oak_water_height(w, 20, 5, 0, &h, NULL, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK_OK(oak_water_height(w, 5, 5, 0, &h, NULL, NULL));
    CHECK(oak_water_height(w, NAN, 5, 0, &h, NULL, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    oak_floater f = {.half = {0, 1, 1}, .density = 500};
    CHECK(oak_floater_step(&f, w, 1.0) == OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_water(w);
}

/* ---- the shading: a sloping sand floor under a lake --------------------- */

/* The floor: y = -FLOOR_SLOPE * x over x in [-6, 29], then flat out to 400 m,
   z in [-200, 200], so the water over it is FLOOR_SLOPE * x deep where x > 0. */
#define FLOOR_SLOPE 0.3f

typedef struct lake {
    oak_scene *scene;
    oak_water *water;
    oak_entity camera;
    oak_mesh floor;
    oak_material sand;
    oak_material single; /* the water's material drawn single-sided (g_lake_single) */
    oak_mesh card;       /* g_lake_card's, and its material */
    oak_material red;
} lake;

static bool g_lake_still;        /* still water (the caustics test) */
static bool g_lake_single;       /* the water's material single-sided, as before its underside */
static bool g_lake_dry;          /* no water: the raw sky, or a volume set by lake_volume */
static bool g_lake_no_floor;     /* nothing under the lake: the sky seen from below */
static bool g_lake_card;         /* an unlit red card 2 m over the water (Snell's window) */
static bool g_lake_storm;        /* steep waves (steepness 0.9): crest foam */
static double g_lake_time = 2.5; /* seconds the lake is drawn at */

static bool lake_make(lake *k) {
    memset(k, 0, sizeof *k);
    CHECK_OK(oak_make_scene(&k->scene));
    if (!k->scene) return false;
    enum { N = 36 };
    static float pos[(N + 1) * (N + 1) * 3];
    static uint32_t idx[N * N * 6];
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N; i++) {
            /* the last column far out, flat at the deepest */
            float *v = pos + 3 * (j * (N + 1) + i), x = i < N ? -6.0f + i : 400.0f;
            v[0] = x, v[1] = -FLOOR_SLOPE * (x < 29.0f ? x : 29.0f),
            v[2] = -200.0f + 400.0f * j / N;
        }
    uint32_t *q = idx;
    for (uint32_t j = 0; j < N; j++)
        for (uint32_t i = 0; i < N; i++) {
            uint32_t a = j * (N + 1) + i, b = a + 1, c = a + N + 1, d = c + 1;
            *q++ = a, *q++ = c, *q++ = b, *q++ = b, *q++ = c, *q++ = d;
        }
    oak_mesh_desc md = {.vertex_count = (N + 1) * (N + 1),
                        .index_count = N * N * 6,
                        .positions = pos,
                        .indices = idx,
                        .name = "floor"};
    CHECK_OK(oak_make_mesh(&k->floor, &md));
    oak_material_desc sd = oak_material_desc_defaults(NULL);
    const float sand[4] = {0.55f, 0.48f, 0.36f, 1.0f};
    memcpy(sd.base_color, sand, sizeof sand);
    sd.metallic = 0, sd.roughness = 0.9f;
    CHECK_OK(oak_make_material(&k->sand, &sd));
    if (!g_lake_no_floor) {
        oak_entity f = oak_scene_create(k->scene, "floor");
        oak_mesh_renderer mr = {.mesh = k->floor, .material = k->sand};
        oak_scene_set_mesh_renderer(k->scene, f, &mr);
        oak_transform ft = oak_transform_identity();
        oak_scene_set_transform(k->scene, f, &ft);
    }
    if (g_lake_card) { /* 4 x 4 m, level, centred 2 m over (6, 0.3): seen from both sides */
        oak_shape_desc cd = {.type = OAK_SHAPE_PLANE, .size = {4, 0, 4}};
        CHECK_OK(oak_make_shape(&k->card, &cd));
        oak_material_desc rd = oak_material_desc_defaults(NULL);
        const float red[4] = {1, 0, 0, 1};
        memcpy(rd.base_color, red, sizeof red);
        rd.unlit = rd.double_sided = true;
        CHECK_OK(oak_make_material(&k->red, &rd));
        oak_entity c = oak_scene_create(k->scene, "card");
        oak_mesh_renderer cr = {.mesh = k->card, .material = k->red};
        oak_scene_set_mesh_renderer(k->scene, c, &cr);
        oak_transform ct = oak_transform_identity();
        ct.position[0] = 6, ct.position[1] = 2, ct.position[2] = 0.3f;
        oak_scene_set_transform(k->scene, c, &ct);
    }
    oak_entity sun = oak_scene_create(k->scene, "sun");
    float from[3] = {-30, 60, 25}, at[3] = {0, 0, 0};
    oak_transform st = oak_transform_look_at(from, at);
    oak_scene_set_transform(k->scene, sun, &st);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    l.intensity = 3.0f;
    oak_scene_set_light(k->scene, sun, &l);
    oak_environment *env = oak_scene_environment(k->scene);
    const float zen[3] = {0.25f, 0.45f, 0.85f}, hor[3] = {0.75f, 0.82f, 0.92f};
    memcpy(env->sky_zenith_display, zen, sizeof zen);
    memcpy(env->sky_horizon_display, hor, sizeof hor);
    for (int c = 0; c < 3; c++) env->ambient_sky[c] = 0.3f, env->ambient_ground[c] = 0.1f;
    oak_post *post = oak_scene_post(k->scene);
    post->exposure = 0.6f;
    post->no_fxaa = true;
    post->no_dither = true;
    oak_camera cam = {.fov_y = glm_rad(50.0f), .znear = 0.1f, .zfar = 400.0f};
    k->camera = oak_scene_create(k->scene, "camera");
    oak_scene_set_camera(k->scene, k->camera, &cam);
    oak_scene_set_active_camera(k->scene, k->camera);
    /* the light on a level white card: the sun's 3 lux at 62 degrees over pi,
       and the sky's ambient */
    oak_water_desc d = {.wind_speed = 4.0f,
                        .steepness = 0.2f,
                        .seed = 8,
                        .grid_cells = 96,
                        .grid_spacing = 0.2f,
                        .grid_extent = 300.0f,
                        .light = {1.14f, 1.14f, 1.14f}};
    if (g_lake_still) d.steepness = -1.0f;
    if (g_lake_storm) d.steepness = 0.9f, d.choppiness = 1.0f, d.wind_speed = 8.0f;
    if (g_lake_dry) return k->floor.id && k->sand.id;
    if (g_lake_single) { /* world/water.c's default material, one-sided */
        oak_material_desc wd = oak_material_desc_defaults(NULL);
        wd.metallic = 0, wd.roughness = (float)OAK_WATER_ROUGHNESS;
        wd.alpha_mode = OAK_ALPHA_BLEND;
        wd.water = true;
        CHECK_OK(oak_make_material(&k->single, &wd));
        d.material = k->single;
    }
    CHECK_OK(oak_make_water(&k->water, k->scene, &d));
    return k->water && k->floor.id && k->sand.id;
}

/* A dry lake's environment given the volume the lake's water sets (level
   0, no extent, the default absorption and deep water's radiance under the
   lake's light): the sky seen from below with no surface drawn. */
static void lake_volume(lake *k) {
    oak_environment *e = oak_scene_environment(k->scene);
    const float absorb[3] = {0.8f, 0.3f, 0.22f}, albedo[3] = {0.008f, 0.03f, 0.045f};
    e->water = true;
    e->water_level = 0;
    memset(e->water_extent, 0, sizeof e->water_extent);
    for (int c = 0; c < 3; c++) {
        e->water_absorption[c] = absorb[c];
        e->water_scatter[c] = albedo[c] * 1.14f;
        e->water_foam[c] = (float)OAK_WATER_FOAM_ALBEDO * 1.14f;
    }
    e->water_shore = 0.35f;
}

static void lake_free(lake *k) {
    oak_destroy_water(k->water);
    oak_destroy_scene(k->scene);
    if (k->floor.id) oak_destroy_mesh(k->floor);
    if (k->sand.id) oak_destroy_material(k->sand);
    if (k->single.id) oak_destroy_material(k->single);
    if (k->card.id) oak_destroy_mesh(k->card);
    if (k->red.id) oak_destroy_material(k->red);
}

/* A lake and a W x H renderer of `backend` to draw it; NULL (the lake
   freed, the failure checked) when either could not be made. Close with
   lake_close. */
static oak_renderer *lake_open(lake *k, const char *backend) {
    if (!lake_make(k)) {
        lake_free(k);
        return NULL;
    }
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = backend, .width = W, .height = H};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (!r) lake_free(k);
    return r;
}

/* The lake on still water (no waves) on the cpu backend. */
static oak_renderer *lake_open_still(lake *k) {
    g_lake_still = true;
    oak_renderer *r = lake_open(k, "cpu");
    g_lake_still = false;
    return r;
}

static void lake_close(lake *k, oak_renderer *r) {
    oak_destroy_renderer(r);
    lake_free(k);
}

static void lake_draw(lake *k, oak_renderer *r, const float eye[3], const float at[3],
                      uint8_t *px) {
    oak_transform t = oak_transform_look_at(eye, at);
    oak_scene_set_transform(k->scene, k->camera, &t);
    if (k->water) CHECK_OK(oak_water_update(k->water, eye, g_lake_time));
    CHECK_OK(oak_scene_draw(k->scene, r));
    CHECK_OK(oak_renderer_read_pixels(r, px, (size_t)W * H * 4));
}

/* The pixel a world point lands on (false off screen). */
static bool lake_pixel(oak_renderer *r, const float p[3], int *x, int *y) {
    const oak_render_view *v = oak_renderer_last_view(r);
    vec4 q = {p[0], p[1], p[2], 1}, c;
    glm_mat4_mulv((vec4 *)v->view_proj, q, c);
    if (c[3] <= 0) return false;
    *x = (int)floorf((c[0] / c[3] * 0.5f + 0.5f) * W);
    *y = (int)floorf((0.5f - c[1] / c[3] * 0.5f) * H);
    return *x >= 0 && *y >= 0 && *x < W && *y < H;
}

/* Mean of the 3 x 3 pixels round (x, y), in 0..255. */
static void mean3(const uint8_t *px, int x, int y, double rgb[3]) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
            for (int c = 0; c < 3; c++) rgb[c] += px[4 * ((y + j) * W + x + i) + c] / 9.0;
}

static void lake_save(const char *file, const uint8_t *px) {
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, file), W, H, px);
}

static const float k_down_eye[3] = {6.0f, 12.0f, 0.5f}, k_down_at[3] = {6.0f, 0.0f, 0.0f};
static const float k_low_eye[3] = {-5.0f, 1.5f, 0.0f}, k_low_at[3] = {40.0f, -1.2f, 0.0f};
static const float k_under_eye[3] = {6.0f, -1.0f, 0.3f}, k_under_at[3] = {30.0f, -5.0f, 0.0f};

TEST(waterFloorDarkensAndBluesWithDepth) {
    lake k;
    oak_renderer *r = lake_open(&k, "cpu");
    if (!r) return;
    static uint8_t px[W * H * 4];
    lake_draw(&k, r, k_down_eye, k_down_at, px);
    lake_save("water_down.png", px);
    /* the floor at depths 0.6, 1.8, 3 and 4.2 m, and dry at x = -2.5 */
    const float xs[5] = {-2.5f, 2.0f, 6.0f, 10.0f, 14.0f};
    double prev_br = 0, prev_l = 1e9;
    for (int i = 0; i < 5; i++) {
        float p[3] = {xs[i], -FLOOR_SLOPE * xs[i], 0};
        int x = 0, y = 0;
        CHECK(lake_pixel(r, p, &x, &y));
        double c[3];
        mean3(px, x, y, c);
        double br = c[2] / fmax(c[0], 1), l = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        fprintf(stderr, "  depth %.1f m: rgb %.0f %.0f %.0f, B/R %.2f\n",
                (double)(FLOOR_SLOPE * xs[i] > 0 ? FLOOR_SLOPE * xs[i] : 0), c[0], c[1], c[2], br);
        if (i > 0) {
            CHECK(br > prev_br + 0.05); /* bluer */
            CHECK(l < prev_l);          /* darker */
        }
        prev_br = br, prev_l = l;
    }
    lake_close(&k, r);
}

/* Mean luminance (0..255) of the water pixels in rows [y0, y1). */
static double rows_luma(const uint8_t *px, int y0, int y1) {
    double sum = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = px + 4 * (y * W + x);
            sum += 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
        }
    return sum / ((y1 - y0) * W);
}

/* At grazing angles the surface reflects the sky: deep water seen a few
   degrees down is brighter than deep water seen straight down. Shore foam
   is near white where the floor is within the shore depth. */
TEST(waterReflectsAtGrazingAndFoamsAtTheShore) {
    lake k;
    oak_renderer *r = lake_open(&k, "cpu");
    if (!r) return;
    static uint8_t px[W * H * 4];
    /* straight down over 7.5 m of water */
    const float deep_eye[3] = {25.0f, 10.0f, 0.2f}, deep_at[3] = {25.0f, 0.0f, 0.0f};
    lake_draw(&k, r, deep_eye, deep_at, px);
    double down = rows_luma(px, 30, 60);
    /* grazing, a few degrees below the horizon, past the floor's end */
    const float g_eye[3] = {20.0f, 1.2f, 0.0f}, g_at[3] = {200.0f, -20.0f, 0.0f};
    lake_draw(&k, r, g_eye, g_at, px);
    lake_save("water_grazing.png", px);
    int y0 = 0, y1 = 0, x = 0;
    float near[3] = {26.0f, 0.0f, 0.0f}, far[3] = {60.0f, 0.0f, 0.0f};
    CHECK(lake_pixel(r, near, &x, &y1));
    CHECK(lake_pixel(r, far, &x, &y0));
    double graze = y1 > y0 ? rows_luma(px, y0, y1) : 0;
    fprintf(stderr, "  deep water: straight down luma %.1f, %d rows at grazing %.1f\n", down,
            y1 - y0, graze);
    CHECK(y1 - y0 >= 3);
    CHECK(graze > 1.5 * down);
    /* the shore, from above: foam where the floor is 5 and 15 cm down */
    lake_draw(&k, r, k_down_eye, k_down_at, px);
    const float xs[2] = {0.17f, 0.5f};
    for (int i = 0; i < 2; i++) {
        float p[3] = {xs[i], -FLOOR_SLOPE * xs[i], 0};
        int fx = 0, fy = 0;
        CHECK(lake_pixel(r, p, &fx, &fy));
        const uint8_t *c = px + 4 * (fy * W + fx);
        fprintf(stderr, "  foam %.2f m down: rgb %d %d %d\n", (double)(FLOOR_SLOPE * xs[i]), c[0],
                c[1], c[2]);
        CHECK(c[0] > 170 && c[1] > 170 && c[2] > 170);
    }
    float deep[3] = {10.0f, -3.0f, 0};
    int dx = 0, dy = 0;
    CHECK(lake_pixel(r, deep, &dx, &dy));
    const uint8_t *c = px + 4 * (dy * W + dx);
    CHECK(c[0] < 120); /* and not at 3 m */
    lake_close(&k, r);
}

/* The backend named on the command line draws the lake as the CPU does,
   from above (shore, foam, depth) and at a low angle (reflection, glitter). */
/* Under the level the bottom fades into deep water's colour with distance:
   the floor 4 m away is lighter and less blue than 16 m away, and 16 m away
   is already nearer the colour 60 m away (all water) than 4 m away is. */
TEST(waterUnderwaterFog) {
    lake k;
    oak_renderer *r = lake_open(&k, "cpu");
    if (!r) return;
    static uint8_t px[W * H * 4];
    lake_draw(&k, r, k_under_eye, k_under_at, px);
    lake_save("water_under.png", px);
    const float pts[3][3] = {{10.0f, -3.0f, 0.3f}, {22.0f, -6.6f, 0.0f}, {66.0f, -8.7f, 0.0f}};
    double c[3][3];
    for (int i = 0; i < 3; i++) {
        int x = 0, y = 0;
        CHECK(lake_pixel(r, pts[i], &x, &y));
        mean3(px, x, y, c[i]);
        fprintf(stderr, "  floor %.0f m away: rgb %.0f %.0f %.0f\n",
                (double)hypotf(pts[i][0] - k_under_eye[0], pts[i][1] - k_under_eye[1]), c[i][0],
                c[i][1], c[i][2]);
    }
    CHECK(c[0][0] > c[1][0] + 10);
    CHECK(c[1][2] / fmax(c[1][0], 1) > c[0][2] / fmax(c[0][0], 1));
    double d_near = 0, d_far = 0;
    for (int ch = 0; ch < 3; ch++) {
        d_near += fabs(c[0][ch] - c[2][ch]);
        d_far += fabs(c[1][ch] - c[2][ch]);
    }
    CHECK(d_far < 0.5 * d_near);
    lake_close(&k, r);
}

/* Caustics move on the bottom: on still water (so nothing else moves), the
   floor under the water changes between two instants half a second apart
   and the dry floor does not. */
TEST(waterCausticsMoveOnTheBottom) {
    lake k;
    oak_renderer *r = lake_open_still(&k);
    if (!r) return;
    static uint8_t a[W * H * 4], b[W * H * 4];
    oak_scene_post(k.scene)->bloom = OAK_BLOOM_OFF; /* it would spread the wet into the dry */
    g_lake_time = 10.0;
    lake_draw(&k, r, k_down_eye, k_down_at, a);
    g_lake_time = 10.5;
    lake_draw(&k, r, k_down_eye, k_down_at, b);
    g_lake_time = 2.5;
    lake_save("water_caustics.png", b);
    /* floor points 0.5-2 m under, and dry sand */
    double wet = 0, dry = 0;
    int nw = 0, nd = 0;
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 20; j++) {
            bool is_wet = i >= 20;
            float x = is_wet ? 1.7f + 0.25f * (i - 20) : -3.5f + 0.15f * i, z = -3.0f + 0.3f * j;
            float p[3] = {x, -FLOOR_SLOPE * x, z};
            int px = 0, py = 0;
            if (!lake_pixel(r, p, &px, &py)) continue;
            double d = 0;
            for (int c = 0; c < 3; c++)
                d += abs(a[4 * (py * W + px) + c] - b[4 * (py * W + px) + c]) / 3.0;
            if (is_wet)
                wet += d, nw++;
            else
                dry += d, nd++;
        }
    wet /= nw > 0 ? nw : 1, dry /= nd > 0 ? nd : 1;
    fprintf(stderr, "  half a second apart: floor under water moves %.2f/255, dry %.2f/255\n", wet,
            dry);
    CHECK(nw > 200 && nd > 200);
    CHECK(wet > 2.0);
    CHECK(dry == 0.0);
    lake_close(&k, r);
}

/* The water's refraction offset (docs/SHADING.md "Water"): still water
   reads the frame behind at the point itself, exactly; a wave's normal
   tilted 0.2 rad towards +x, seen from straight above and from 45 degrees,
   moves the point read by Snell's law's difference against still water
   (1.33) over OAK_WATER_REFRACT_DEPTH, within 1e-4 m of the double
   precision answer (it moves 0.075 m and 0.125 m, away from the tilt). The
   backends' parity
   (waterBackendParity, on waves) holds the GPUs to the same. */
static void refract_d(const double V[3], const double N[3], double eta, double r[3]) {
    double ni = -(N[0] * V[0] + N[1] * V[1] + N[2] * V[2]);
    double k = 1 - eta * eta * (1 - ni * ni), s = eta * ni + sqrt(k);
    for (int i = 0; i < 3; i++) r[i] = -eta * V[i] - s * N[i];
}

TEST(waterRefractionOffsetFollowsTheNormal) {
    const float P[3] = {3, 0.2f, -1}, up[3] = {0, 1, 0};
    float e[3];
    const float Vs[2][3] = {{0, 1, 0}, {-0.70710678f, 0.70710678f, 0}};
    for (int v = 0; v < 2; v++) {
        _oak_cpu_water_refract_point(P, up, Vs[v], e);
        CHECK(e[0] == P[0] && e[1] == P[1] && e[2] == P[2]);
        float N[3] = {sinf(0.2f), cosf(0.2f), 0};
        _oak_cpu_water_refract_point(P, N, Vs[v], e);
        double Vd[3] = {Vs[v][0], Vs[v][1], Vs[v][2]}, Nd[3] = {N[0], N[1], N[2]};
        double Ud[3] = {0, 1, 0}, a[3], f[3], want[3];
        refract_d(Vd, Nd, 1 / 1.33, a);
        refract_d(Vd, Ud, 1 / 1.33, f);
        double moved = 0;
        for (int i = 0; i < 3; i++) {
            want[i] = P[i] + (a[i] - f[i]) * OAK_WATER_REFRACT_DEPTH;
            moved += (want[i] - P[i]) * (want[i] - P[i]);
            CHECK(fabs(e[i] - want[i]) < 1e-4);
        }
        fprintf(stderr, "  tilt 0.2 rad, view %s: the point read moves %.4f m (x %+.4f m)\n",
                v ? "at 45 degrees" : "from above", sqrt(moved), e[0] - P[0]);
        CHECK(sqrt(moved) > 0.05);
    }
}

/* ---- seen from below: Snell's window and the sky through the water ---- */

/* 1 m under, looking straight up (the camera's x along world x) */
static const float k_up_eye[3] = {6.0f, -1.0f, 0.3f}, k_up_at[3] = {6.0f, 9.0f, 0.3f};
/* 1 m under, looking level along +x */
static const float k_level_at[3] = {30.0f, -1.0f, 0.3f};

static void lake_fov(lake *k, float degrees) {
    oak_camera cam = {.fov_y = glm_rad(degrees), .znear = 0.1f, .zfar = 400.0f};
    oak_scene_set_camera(k->scene, k->camera, &cam);
}

/* The angle (degrees) between pixel (x, y)'s view ray and the zenith. */
static double zenith_angle(oak_renderer *r, int x, int y) {
    const oak_render_view *v = oak_renderer_last_view(r);
    float nx = ((float)x + 0.5f) / W * 2.0f - 1.0f, ny = 1.0f - ((float)y + 0.5f) / H * 2.0f;
    vec4 a = {nx, ny, 1.0f, 1.0f}, b = {nx, ny, 0.5f, 1.0f}, pa, pb;
    glm_mat4_mulv((vec4 *)v->inv_view_proj, a, pa);
    glm_mat4_mulv((vec4 *)v->inv_view_proj, b, pb);
    double d[3], l = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = (double)pb[k] / pb[3] - (double)pa[k] / pa[3];
        l += d[k] * d[k];
    }
    return acos(d[1] / sqrt(l)) * 180.0 / OAK_PI;
}

static bool unlike(const uint8_t *a, const uint8_t *b, int tol) {
    return abs(a[0] - b[0]) > tol || abs(a[1] - b[1]) > tol || abs(a[2] - b[2]) > tol;
}

/* Snell's window on row y of a view looking straight up: scanning out from
   the centre each way, the zenith angle halfway between the last pixel
   unlike the edge of the row (total internal reflection there) by more
   than 2/255 and the first like it; edge[0] left, edge[1] right. */
static void window_edges(oak_renderer *r, const uint8_t *px, int y, double edge[2]) {
    const uint8_t *out = px + 4 * (y * W + W - 1);
    edge[0] = edge[1] = 0;
    for (int side = 0; side < 2; side++) {
        int step = side ? 1 : -1, x = side ? W / 2 : W / 2 - 1;
        while (x + step >= 0 && x + step < W && unlike(px + 4 * (y * W + x + step), out, 2))
            x += step;
        if (x + step >= 0 && x + step < W)
            edge[side] = 0.5 * (zenith_angle(r, x, y) + zenith_angle(r, x + step, y));
    }
}

/* The least and greatest of the window's edges on 7 rows, in degrees. */
static void window_spread(oak_renderer *r, const uint8_t *px, double range[2]) {
    range[0] = 180, range[1] = 0;
    for (int y = 15; y < H; y += 10) {
        double e[2];
        window_edges(r, px, y, e);
        for (int i = 0; i < 2; i++)
            range[0] = fmin(range[0], e[i]), range[1] = fmax(range[1], e[i]);
    }
}

static double luma3(const double c[3]) {
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/* From 1 m under still water, looking straight up: the surface's underside
   is drawn (no pixel is the raw sky's), Snell's window is a bright disc of
   angular radius asin(1 / 1.33) = 48.75 degrees (measured within 1 degree
   both ways along the middle row) and the zenith is brighter than 60
   degrees off it, where total internal reflection shows deep water. On
   waves the edge ripples: over 7 rows it spreads more than 3 degrees
   (still water: under 1.5). */
TEST(waterSnellsWindowFromBelow) {
    static uint8_t up[W * H * 4], wavy[W * H * 4], raw[W * H * 4];
    lake k;
    oak_renderer *r = lake_open_still(&k);
    if (!r) return;
    lake_fov(&k, 90.0f);
    lake_draw(&k, r, k_up_eye, k_up_at, up);
    lake_save("water_window.png", up);
    double edge[2];
    window_edges(r, up, H / 2, edge);
    double zen[3], off[3];
    mean3(up, W / 2, H / 2, zen);
    int x60 = W / 2;
    while (x60 < W - 2 && zenith_angle(r, x60, H / 2) < 60.0) x60++;
    mean3(up, x60, H / 2, off);
    double a60 = zenith_angle(r, x60, H / 2), want = asin(1.0 / OAK_WATER_IOR) * 180.0 / OAK_PI;
    fprintf(stderr,
            "  still water from 1 m under: window edges at %.2f and %.2f degrees (asin(1/1.33) = "
            "%.2f); zenith rgb %.0f %.0f %.0f luma %.1f, %.1f degrees off rgb %.0f %.0f %.0f "
            "luma %.1f: %.2f times\n",
            edge[0], edge[1], want, zen[0], zen[1], zen[2], luma3(zen), a60, off[0], off[1], off[2],
            luma3(off), luma3(zen) / fmax(luma3(off), 1e-3));
    CHECK(fabs(edge[0] - want) < 1.0 && fabs(edge[1] - want) < 1.0);
    CHECK(luma3(zen) > 3.0 * luma3(off));
    double still[2];
    window_spread(r, up, still);
    lake_close(&k, r);
    /* waves tilt the normal: the edge ripples */
    r = lake_open(&k, "cpu");
    if (!r) return;
    lake_fov(&k, 90.0f);
    lake_draw(&k, r, k_up_eye, k_up_at, wavy);
    lake_save("water_window_waves.png", wavy);
    double waves[2];
    window_spread(r, wavy, waves);
    fprintf(stderr,
            "  the edge over 7 rows: still water %.2f to %.2f degrees, waves %.2f to %.2f\n",
            still[0], still[1], waves[0], waves[1]);
    CHECK(still[1] - still[0] < 1.5);
    CHECK(waves[1] - waves[0] > 3.0);
    lake_close(&k, r);
    /* the raw sky the same way, with no water at all */
    g_lake_dry = true;
    r = lake_open(&k, "cpu");
    g_lake_dry = false;
    if (!r) return;
    lake_fov(&k, 90.0f);
    lake_draw(&k, r, k_up_eye, k_up_at, raw);
    lake_close(&k, r);
    int skyish = 0, least = 255;
    for (int i = 0; i < W * H; i++) {
        int d = 0;
        for (int c = 0; c < 3; c++)
            d = abs(up[4 * i + c] - raw[4 * i + c]) > d ? abs(up[4 * i + c] - raw[4 * i + c]) : d;
        least = d < least ? d : least;
        skyish += d <= 3;
    }
    fprintf(stderr, "  pixels within 3/255 of the raw sky: %d (the nearest differs by %d)\n",
            skyish, least);
    CHECK_EQ_INT(skyish, 0);
}

/* The half-width in pixels of the red run through the middle of row y
   (pixels redder than blue), from the centre out each way, averaged. */
static double red_half_width(const uint8_t *px, int y) {
    int n[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        int step = side ? 1 : -1;
        for (int x = side ? W / 2 : W / 2 - 1; x >= 0 && x < W; x += step) {
            const uint8_t *p = px + 4 * (y * W + x);
            if (!(p[0] > p[2] + 20)) break;
            n[side]++;
        }
    }
    return 0.5 * (n[0] + n[1]);
}

/* What stands above the water is seen through Snell's window where the
   refracted ray meets it: a 4 x 4 m red card 2 m over still water, from 1
   m under looking straight up (90 degrees across 90 px: 45 px per unit of
   tan). A ray leaving the eye at w to the zenith crosses the surface tan w
   out and bends to a with sin a = 1.33 sin w, so it reaches the card's edge
   (2 m out) where tan w + 2 tan a = 2: tan w = 0.504, 22.7 px from the
   centre (straight through, unbent, the edge would be at 2/3, 30 px).
   The centre looks along its ray, so it meets what it shows itself: red
   (a screen-space march alone never leaves that pixel). */
TEST(waterWindowShowsWhatStandsAbove) {
    static uint8_t px[W * H * 4];
    lake k;
    g_lake_card = true;
    oak_renderer *r = lake_open_still(&k);
    g_lake_card = false;
    if (!r) return;
    lake_fov(&k, 90.0f);
    lake_draw(&k, r, k_up_eye, k_up_at, px);
    lake_save("water_window_card.png", px);
    double half = red_half_width(px, H / 2), want = 45.0 * 0.5042;
    const uint8_t *c = px + 4 * (H / 2 * W + W / 2);
    fprintf(stderr,
            "  the card through the window: half-width %.1f px (Snell %.1f, unbent 30.0); its "
            "centre rgb %d %d %d\n",
            half, want, c[0], c[1], c[2]);
    CHECK(fabs(half - want) < 1.5);
    CHECK(c[0] > 3 * c[2] && c[0] > 60);
    lake_close(&k, r);
}

/* The brightest pixel's channel sum within 4 px of the centre. */
static int centre_peak(const uint8_t *px) {
    int best = 0;
    for (int y = H / 2 - 4; y <= H / 2 + 4; y++)
        for (int x = W / 2 - 4; x <= W / 2 + 4; x++) {
            const uint8_t *p = px + 4 * (y * W + x);
            best = p[0] + p[1] + p[2] > best ? p[0] + p[1] + p[2] : best;
        }
    return best;
}

/* The sun seen through Snell's window: under an hour's sky (18:30, the sun
   about 10 degrees up, so 80 degrees off the zenith in air) from 1 m under
   still water, a 3 degree view along the refracted ray (asin(sin 80 /
   1.33) = 47.8 degrees off the zenith in the water). Refraction squashes
   the key light's disc (0.27 degrees in air) to about 0.05 degrees tall
   there (d(water)/d(air) = cos 80 / (1.33 cos 47.8) = 0.19), so the view
   is narrow and the peak is looked for round the centre: white at
   exposure -13 with the disc, not without it (env.sun_disc 0 and the key
   light at 0, since the light's own glitter through the still surface
   also peaks there: waterSunGlittersFromBelow), nor along the unbent
   direction (total internal reflection there). */
TEST(waterSunShowsThroughTheWindow) {
    static uint8_t px[3][W * H * 4]; /* refracted with the disc, without, unbent */
    for (int pass = 0; pass < 3; pass++) {
        lake k;
        oak_renderer *r = lake_open_still(&k);
        if (!r) return;
        oak_scene_post(k.scene)->ev100_set = true;
        CHECK_OK(oak_world_set_time(k.scene, 18.5f));
        oak_scene_post(k.scene)->exposure_comp = -13;
        oak_entity sun = oak_scene_find(k.scene, "sun");
        if (pass == 1) {
            oak_scene_environment(k.scene)->sun_disc = 0;
            oak_light *l = oak_scene_get(k.scene, sun, OAK_COMPONENT_LIGHT);
            if (l) l->intensity = 0;
        }
        const oak_transform *lt = oak_scene_transform(k.scene, sun);
        versor q = {lt->rotation[0], lt->rotation[1], lt->rotation[2], lt->rotation[3]};
        vec3 z = {0, 0, 1}, u;
        glm_quat_rotatev(q, z, u); /* toward the sun, in air */
        double h = sqrt((double)u[0] * u[0] + (double)u[2] * u[2]), sw = h / OAK_WATER_IOR;
        double cw = sqrt(1 - sw * sw);
        float d[3] = {(float)(u[0] / h * sw), (float)cw, (float)(u[2] / h * sw)};
        if (pass == 2) d[0] = u[0], d[1] = u[1], d[2] = u[2];
        float at[3] = {k_up_eye[0] + d[0], k_up_eye[1] + d[1], k_up_eye[2] + d[2]};
        lake_fov(&k, 3.0f);
        lake_draw(&k, r, k_up_eye, at, px[pass]);
        lake_close(&k, r);
    }
    lake_save("water_window_sun.png", px[0]);
    int peak[3];
    for (int i = 0; i < 3; i++) peak[i] = centre_peak(px[i]);
    fprintf(stderr,
            "  the sun through the window: the centre's peak (channel sum) %d with the disc, %d "
            "without, %d unbent\n",
            peak[0], peak[1], peak[2]);
    CHECK_EQ_INT(peak[0], 3 * 255);
    CHECK(peak[1] < 3 * 250);
    CHECK(peak[2] < 3 * 250);
}

/* The key light's glitter on the waves from below (docs/SHADING.md "Water",
   oak_water_glitter_below): 1 m under the waves at 16:00, looking toward
   where the sun is refracted to, the same view with the sun's light at 0 has
   no glint; with it, bright sparkles (channel sum over the darker view's
   brightest + 60) cover a share of the view and lift its mean. */
TEST(waterSunGlittersFromBelow) {
    static uint8_t px[2][W * H * 4]; /* the sun on, off */
    for (int pass = 0; pass < 2; pass++) {
        lake k;
        oak_renderer *r = lake_open(&k, "cpu");
        if (!r) return;
        oak_scene_post(k.scene)->ev100_set = true;
        CHECK_OK(oak_world_set_time(k.scene, 16.0f));
        oak_scene_environment(k.scene)->sun_disc = 0; /* the glint alone, not the disc */
        oak_scene_post(k.scene)->exposure_comp = -12;
        oak_entity sun = oak_scene_find(k.scene, "sun");
        const oak_transform *lt = oak_scene_transform(k.scene, sun);
        versor q = {lt->rotation[0], lt->rotation[1], lt->rotation[2], lt->rotation[3]};
        vec3 z = {0, 0, 1}, u;
        glm_quat_rotatev(q, z, u); /* toward the sun, in air */
        double h = sqrt((double)u[0] * u[0] + (double)u[2] * u[2]), sw = h / OAK_WATER_IOR;
        float d[3] = {(float)(u[0] / h * sw), (float)sqrt(1 - sw * sw), (float)(u[2] / h * sw)};
        if (pass == 1) {
            oak_light *l = oak_scene_get(k.scene, sun, OAK_COMPONENT_LIGHT);
            CHECK(l != NULL);
            if (l) l->intensity = 0;
        }
        float at[3] = {k_up_eye[0] + d[0], k_up_eye[1] + d[1], k_up_eye[2] + d[2]};
        lake_fov(&k, 40.0f);
        lake_draw(&k, r, k_up_eye, at, px[pass]);
        lake_close(&k, r);
    }
    lake_save("water_glitter_below.png", px[0]);
    int dark_max = 0;
    double mean[2] = {0, 0};
    for (int i = 0; i < W * H; i++) {
        int sum = px[1][4 * i] + px[1][4 * i + 1] + px[1][4 * i + 2];
        dark_max = sum > dark_max ? sum : dark_max;
        for (int p = 0; p < 2; p++)
            mean[p] += (px[p][4 * i] + px[p][4 * i + 1] + px[p][4 * i + 2]) / (3.0 * W * H);
    }
    int glints = 0;
    for (int i = 0; i < W * H; i++)
        glints += px[0][4 * i] + px[0][4 * i + 1] + px[0][4 * i + 2] > dark_max + 60;
    fprintf(stderr,
            "  glitter from below: %d of %d pixels over the sunless view's brightest (%d) + 60; "
            "mean %.1f with the sun, %.1f without\n",
            glints, W * H, dark_max, mean[0], mean[1]);
    CHECK(glints > W * H / 200);
    CHECK(mean[0] > mean[1] + 1.0);
}

/* Crest foam from above (docs/SHADING.md "Water": diffuse albedo
   OAK_WATER_FOAM_ALBEDO times the tangent's w): on a steep sea (steepness
   0.9), straight down over 7 m and more of water, the pixels the grid's
   foamed vertices (w over 0.8) land on are near white and those of clear
   vertices (w 0) are dark: the foamed pixels' mean luma (0..255) at least
   80 over the clear ones'. */
TEST(waterCrestFoamShowsFromAbove) {
    lake k;
    g_lake_storm = true;
    oak_renderer *r = lake_open(&k, "cpu");
    g_lake_storm = false;
    if (!r) return;
    static uint8_t px[W * H * 4];
    float eye[3] = {30.0f, 10.0f, 0.2f}, at[3] = {30.0f, 0.0f, 0.0f};
    lake_draw(&k, r, eye, at, px);
    const oak_mesh_data *m = oak_mesh_get(oak_water_mesh(k.water));
    double centre[2], sum[2] = {0, 0}, nearest = 1e9;
    int n[2] = {0, 0};
    oak_water_grid_centre(k.water, centre);
    /* over the foamed vertex nearest the grid's centre (the grid follows
       the eye; the waves are the world's) */
    for (uint32_t i = 0; m && m->tangents && i < m->vertex_count; i++) {
        const float *p = m->positions + 3 * i;
        double dist = hypot(p[0], p[2]);
        if (m->tangents[4 * i + 3] >= 0.8f && dist < nearest)
            nearest = dist, at[0] = (float)centre[0] + p[0], at[2] = (float)centre[1] + p[2];
    }
    eye[0] = at[0], eye[2] = at[2] + 0.2f;
    lake_draw(&k, r, eye, at, px);
    lake_save("water_crest_foam.png", px);
    m = oak_mesh_get(oak_water_mesh(k.water));
    oak_water_grid_centre(k.water, centre);
    float most = 0;
    int any = 0;
    for (uint32_t i = 0; m && m->tangents && i < m->vertex_count; i++) {
        const float *p = m->positions + 3 * i, foam = m->tangents[4 * i + 3];
        most = fmaxf(most, foam), any += foam > 0;
        if (foam > 0 && foam < 0.8f) continue;
        float wp[3] = {(float)centre[0] + p[0], p[1], (float)centre[1] + p[2]};
        int x = 0, y = 0;
        if (!lake_pixel(r, wp, &x, &y)) continue;
        const uint8_t *c = px + 4 * (y * W + x);
        int f = foam > 0;
        sum[f] += 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        n[f]++;
    }
    double clear = n[0] ? sum[0] / n[0] : 0, foamed = n[1] ? sum[1] / n[1] : 0;
    fprintf(stderr,
            "  crest foam from above: %d foamed vertices' pixels, mean luma %.1f; %d clear, "
            "%.1f (%d of the grid's vertices foamed, the most %.2f; over one %.1f m from the "
            "first view's centre)\n",
            n[1], foamed, n[0], clear, any, (double)most, nearest);
    CHECK(n[1] >= 20 && n[0] >= 200);
    CHECK(foamed > clear + 80);
    lake_close(&k, r);
}

/* The key light's glitter on the waves from above: 10 m over deep water at
   16:00, looking down along the sun's mirror direction, the same view with
   the sun's light at 0 has no glint; with it, sparkles (channel sum over
   the sunless view's brightest + 60) cover at least 1% of the view and lift
   its mean by at least 10/255. */
TEST(waterSunGlittersFromAbove) {
    static uint8_t px[2][W * H * 4]; /* the sun on, off */
    for (int pass = 0; pass < 2; pass++) {
        lake k;
        oak_renderer *r = lake_open(&k, "cpu");
        if (!r) return;
        oak_scene_post(k.scene)->ev100_set = true;
        CHECK_OK(oak_world_set_time(k.scene, 16.0f));
        oak_scene_environment(k.scene)->sun_disc = 0; /* the glint alone */
        oak_scene_post(k.scene)->exposure_comp = -12;
        oak_entity sun = oak_scene_find(k.scene, "sun");
        const oak_transform *lt = oak_scene_transform(k.scene, sun);
        versor q = {lt->rotation[0], lt->rotation[1], lt->rotation[2], lt->rotation[3]};
        vec3 z = {0, 0, 1}, u;
        glm_quat_rotatev(q, z, u); /* toward the sun */
        if (pass == 1) {
            oak_light *l = oak_scene_get(k.scene, sun, OAK_COMPONENT_LIGHT);
            CHECK(l != NULL);
            if (l) l->intensity = 0;
        }
        /* the mirror of the sun's direction, from 10 m up over x 30 */
        const float eye[3] = {30.0f - 10.0f * u[0] / u[1], 10.0f, 0.2f - 10.0f * u[2] / u[1]};
        const float at[3] = {eye[0] + u[0], eye[1] - u[1], eye[2] + u[2]};
        lake_fov(&k, 40.0f);
        lake_draw(&k, r, eye, at, px[pass]);
        lake_close(&k, r);
    }
    lake_save("water_glitter_above.png", px[0]);
    int dark_max = 0;
    double mean[2] = {0, 0};
    for (int i = 0; i < W * H; i++) {
        int sum = px[1][4 * i] + px[1][4 * i + 1] + px[1][4 * i + 2];
        dark_max = sum > dark_max ? sum : dark_max;
        for (int p = 0; p < 2; p++)
            mean[p] += (px[p][4 * i] + px[p][4 * i + 1] + px[p][4 * i + 2]) / (3.0 * W * H);
    }
    int glints = 0;
    for (int i = 0; i < W * H; i++)
        glints += px[0][4 * i] + px[0][4 * i + 1] + px[0][4 * i + 2] > dark_max + 60;
    fprintf(stderr,
            "  glitter from above: %d of %d pixels over the sunless view's brightest (%d) + 60; "
            "mean %.1f with the sun, %.1f without\n",
            glints, W * H, dark_max, mean[0], mean[1]);
    CHECK(glints > W * H / 100);
    CHECK(mean[0] > mean[1] + 10.0);
}

/* The sky where nothing is drawn, from 1 m under (no surface: the lake's
   volume without its grid, no floor): looking level, the lower half (water
   all the way) is deep water's colour, bluer and darker than the raw sky
   there; looking up, the window's rule gives the same picture as the still
   surface's underside (within 2/255 at 0.99 of the channels). */
TEST(waterSkyFromBelowIsFogged) {
    static uint8_t level[2][W * H * 4], up[W * H * 4], surf[W * H * 4];
    for (int pass = 0; pass < 2; pass++) { /* 0: the raw sky, 1: under the volume */
        lake k;
        g_lake_dry = g_lake_no_floor = true;
        oak_renderer *r = lake_open(&k, "cpu");
        g_lake_dry = g_lake_no_floor = false;
        if (!r) return;
        if (pass) lake_volume(&k);
        lake_draw(&k, r, k_up_eye, k_level_at, level[pass]);
        if (pass) {
            lake_fov(&k, 90.0f);
            lake_draw(&k, r, k_up_eye, k_up_at, up);
            lake_save("water_sky_below.png", up);
        }
        lake_close(&k, r);
    }
    lake_save("water_sky_level.png", level[1]);
    double c[2][3] = {{0}};
    for (int y = H / 2 + 5; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int p = 0; p < 2; p++)
                for (int ch = 0; ch < 3; ch++)
                    c[p][ch] += level[p][4 * (y * W + x) + ch] / (double)((H - H / 2 - 5) * W);
    double br[2] = {c[0][2] / fmax(c[0][0], 1), c[1][2] / fmax(c[1][0], 1)};
    fprintf(stderr,
            "  below the horizon: raw sky rgb %.0f %.0f %.0f (B/R %.2f, luma %.1f), from under "
            "the water %.0f %.0f %.0f (B/R %.2f, luma %.1f)\n",
            c[0][0], c[0][1], c[0][2], br[0], luma3(c[0]), c[1][0], c[1][1], c[1][2], br[1],
            luma3(c[1]));
    CHECK(br[1] > 2.0 * br[0]);
    CHECK(luma3(c[1]) < 0.5 * luma3(c[0]));
    /* looking up: the window on the sky's own path, and the surface's */
    lake k;
    oak_renderer *r = lake_open_still(&k);
    if (!r) return;
    lake_fov(&k, 90.0f);
    lake_draw(&k, r, k_up_eye, k_up_at, surf);
    double edge[2];
    window_edges(r, up, H / 2, edge);
    lake_close(&k, r);
    int near = 0, worst = 0;
    for (int i = 0; i < W * H * 4; i++) {
        if (i % 4 == 3) continue;
        int d = abs(up[i] - surf[i]);
        near += d <= 2;
        worst = d > worst ? d : worst;
    }
    double share = near / (double)(W * H * 3);
    fprintf(stderr,
            "  looking up with no surface: window edges at %.2f and %.2f degrees; against the "
            "still surface's underside %.4f of channels within 2/255, max %d\n",
            edge[0], edge[1], share, worst);
    double want = asin(1.0 / OAK_WATER_IOR) * 180.0 / OAK_PI;
    CHECK(fabs(edge[0] - want) < 1.0 && fabs(edge[1] - want) < 1.0);
    CHECK(share >= 0.99);
}

/* From above nothing changed: the water's material drawn double-sided (its
   underside for an eye below) gives the same bytes from above and at a low
   angle as the same material single-sided, on each backend. */
TEST(waterFromAboveIgnoresTheUnderside) {
    static uint8_t px[2][2][W * H * 4];
    const float *eyes[2] = {k_down_eye, k_low_eye}, *ats[2] = {k_down_at, k_low_at};
    for (int pass = 0; pass < 2; pass++) {
        lake k;
        g_lake_single = pass == 1;
        oak_renderer *r = lake_open(&k, g_backend);
        g_lake_single = false;
        if (!r) return;
        for (int v = 0; v < 2; v++) lake_draw(&k, r, eyes[v], ats[v], px[pass][v]);
        lake_close(&k, r);
    }
    for (int v = 0; v < 2; v++) {
        size_t diff = 0;
        for (size_t i = 0; i < sizeof px[0][0]; i++) diff += px[0][v][i] != px[1][v][i];
        fprintf(stderr, "  %s: %zu bytes differ between double- and single-sided water\n",
                v ? "low" : "down", diff);
        CHECK(diff == 0);
    }
}

TEST(waterBackendParity) {
    enum { VIEWS = 8 };
    static uint8_t px[2][VIEWS][W * H * 4]; /* [backend][view] */
    const float *eyes[4] = {k_down_eye, k_low_eye, k_under_eye, k_up_eye};
    const float *ats[4] = {k_down_at, k_low_at, k_under_at, k_up_at};
    g_oak_test_validation = g_oak_test_errors = 0;
    for (int pass = 0; pass < 2; pass++) {
        lake k;
        oak_renderer *r = lake_open(&k, pass ? g_backend : "cpu");
        if (!r) return;
        for (int v = 0; v < 3; v++) lake_draw(&k, r, eyes[v], ats[v], px[pass][v]);
        lake_fov(&k, 90.0f); /* the window's edge in view, on waves */
        lake_draw(&k, r, eyes[3], ats[3], px[pass][3]);
        lake_close(&k, r);
        /* the sky seen from below: the volume, no surface, no floor */
        g_lake_dry = g_lake_no_floor = true;
        r = lake_open(&k, pass ? g_backend : "cpu");
        g_lake_dry = g_lake_no_floor = false;
        if (!r) return;
        lake_volume(&k);
        lake_draw(&k, r, k_up_eye, k_level_at, px[pass][4]);
        lake_fov(&k, 90.0f);
        lake_draw(&k, r, k_up_eye, k_up_at, px[pass][5]);
        lake_close(&k, r);
        /* the red card over the water through Snell's window */
        g_lake_card = true;
        r = lake_open(&k, pass ? g_backend : "cpu");
        g_lake_card = false;
        if (!r) return;
        lake_fov(&k, 90.0f);
        lake_draw(&k, r, k_up_eye, k_up_at, px[pass][6]);
        lake_close(&k, r);
        /* an hour's sky, its sun's disc through the window on waves */
        r = lake_open(&k, pass ? g_backend : "cpu");
        if (!r) return;
        oak_scene_post(k.scene)->ev100_set = true;
        CHECK_OK(oak_world_set_time(k.scene, 16.0f));
        oak_scene_post(k.scene)->exposure_comp = -12;
        lake_fov(&k, 90.0f);
        lake_draw(&k, r, k_up_eye, k_up_at, px[pass][7]);
        lake_close(&k, r);
    }
    const char *names[VIEWS] = {"down", "low", "under", "up", "skylevel", "skyup", "card", "sun"};
    for (int v = 0; v < VIEWS; v++) {
        char name[64];
        snprintf(name, sizeof name, "water_%s_%s.png", g_backend, names[v]);
        lake_save(name, px[1][v]);
        oak_test_parity(names[v], px[0][v], px[1][v], W, H);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
}

/* The GPUs shade water in compute (docs/SHADING.md "Water on the GPUs"):
   its fragments only find its pixels. The pictures from above, at a
   grazing angle, from below and up through Snell's window match the
   forward pass's (blend.frag, OAK_VK_WATER_FORWARD=1 or
   OAK_GL_WATER_FORWARD=1), and the blend counts say which path drew. */
TEST(waterComputeMatchesForward) {
    enum { VIEWS = 4 };
    static uint8_t px[2][VIEWS][W * H * 4]; /* [forward][view] */
    const float *eyes[VIEWS] = {k_down_eye, k_low_eye, k_under_eye, k_up_eye};
    const float *ats[VIEWS] = {k_down_at, k_low_at, k_under_at, k_up_at};
    const char *forward = strcmp(g_backend, "gl") ? "OAK_VK_WATER_FORWARD" : "OAK_GL_WATER_FORWARD";
    g_oak_test_validation = g_oak_test_errors = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) setenv(forward, "1", 1);
        lake k;
        oak_renderer *r = lake_open(&k, g_backend);
        unsetenv(forward);
        if (!r) return;
        for (int v = 0; v < VIEWS; v++) {
            lake_draw(&k, r, eyes[v], ats[v], px[pass][v]);
            oak_blend_stats bs;
            CHECK_OK(oak_renderer_blend_stats(r, &bs));
            /* the water is one draw; the forward pass shades it in blend.frag */
            CHECK_EQ_INT((int)bs.compute, pass ? 0 : 1);
        }
        lake_close(&k, r);
    }
    for (int v = 0; v < VIEWS; v++) {
        size_t diff = 0, water = 0;
        int most = 0;
        for (size_t i = 0; i < sizeof px[0][0]; i++) {
            int d = abs((int)px[0][v][i] - (int)px[1][v][i]);
            diff += d > 0;
            most = d > most ? d : most;
        }
        /* the views do show water: more blue than red */
        for (size_t i = 0; i < (size_t)W * H; i++) water += px[0][v][4 * i + 2] > px[0][v][4 * i];
        fprintf(stderr, "  %s: %zu of %zu channels differ (largest %d), %zu blue-ish pixels\n",
                (const char *[]){"down", "low", "under", "up"}[v], diff, sizeof px[0][0], most,
                water);
        CHECK(water > (size_t)W * H / 8);
        CHECK(diff * 1000 <= sizeof px[0][0]); /* at most 0.1%, by rounding alone */
        CHECK(most <= 2);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
}

int main(int argc, char **argv) {
    if (argc > 1) {
        g_backend = argv[1];
        int s = oak_test_backend_start(g_backend, oak_test_count_log);
        if (s) return s;
        RUN(waterBackendParity);
        RUN(waterFromAboveIgnoresTheUnderside);
        RUN(waterDrawnDepthMatchesTheQueryAtVertices);
        RUN(waterComputeMatchesForward);
    } else {
        oak_engine_desc d = {.log_level = OAK_LOG_WARN, .allocator = oak_test_counting_allocator()};
        if (oak_init(&d) != OAK_OK) return 2;
        RUN(waterWavesFollowTheSpectrum);
        RUN(waterQueryConvergesOnTheDisplacedSurface);
        RUN(waterGridMatchesTheQuery);
        RUN(waterGridLinesAreThePointSum);
        RUN(waterCpuDepthMatchesTheQuery);
        RUN(waterDrawnDepthMatchesTheQueryAtVertices);
        RUN(waterUpdateMakesNoHeapCalls);
        RUN(waterBoxSettlesByDensity);
        RUN(waterBoxBobsOnWaves);
        RUN(waterBadDescsAreOneLine);
        RUN(waterFloorDarkensAndBluesWithDepth);
        RUN(waterReflectsAtGrazingAndFoamsAtTheShore);
        RUN(waterUnderwaterFog);
        RUN(waterCausticsMoveOnTheBottom);
        RUN(waterRefractionOffsetFollowsTheNormal);
        RUN(waterSnellsWindowFromBelow);
        RUN(waterWindowShowsWhatStandsAbove);
        RUN(waterSunShowsThroughTheWindow);
        RUN(waterSunGlittersFromBelow);
        RUN(waterCrestFoamShowsFromAbove);
        RUN(waterSunGlittersFromAbove);
        RUN(waterSkyFromBelowIsFogged);
        RUN(waterFromAboveIgnoresTheUnderside);
    }
    oak_shutdown();
    return TEST_SUMMARY();
}
