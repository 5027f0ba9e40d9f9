/* Rocks (world/rocks.c): every rock's lowest point sunk under the height
 * query at its centre by oak_rocks_sink (at least OAK_ROCK_SINK of its
 * height) and none in the lake, over the meadow's hills, lake and
 * mountains; more on steep and high ground; the count and records the same
 * for a seed (not for another); the meadow's default rocks and none at -1;
 * after a rebase 100 km out the same rocks at the same world places, the
 * same height over the ground; the cull's count per LOD band against one
 * made here; bad descs one line; and (argv[1] vulkan or gl) that backend
 * draws a patch of rocks as the CPU does, at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"
#include "world/internal.h"

#define W     160
#define H     90
#define FAR_X 100352.0
#define FAR_Z 100352.0

static const char *g_backend = "cpu";

/* the meadow's lake (world/meadow.c) */
static const float k_level = -8.0f;
static const float k_lake[4] = {14 - 600, -1037 - 600, 14 + 600, -1037 + 600};

static void save(const char *file, const uint8_t *px) {
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, file), W, H, px);
}

typedef struct patch {
    oak_scene *scene;
    oak_terrain *terrain;
    oak_rocks *rocks;
    oak_entity camera;
} patch;

static void patch_free(patch *p) {
    oak_destroy_rocks(p->rocks);
    oak_destroy_terrain(p->terrain);
    oak_destroy_scene(p->scene);
    memset(p, 0, sizeof *p);
}

/* A scene with a sun, a camera, a terrain of desc td and rocks of rd. */
static bool patch_make(patch *p, const oak_terrain_desc *td, const oak_rocks_desc *rd) {
    memset(p, 0, sizeof *p);
    CHECK_OK(oak_make_scene(&p->scene));
    if (!p->scene) return false;
    oak_entity sun = oak_scene_create(p->scene, "sun");
    float from[3] = {60, 80, 40}, at[3] = {0, 0, 0};
    oak_transform st = oak_transform_look_at(from, at);
    oak_scene_set_transform(p->scene, sun, &st);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    l.intensity = 3.0f;
    l.cast_shadows = true;
    oak_scene_set_light(p->scene, sun, &l);
    oak_scene_environment(p->scene)->fog_density = 0.0008f;
    oak_post *post = oak_scene_post(p->scene);
    post->exposure = 1.0f;
    post->no_fxaa = true;
    post->no_dither = true;
    /* bands as authored (lod_scale 1): the counts need both bands at a small render */
    oak_camera cam = {.fov_y = glm_rad(55.0f), .znear = 0.3f, .zfar = 2500.0f, .lod_scale = 1};
    p->camera = oak_scene_create(p->scene, "camera");
    oak_scene_set_camera(p->scene, p->camera, &cam);
    oak_scene_set_active_camera(p->scene, p->camera);
    CHECK_OK(oak_make_terrain(&p->terrain, p->scene, td));
    if (p->terrain) CHECK_OK(oak_make_rocks(&p->rocks, p->scene, p->terrain, rd));
    if (p->rocks) return true;
    patch_free(p);
    return false;
}

static void patch_look(patch *p, const float eye[3], const float target[3]) {
    oak_transform t = oak_transform_look_at(eye, target);
    oak_scene_set_transform(p->scene, p->camera, &t);
}

/* Terrain and rocks updated from the camera until the terrain settles. */
static void patch_settle(patch *p) {
    for (int i = 0; i < 200; i++) {
        const float *eye = oak_scene_transform(p->scene, p->camera)->position;
        CHECK_OK(oak_terrain_update(p->terrain, eye));
        eye = oak_scene_transform(p->scene, p->camera)->position; /* rebased */
        CHECK_OK(oak_rocks_update(p->rocks, eye));
        oak_terrain_stats s;
        oak_terrain_get_stats(&s, p->terrain);
        if (!s.pending) return;
    }
    CHECK(!"terrain settled");
}

/* A rock as placed: its lowest point, height and reach across from its
   record's position (from the points every backend draws). */
typedef struct placed {
    float low, height, radius;
} placed;

static float *g_pts;
#define PTS_CAP 8192

static bool rock_placed(oak_stream *s, uint32_t i, placed *out) {
    uint32_t n = oak_stream_instance_points(s, i, 0, g_pts, PTS_CAP);
    if (!n) return false;
    const oak_instance *rec = &oak_stream_records(s)[i];
    float lo = INFINITY, hi = -INFINITY, rad = 0;
    for (uint32_t v = 0; v < n; v++) {
        const float *q = g_pts + 3 * v;
        lo = fminf(lo, q[1]), hi = fmaxf(hi, q[1]);
        float dx = q[0] - rec->position[0], dz = q[2] - rec->position[2];
        rad = fmaxf(rad, sqrtf(dx * dx + dz * dz));
    }
    *out = (placed){lo, hi - lo, rad};
    return true;
}

/* Every rock over the meadow's hills, lake shore and mountains: its lowest
   point oak_rocks_sink under the query at its centre (within 1 cm), that
   at least OAK_ROCK_SINK of its height; 0.5 to 4 m across (within 30% for
   the mesh's lumps); none in the lake's box on ground under its level +
   0.3 m; rocks on steep ground (under 0.94 normal y, about 20 degrees) and
   on level ground over 60 m each at least three times as dense as on
   level ground under 15 m (per hectare of each, the ground counted on a
   4 m grid here). */
TEST(rocksSitInTheGround) {
    oak_terrain_desc td = _oak_world_meadow_terrain();
    oak_rocks_desc rd = {.seed = 11,
                         .water_level = k_level,
                         .water_box = {k_lake[0], k_lake[1], k_lake[2], k_lake[3]}};
    patch p;
    if (!patch_make(&p, &td, &rd)) return;
    const float eyes[3][3] = {{14, 0, -1037}, {0, 0, 0}, {-2200, 0, -300}};
    uint32_t total = 0, off = 0, shallow = 0, wet = 0, near_lake = 0, sizes_off = 0;
    uint32_t steep_rocks = 0, level_rocks = 0, steep_cells = 0, level_cells = 0;
    uint32_t high_rocks = 0, high_cells = 0;
    double worst = 0, small = 1e9, big = 0;
    for (int e = 0; e < 3; e++) {
        uint64_t t0 = oak_time_ns();
        CHECK_OK(oak_rocks_update(p.rocks, eyes[e]));
        fprintf(stderr, "  eye %d: placed in %.1f ms\n", e, oak_ms_since(t0));
        oak_rocks_stats st;
        oak_rocks_get_stats(&st, p.rocks);
        CHECK_EQ_INT(st.dropped, 0);
        for (uint32_t k = 0; k < OAK_ROCK_KINDS; k++) {
            oak_stream *s = oak_rocks_stream(p.rocks, k);
            const oak_instance *rec = oak_stream_records(s);
            uint32_t n = oak_stream_count(s);
            total += n;
            for (uint32_t i = 0; i < n; i++) {
                float x = rec[i].position[0], z = rec[i].position[2], h, nrm[3];
                CHECK_OK(oak_terrain_height(p.terrain, x, z, &h, nrm));
                placed pl;
                if (!rock_placed(s, i, &pl)) {
                    CHECK(!"rock points");
                    continue;
                }
                double sink = h - pl.low, want = oak_rocks_sink(pl.height, pl.radius, nrm[1]);
                worst = fmax(worst, fabs(sink - want));
                off += fabs(sink - want) > 0.01;
                shallow += sink < OAK_ROCK_SINK * pl.height - 0.01;
                small = fmin(small, 2 * pl.radius), big = fmax(big, 2 * pl.radius);
                sizes_off += 2 * pl.radius < 0.5f * 0.7f || 2 * pl.radius > 4.0f * 1.3f;
                bool in_box = x >= k_lake[0] && x <= k_lake[2] && z >= k_lake[1] && z <= k_lake[3];
                wet += in_box && h < k_level + 0.3f;
                near_lake += in_box && h < k_level + 3.0f;
                steep_rocks += nrm[1] < 0.94f;
                level_rocks += nrm[1] > 0.995f && h < 15;
                high_rocks += nrm[1] > 0.995f && h > 60;
            }
        }
        /* the ground around this eye on a 4 m grid: hectares of each kind */
        for (float gz = -380; gz <= 380; gz += 4)
            for (float gx = -380; gx <= 380; gx += 4) {
                if (gx * gx + gz * gz > 380.0f * 380.0f) continue;
                float h, nrm[3];
                CHECK_OK(oak_terrain_height(p.terrain, eyes[e][0] + gx, eyes[e][2] + gz, &h, nrm));
                steep_cells += nrm[1] < 0.94f;
                level_cells += nrm[1] > 0.995f && h < 15;
                high_cells += nrm[1] > 0.995f && h > 60;
            }
    }
    double steep_ha = steep_cells * 16 / 1e4, level_ha = level_cells * 16 / 1e4,
           high_ha = high_cells * 16 / 1e4;
    fprintf(stderr,
            "  %u rocks: %u off their sink (worst %.4f m), %u sunk less than the share, %u in "
            "the lake (%u within 3 m of its level), %.2f to %.2f m across (%u out); %.1f a "
            "hectare on steep ground (%.1f ha), %.1f on level (%.1f ha), %.1f on level high "
            "ground (%.1f ha)\n",
            total, off, worst, shallow, wet, near_lake, small, big, sizes_off,
            steep_rocks / steep_ha, steep_ha, level_rocks / level_ha, level_ha,
            high_rocks / high_ha, high_ha);
    CHECK(total > 500);
    CHECK_EQ_INT(off, 0);
    CHECK_EQ_INT(shallow, 0);
    CHECK_EQ_INT(wet, 0);
    CHECK(near_lake > 0); /* rocks on the shore: the lake rule was tested */
    CHECK_EQ_INT(sizes_off, 0);
    CHECK(small < 1.0 && big > 3.0);
    CHECK(steep_ha > 0.2 && level_ha > 1 && high_ha > 0.2);
    if (steep_ha > 0.2 && level_ha > 1 && high_ha > 0.2) {
        CHECK(steep_rocks / steep_ha > 3 * level_rocks / level_ha);
        CHECK(high_rocks / high_ha > 3 * level_rocks / level_ha);
    }
    patch_free(&p);
}

/* Records of every kind, in order, and their count. */
static uint32_t all_records(const oak_rocks *k, oak_instance *out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < OAK_ROCK_KINDS; s++) {
        oak_stream *str = oak_rocks_stream(k, s);
        uint32_t c = oak_stream_count(str);
        if (n + c > cap) return UINT32_MAX;
        memcpy(out + n, oak_stream_records(str), c * sizeof *out);
        n += c;
    }
    return n;
}

/* Two rocks of one seed over one terrain: the same count and records, byte
   for byte, at 1 and 4 job threads; another seed another count. */
TEST(rocksSameForASeed) {
    oak_terrain_desc td = _oak_world_meadow_terrain();
    enum { CAP = 1 << 16 };
    oak_instance *a = oak_alloc(sizeof *a * CAP), *b = oak_alloc(sizeof *b * CAP);
    uint32_t na = 0, nb = 0, nc = 0;
    for (int run = 0; run < 3 && a && b; run++) {
        oak_shutdown();
        oak_engine_desc desc = {.log_level = OAK_LOG_ERROR + 1, .threads = run == 1 ? 1 : 4};
        CHECK_OK(oak_init(&desc));
        oak_rocks_desc rd = {.seed = run == 2 ? 12 : 11};
        patch p;
        if (!patch_make(&p, &td, &rd)) break;
        const float eye[3] = {100, 0, -300};
        CHECK_OK(oak_rocks_update(p.rocks, eye));
        oak_instance *dst = run == 0 ? a : b;
        uint32_t n = all_records(p.rocks, dst, CAP);
        if (run == 0) na = n;
        if (run == 1) {
            nb = n;
            CHECK(na == nb && !memcmp(a, b, sizeof *a * (na < CAP ? na : 0)));
        }
        if (run == 2) nc = n;
        patch_free(&p);
    }
    fprintf(stderr, "  seed 11: %u rocks twice (1 and 4 threads); seed 12: %u\n", na, nc);
    CHECK(na > 100 && na != UINT32_MAX);
    CHECK_EQ_INT(na, nb);
    CHECK(nc != na);
    oak_free(a), oak_free(b);
    oak_shutdown();
    oak_test_init(0);
}

/* The meadow world: its default rocks (OAK_ROCK_DENSITY) in view of the
   first frame, their streams in the scene; the `rocks` knob scales them;
   -1 none, out of range one line. */
TEST(rocksInTheMeadow) {
    uint32_t counts[3] = {0};
    const float knob[3] = {0, 2 * OAK_ROCK_DENSITY, -1};
    for (int i = 0; i < 3; i++) {
        oak_scene *scene = NULL;
        CHECK_OK(oak_make_scene(&scene));
        if (!scene) return;
        oak_world_options o = {.forest_distance = -1, .plants = 0.01f, .rocks = knob[i]};
        if (oak_world_build_with(scene, "meadow", &o) == OAK_OK) {
            oak_rocks *k = oak_world_rocks(scene);
            CHECK(i == 2 ? k == NULL : k != NULL);
            oak_rocks_stats st;
            oak_rocks_get_stats(&st, k);
            counts[i] = st.rocks;
            if (k) {
                oak_frame_input in;
                CHECK_OK(oak_scene_frame_input(scene, &in));
                uint32_t listed = 0;
                for (uint32_t s = 0; s < in.stream_count; s++)
                    for (uint32_t r = 0; r < OAK_ROCK_KINDS; r++)
                        listed += in.streams[s] == oak_rocks_stream(k, r);
                CHECK_EQ_INT(listed, OAK_ROCK_KINDS);
            }
        } else {
            CHECK(!"meadow built");
        }
        oak_destroy_scene(scene);
    }
    fprintf(stderr, "  meadow rocks: %u by default, %u at twice the density, %u at -1\n", counts[0],
            counts[1], counts[2]);
    CHECK(counts[0] > 200);
    CHECK(counts[1] > 1.6 * counts[0] && counts[1] < 2.4 * counts[0]);
    CHECK_EQ_INT(counts[2], 0);
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_world_options bad = {.rocks = 5000};
    CHECK(oak_world_build_with(scene, "meadow", &bad) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strchr(oak_last_error(), '\n') == NULL);
    oak_destroy_scene(scene);
}

/* 100 km out: a terrain that rebased and one that did not (its scene
   coordinates are world ones) place the same rocks, each at the same world
   place (within 2 cm: floats 100 km out) and the same height over the
   query under it (within 1 cm); the rebased records lie near the scene's
   origin, and near the eye. */
/* One terrain update from the camera (which may rebase), then the rocks'. */
static void patch_step(patch *p) {
    CHECK_OK(oak_terrain_update(p->terrain, oak_scene_transform(p->scene, p->camera)->position));
    CHECK_OK(oak_rocks_update(p->rocks, oak_scene_transform(p->scene, p->camera)->position));
}

static oak_terrain_desc patch_terrain(void);

TEST(rocksFollowTheRebase) {
    oak_terrain_desc td = patch_terrain();
    oak_terrain_desc tn = td;
    tn.no_rebase = true;
    oak_rocks_desc rd = {.seed = 5};
    patch a, b;
    if (!patch_make(&a, &td, &rd)) return;
    if (!patch_make(&b, &tn, &rd)) {
        patch_free(&a);
        return;
    }
    float near[3] = {10, 40, -20}, near_at[3] = {40, 20, -60};
    patch_look(&a, near, near_at);
    patch_step(&a);
    oak_rocks_stats before;
    oak_rocks_get_stats(&before, a.rocks);
    float far[3] = {(float)FAR_X + 17, 60, (float)FAR_Z - 23},
          far_at[3] = {far[0] + 50, 30, far[2] - 60};
    patch_look(&a, far, far_at);
    patch_step(&a);
    patch_look(&b, far, far_at);
    CHECK_OK(oak_rocks_update(b.rocks, far));
    double origin[2];
    oak_terrain_origin(a.terrain, origin);
    oak_terrain_stats ts;
    oak_terrain_get_stats(&ts, a.terrain);
    uint32_t compared = 0, moved = 0, lifted = 0, far_out = 0;
    double worst_xz = 0, worst_lift = 0;
    for (uint32_t k = 0; k < OAK_ROCK_KINDS; k++) {
        oak_stream *sa = oak_rocks_stream(a.rocks, k), *sb = oak_rocks_stream(b.rocks, k);
        uint32_t n = oak_stream_count(sa);
        CHECK_EQ_INT(n, oak_stream_count(sb));
        if (n != oak_stream_count(sb)) continue;
        const oak_instance *ra = oak_stream_records(sa), *rb = oak_stream_records(sb);
        for (uint32_t i = 0; i < n; i++) {
            double dx = ra[i].position[0] + origin[0] - rb[i].position[0],
                   dz = ra[i].position[2] + origin[1] - rb[i].position[2];
            worst_xz = fmax(worst_xz, fmax(fabs(dx), fabs(dz)));
            moved += fabs(dx) > 0.02 || fabs(dz) > 0.02;
            float ha, hb;
            CHECK_OK(
                oak_terrain_height(a.terrain, ra[i].position[0], ra[i].position[2], &ha, NULL));
            CHECK_OK(
                oak_terrain_height(b.terrain, rb[i].position[0], rb[i].position[2], &hb, NULL));
            double lift = (ra[i].position[1] - ha) - (rb[i].position[1] - hb);
            worst_lift = fmax(worst_lift, fabs(lift));
            lifted += fabs(lift) > 0.01;
            far_out += fabsf(ra[i].position[0]) > OAK_TERRAIN_REBASE_DISTANCE + 500 ||
                       fabsf(ra[i].position[2]) > OAK_TERRAIN_REBASE_DISTANCE + 500;
            compared++;
        }
    }
    fprintf(stderr,
            "  rebase to (%.0f, %.0f), %u rebases: %u rocks near the origin, %u 100 km out, "
            "world places within %.4f m (%u off), height over the ground within %.4f m (%u "
            "off), %u far from the scene origin\n",
            origin[0], origin[1], ts.rebases, before.rocks, compared, worst_xz, moved, worst_lift,
            lifted, far_out);
    CHECK(origin[0] > 99000 && origin[1] > 99000);
    CHECK(before.rocks > 100 && compared > 100);
    CHECK_EQ_INT(moved, 0);
    CHECK_EQ_INT(lifted, 0);
    CHECK_EQ_INT(far_out, 0);
    patch_free(&b);
    patch_free(&a);
}

/* The highest ground of the meadow's hills within a kilometre of the
   origin (on a 40 m grid), a camera 3 m over it looking at the ground 35 m
   away: rocks at both LODs in view. */
static void slope_view(patch *p) {
    float eye[3] = {0, -1e9f, 0}, at[3], h;
    for (float z = -1000; z <= 1000; z += 40)
        for (float x = -1000; x <= 1000; x += 40) {
            CHECK_OK(oak_terrain_height(p->terrain, x, z, &h, NULL));
            if (h > eye[1]) eye[0] = x, eye[1] = h, eye[2] = z;
        }
    eye[1] += 3;
    at[0] = eye[0] + 21, at[2] = eye[2] - 28;
    CHECK_OK(oak_terrain_height(p->terrain, at[0], at[2], &h, NULL));
    at[1] = h;
    patch_look(p, eye, at);
    patch_settle(p);
}

static oak_terrain_desc patch_terrain(void) {
    oak_terrain_desc d = _oak_world_meadow_terrain();
    d.view_distance = 1500.0f;
    d.levels = 6;
    return d;
}

/* On the cpu: the cull's count per LOD band over the rock streams (the only
   streams in the scene) against one made here from the records, the LOD
   meshes' bounds (turned and scaled as each record places them), the
   distance to the eye and the view's frustum. */
TEST(rocksCullCountsMatch) {
    oak_terrain_desc td = patch_terrain();
    oak_rocks_desc rd = {.seed = 11, .density = 600};
    patch p;
    if (!patch_make(&p, &td, &rd)) return;
    slope_view(&p);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (r) {
        CHECK_OK(oak_scene_draw(p.scene, r));
        oak_stream_stats st;
        CHECK_OK(oak_renderer_stream_stats(r, &st));
        const oak_render_view *v = oak_renderer_last_view(r);
        vec4 planes[6];
        mat4 vp;
        memcpy(vp, v->view_proj, sizeof vp);
        oak_frustum_planes(vp, planes);
        uint32_t expect[2] = {0, 0}, given = 0;
        oak_rocks_desc full = oak_rocks_desc_defaults(&rd);
        for (uint32_t k = 0; k < OAK_ROCK_KINDS; k++) {
            oak_stream *s = oak_rocks_stream(p.rocks, k);
            const oak_instance *rec = oak_stream_records(s);
            uint32_t n = oak_stream_count(s);
            given += n;
            CHECK_EQ_INT(v->streams[k].lod_count, 2);
            for (uint32_t i = 0; i < n; i++) {
                float d2 = 0;
                for (int e = 0; e < 3; e++) d2 += powf(rec[i].position[e] - v->camera_pos[e], 2);
                float dist = sqrtf(d2);
                if (dist >= full.distance) continue;
                uint32_t lod = dist >= full.lod_distance;
                const oak_bounds *b = &oak_mesh_get(v->streams[k].lods[lod])->bounds;
                /* the record turns about y only: (0, sin a/2, 0, cos a/2) */
                float sa = 2 * rec[i].rotation[1] * rec[i].rotation[3];
                float ca = 1 - 2 * rec[i].rotation[1] * rec[i].rotation[1];
                float sc = rec[i].scale;
                float c[3] = {rec[i].position[0] + sc * (ca * b->center[0] + sa * b->center[2]),
                              rec[i].position[1] + sc * b->center[1],
                              rec[i].position[2] + sc * (-sa * b->center[0] + ca * b->center[2])};
                expect[lod] += oak_frustum_sphere((const vec4 *)planes, c, b->radius * sc);
            }
        }
        fprintf(stderr,
                "  %u rocks given (%u by the cull): full %u (counted here %u), simplified %u "
                "(%u)\n",
                given, st.instances, st.per_lod[0], expect[0], st.per_lod[1], expect[1]);
        CHECK_EQ_INT(st.instances, given);
        CHECK_EQ_INT(st.per_lod[0], expect[0]);
        CHECK_EQ_INT(st.per_lod[1], expect[1]);
        CHECK(expect[0] >= 5 && expect[1] >= 50); /* both bands at work */
        CHECK(expect[0] + expect[1] < given);     /* and some culled */
    }
    oak_destroy_renderer(r);
    patch_free(&p);
}

/* The kinds' meshes: the simplified one an eighth of the full one's
   triangles or fewer, and not nothing (a fifth of that or more). */
TEST(rocksSimplifiedLod) {
    oak_terrain_desc td = patch_terrain();
    patch p;
    uint64_t t0 = oak_time_ns();
    if (!patch_make(&p, &td, NULL)) return;
    fprintf(stderr, "  scene, terrain and rocks made in %.1f ms\n", oak_ms_since(t0));
    oak_rocks_stats st;
    oak_rocks_get_stats(&st, p.rocks);
    for (uint32_t k = 0; k < OAK_ROCK_KINDS; k++) {
        fprintf(stderr, "  kind %u: %u and %u triangles\n", k, st.triangles[k][0],
                st.triangles[k][1]);
        CHECK_EQ_INT(st.triangles[k][0], 5120);
        CHECK(st.triangles[k][1] * 8 <= st.triangles[k][0] + 8);
        CHECK(st.triangles[k][1] * 40 >= st.triangles[k][0]);
    }
    patch_free(&p);
}

TEST(rocksBadDescsAreOneLine) {
    oak_terrain_desc td = patch_terrain();
    patch p;
    if (!patch_make(&p, &td, NULL)) return;
    const oak_rocks_desc bad[] = {{.density = -1},
                                  {.density = 2000},
                                  {.distance = -5},
                                  {.lod_distance = 500},
                                  {.water_level = NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        oak_rocks *k = (oak_rocks *)(uintptr_t)16; /* must be cleared */
        CHECK(oak_make_rocks(&k, p.scene, p.terrain, &bad[i]) == OAK_ERROR_INVALID_ARGUMENT);
        CHECK(k == NULL);
        CHECK(strchr(oak_last_error(), '\n') == NULL);
    }
    const float inf[3] = {INFINITY, 0, 0};
    CHECK(oak_rocks_update(p.rocks, inf) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_make_rocks(NULL, p.scene, p.terrain, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    patch_free(&p);
}

/* Grass, flowers and trees keep off the rocks (docs/WORLD.md "Rocks"): over
   the meadow (plants at full share, 150 m of grass, the forest's 400 m),
   no clump or flower centre inside a rock's footprint and no trunk within
   it plus the trunk clearance (0.6 m), the footprint measured from the
   points every backend draws (not from the placement's own discs); and the
   clumps the rocks take are those their area holds: the sum over the rocks
   within 240 m of the eye of the footprint's area times the clumps a
   square metre the grass's density gives there (sampled on a 5 x 5 grid
   over the disc), at 300 rocks a hectare and 250 m of grass, against the
   clumps within 240 m of the same meadow without rocks less those with
   them, within 25% (measured 148 taken, 160 expected: a Poisson count of
   about 150 has a standard deviation of 8%; 3 of them). */
typedef struct foot {
    double x, z, r;
} foot;

/* Every rock's footprint in view of the meadow's rocks, in world metres. */
static uint32_t meadow_feet(oak_scene *scene, foot *out, uint32_t cap, const double o[2]) {
    oak_rocks *k = oak_world_rocks(scene);
    uint32_t n = 0;
    for (uint32_t s = 0; k && s < OAK_ROCK_KINDS; s++) {
        oak_stream *st = oak_rocks_stream(k, s);
        const oak_instance *rec = oak_stream_records(st);
        for (uint32_t i = 0; i < oak_stream_count(st) && n < cap; i++) {
            placed pl;
            if (!rock_placed(st, i, &pl)) continue;
            out[n++] = (foot){rec[i].position[0] + o[0], rec[i].position[2] + o[1], pl.radius};
        }
    }
    return n;
}

/* Centres of the stream's live records (scale > 0) within `reach` of the
   eye (world x, z) that lie within `clear` metres of a footprint, and how
   many live records lie within reach (*live). */
static uint32_t inside_feet(const oak_stream *s, const foot *f, uint32_t nf, const double o[2],
                            const double eye[2], double reach, double clear, uint32_t *live) {
    const oak_instance *rec = oak_stream_records(s);
    uint32_t in = 0;
    for (uint32_t i = 0; i < oak_stream_count(s); i++) {
        if (!(rec[i].scale > 0)) continue;
        double x = rec[i].position[0] + o[0], z = rec[i].position[2] + o[1];
        if ((x - eye[0]) * (x - eye[0]) + (z - eye[1]) * (z - eye[1]) > reach * reach) continue;
        (*live)++;
        for (uint32_t q = 0; q < nf; q++) {
            double dx = x - f[q].x, dz = z - f[q].z, r = f[q].r + clear;
            if (dx * dx + dz * dz < r * r) {
                in++;
                break;
            }
        }
    }
    return in;
}

/* One meadow of plants at full share to `reach` m, rocks at `rocks` a
   hectare (-1 none) and the forest (or none): the clumps within `count_to`
   m of the eye (*clumps), and with rocks, no plant in a footprint (the
   counts checked here) and the clumps the footprints' area holds within
   count_to (*expected). */
static bool plants_meadow(float rocks, float reach, bool forest, double count_to, uint32_t *clumps,
                          double *expected) {
    enum { FEET = 32768 };
    static foot feet[FEET];
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    if (!scene) return false;
    oak_world_options wo = {
        .plants = 1, .plants_distance = reach, .rocks = rocks, .forest_distance = forest ? 0 : -1};
    if (oak_world_build_with(scene, "meadow", &wo) != OAK_OK) {
        CHECK(!"meadow built");
        oak_destroy_scene(scene);
        return false;
    }
    double o[2], eye[2];
    oak_terrain_origin(_oak_terrain_of(scene), o);
    const float *e = oak_scene_transform(scene, oak_scene_active_camera(scene))->position;
    eye[0] = e[0] + o[0], eye[1] = e[2] + o[1];
    oak_grass *g = oak_world_grass(scene);
    uint32_t nfeet = rocks >= 0 ? meadow_feet(scene, feet, FEET, o) : 0;
    if (rocks >= 0) {
        uint32_t live[4] = {0}, in[4] = {0};
        in[0] = inside_feet(oak_grass_stream(g, false), feet, nfeet, o, eye, 1e9, 0, &live[0]);
        in[1] = inside_feet(oak_grass_stream(g, true), feet, nfeet, o, eye, 1e9, 0, &live[1]);
        /* trees whose cells' rocks all lie in the rocks' 400 m */
        oak_forest *f = forest ? _oak_world_meadow_forest(scene) : NULL;
        for (uint32_t sp = 0; f && sp < OAK_TREE_SPECIES; sp++)
            for (uint32_t v = 0; v < OAK_TREE_MAX_VARIANTS; v++) {
                oak_stream *st = oak_forest_stream(f, sp, v);
                if (!st) continue;
                in[2] += inside_feet(st, feet, nfeet, o, eye, 300, 0, &live[2]);
                in[3] += inside_feet(st, feet, nfeet, o, eye, 300, 0.59, &live[3]);
            }
        fprintf(stderr,
                "  rocks %g: %u footprints; inside them %u of %u clumps, %u of %u flowers, %u of "
                "%u trees (%u within the trunk clearance)\n",
                (double)rocks, nfeet, in[0], live[0], in[1], live[1], in[2], live[2], in[3]);
        CHECK(nfeet > 200 && live[0] > 3000 && live[1] > 200 && (!forest || live[2] > 500));
        CHECK_EQ_INT(in[0], 0);
        CHECK_EQ_INT(in[1], 0);
        CHECK_EQ_INT(in[2], 0);
        CHECK_EQ_INT(in[3], 0);
    }
    /* the clumps the footprints' area holds, by the grass's density there */
    *expected = 0;
    for (uint32_t q = 0; q < nfeet; q++) {
        double dx = feet[q].x - eye[0], dz = feet[q].z - eye[1], r = feet[q].r;
        if (dx * dx + dz * dz > count_to * count_to) continue;
        double sum = 0;
        int m = 0;
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 5; i++) {
                double u = (i - 2) * 0.4 * r, w = (j - 2) * 0.4 * r;
                if (u * u + w * w > r * r) continue;
                sum += oak_grass_density(g, feet[q].x + u - o[0], feet[q].z + w - o[1]);
                m++;
            }
        *expected += OAK_PI * r * r * (sum / m) / (OAK_GRASS_PATCH * OAK_GRASS_PATCH);
    }
    *clumps = 0;
    inside_feet(oak_grass_stream(g, false), feet, 0, o, eye, count_to, 0, clumps);
    oak_destroy_scene(scene);
    return true;
}

TEST(rocksKeepPlantsOff) {
    uint32_t clumps[2] = {0};
    double expected = 0, none;
    /* the meadow as it ships (80 a hectare), with its forest: none inside */
    if (!plants_meadow(0, 150, true, 140, &clumps[0], &expected)) return;
    /* the share: 300 a hectare over 240 m of grass, with and without */
    if (!plants_meadow(300, 250, false, 240, &clumps[1], &expected) ||
        !plants_meadow(-1, 250, false, 240, &clumps[0], &none))
        return;
    double taken = (double)clumps[0] - clumps[1];
    fprintf(stderr,
            "  clumps within 240 m: %u without rocks, %u with 300 a hectare: %.0f taken, %.0f "
            "expected from the footprints' area (%.2f%% of the grass)\n",
            clumps[0], clumps[1], taken, expected, 100 * expected / (clumps[0] ? clumps[0] : 1));
    CHECK(expected > 100);
    CHECK(taken > 0.75 * expected && taken < 1.25 * expected);
}

/* The slope's rocks drawn by argv[1]'s backend against the CPU at the
   parity rule; the rocks cover 2% of the picture or more (the CPU's picture
   with them against the CPU's with their streams emptied). */
static bool rocks_picture(const char *backend, bool rocks, uint8_t *px) {
    oak_terrain_desc td = patch_terrain();
    oak_rocks_desc rd = {.seed = 11, .density = 600};
    patch p;
    if (!patch_make(&p, &td, &rd)) return false;
    slope_view(&p);
    for (uint32_t k = 0; !rocks && k < OAK_ROCK_KINDS; k++)
        CHECK_OK(oak_stream_set_count(oak_rocks_stream(p.rocks, k), 0));
    oak_renderer *r = NULL;
    oak_renderer_desc rdd = {.backend = backend, .width = W, .height = H, .shadow_map_size = 1024};
    oak_result res = oak_make_renderer(&r, &rdd);
    CHECK_OK(res);
    if (r) {
        CHECK_OK(res = oak_scene_draw(p.scene, r));
        if (!res) CHECK_OK(res = oak_renderer_read_pixels(r, px, (size_t)W * H * 4));
    }
    oak_destroy_renderer(r);
    patch_free(&p);
    return r && !res;
}

TEST(rocksBackendParity) {
    static uint8_t a[W * H * 4], b[W * H * 4], bare[W * H * 4];
    if (!rocks_picture("cpu", true, a) || !rocks_picture(g_backend, true, b) ||
        !rocks_picture("cpu", false, bare))
        return;
    uint32_t covered = 0;
    for (size_t p = 0; p < (size_t)W * H; p++) covered += memcmp(a + 4 * p, bare + 4 * p, 3) != 0;
    fprintf(stderr, "  rocks change %u of %u pixels\n", covered, W * H);
    CHECK(covered >= W * H / 50);
    char what[64];
    snprintf(what, sizeof what, "parity rocks cpu vs %s", g_backend);
    if (!oak_test_parity(what, a, b, W, H)) {
        save("rocksParityCpu.png", a);
        save("rocksParityGpu.png", b);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
}

int main(int argc, char **argv) {
    g_pts = malloc(sizeof(float) * 3 * PTS_CAP);
    if (argc > 1) {
        g_backend = argv[1];
        int s = oak_test_backend_start(g_backend, oak_test_count_log);
        if (s) {
            free(g_pts);
            return s;
        }
        RUN(rocksBackendParity);
    } else {
        oak_test_init(0);
        RUN(rocksSimplifiedLod);
        RUN(rocksBadDescsAreOneLine);
        RUN(rocksSitInTheGround);
        RUN(rocksSameForASeed);
        RUN(rocksInTheMeadow);
        RUN(rocksFollowTheRebase);
        RUN(rocksCullCountsMatch);
        RUN(rocksKeepPlantsOff);
        RUN(rocksBackendParity); /* the cpu against itself: the picture has rocks */
    }
    free(g_pts);
    oak_shutdown();
    return TEST_SUMMARY();
}
