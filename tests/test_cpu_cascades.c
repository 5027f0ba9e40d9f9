/* The sun's four cascades on the CPU backend, measured in world metres
 * through the whole renderer (frontend fit + backend): a 1 m box's shadow
 * against its geometric footprint, a monotone penumbra, the edge holding
 * still as the camera steps and turns, a post 59 m away, and an alpha-masked
 * caster cutting its shadow. Every picture is shaded by the sun alone over
 * black ambient, so a shadowed ground pixel is 0. */
#include "oak_test.h"

#define W    320
#define H    180
#define MAXD 8

typedef struct scene {
    oak_frame_input in;
    oak_mesh meshes[MAXD];
    oak_material mats[MAXD];
    mat4 worlds[MAXD];
    uint32_t flags[MAXD];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
} scene;

static oak_material g_white;
static oak_mesh g_ground;

static void scene_init(scene *s, float elev_deg, float azim_deg) {
    memset(s, 0, sizeof *s);
    s->env = oak_environment_defaults();
    memset(s->env.ambient_sky, 0, sizeof s->env.ambient_sky);
    memset(s->env.ambient_ground, 0, sizeof s->env.ambient_ground);
    memset(s->env.sky_zenith_display, 0, sizeof s->env.sky_zenith_display);
    memset(s->env.sky_horizon_display, 0, sizeof s->env.sky_horizon_display);
    s->env.fog_density = 0;
    s->post = (oak_post){.exposure = 1, .no_dither = true, .no_fxaa = true};
    s->in.environment = &s->env;
    s->in.post = &s->post;
    s->in.meshes = s->meshes;
    s->in.materials = s->mats;
    s->in.transforms = (const mat4 *)s->worlds;
    s->in.flags = s->flags;
    s->in.camera.fov_y = glm_rad(30);
    s->in.camera.znear = 0.1f;
    s->in.camera.zfar = 500;
    /* the sun: elev degrees up, its light travelling towards azimuth
       (degrees from -x towards -z) */
    float e = glm_rad(elev_deg), a = glm_rad(azim_deg);
    s->sun = (oak_render_light){.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL)};
    s->sun.light.cast_shadows = true;
    s->sun.direction[0] = -cosf(e) * cosf(a);
    s->sun.direction[1] = -sinf(e);
    s->sun.direction[2] = -cosf(e) * sinf(a);
    s->in.lights = &s->sun;
    s->in.light_count = 1;
}

static uint32_t scene_add(scene *s, oak_mesh m, oak_material mat, float x, float y, float z) {
    uint32_t i = s->in.draw_count++;
    s->meshes[i] = m;
    s->mats[i] = mat;
    glm_mat4_identity(s->worlds[i]);
    s->worlds[i][3][0] = x, s->worlds[i][3][1] = y, s->worlds[i][3][2] = z;
    return i;
}

static void look(scene *s, const float eye[3], const float at[3]) {
    vec3 up = {0, 1, 0};
    if (fabsf(eye[0] - at[0]) < 1e-3f && fabsf(eye[2] - at[2]) < 1e-3f) up[1] = 0, up[2] = -1;
    mat4 view;
    glm_lookat((float *)eye, (float *)at, up, view);
    glm_mat4_inv(view, s->in.camera_world);
}

static oak_mesh box_mesh(float sx, float sy, float sz) {
    oak_shape_desc d = {.type = OAK_SHAPE_BOX, .size = {sx, sy, sz}};
    oak_mesh m = {0};
    CHECK_OK(oak_make_shape(&m, &d));
    return m;
}

/* What a render gives back: pixels and the view's matrices and cascades. */
typedef struct shot {
    uint8_t px[W * H * 4];
    mat4 inv_view_proj;
    uint32_t cascade_count;
    oak_shadow_cascade cascades[OAK_MAX_CASCADES];
} shot;

static bool render(scene *s, shot *out) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (!r) return false;
    oak_result res = oak_renderer_draw(r, &s->in);
    CHECK_OK(res);
    if (!res) res = oak_renderer_read_pixels(r, out->px, sizeof out->px);
    const oak_render_view *v = oak_renderer_last_view(r);
    if (v) {
        glm_mat4_copy((vec4 *)v->inv_view_proj, out->inv_view_proj);
        out->cascade_count = v->cascade_count;
        memcpy(out->cascades, v->cascades, sizeof out->cascades);
    }
    oak_destroy_renderer(r);
    return res == OAK_OK && v;
}

static void save(const char *name, const shot *s) {
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, name), W, H, s->px);
}

static int red(const shot *s, int x, int y) {
    return s->px[((size_t)y * W + (size_t)x) * 4];
}

/* The view ray through pixel (x, y)'s centre: origin and direction. */
static void pixel_ray(const shot *s, int x, int y, double o[3], double d[3]) {
    float nx = ((float)x + 0.5f) / W * 2 - 1, ny = 1 - ((float)y + 0.5f) / H * 2;
    vec4 a = {nx, ny, 1, 1}, b = {nx, ny, 0.5f, 1}, pa, pb;
    glm_mat4_mulv((vec4 *)s->inv_view_proj, a, pa);
    glm_mat4_mulv((vec4 *)s->inv_view_proj, b, pb);
    for (int k = 0; k < 3; k++) {
        o[k] = pa[k] / pa[3];
        d[k] = pb[k] / pb[3] - o[k];
    }
}

/* Where the ray meets the ground y = 0 (0 when it does not): the ray
   parameter, and the point in g. */
static double ground_hit(const double o[3], const double d[3], double g[3]) {
    if (d[1] >= 0) return 0;
    double t = -o[1] / d[1];
    for (int k = 0; k < 3; k++) g[k] = o[k] + d[k] * t;
    return t;
}

/* Whether segment o + t d, t in (0, tmax), meets the box lo..hi. */
static bool hits_box(const double o[3], const double d[3], double tmax, const double lo[3],
                     const double hi[3]) {
    double t0 = 1e-9, t1 = tmax;
    for (int k = 0; k < 3; k++) {
        if (fabs(d[k]) < 1e-12) {
            if (o[k] < lo[k] || o[k] > hi[k]) return false;
            continue;
        }
        double a = (lo[k] - o[k]) / d[k], b = (hi[k] - o[k]) / d[k];
        if (a > b) {
            double t = a;
            a = b, b = t;
        }
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
        if (t0 > t1) return false;
    }
    return true;
}

/* The box's geometric shadow on the ground: the convex hull (x, z,
   counter-clockwise seen from above... in x-z with z up the page) of its
   corners moved along the sun to y = 0. */
typedef struct hull {
    int n;
    double p[9][2];
} hull;

static void shadow_hull(const double lo[3], const double hi[3], const float sun[3], hull *h) {
    double pts[8][2];
    for (int c = 0; c < 8; c++) {
        double q[3] = {(c & 1) ? hi[0] : lo[0], (c & 2) ? hi[1] : lo[1], (c & 4) ? hi[2] : lo[2]};
        double t = q[1] / -sun[1];
        pts[c][0] = q[0] + sun[0] * t, pts[c][1] = q[2] + sun[2] * t;
    }
    /* gift wrap: 8 points */
    int start = 0;
    for (int i = 1; i < 8; i++)
        if (pts[i][0] < pts[start][0] || (pts[i][0] == pts[start][0] && pts[i][1] < pts[start][1]))
            start = i;
    h->n = 0;
    int cur = start;
    do {
        h->p[h->n][0] = pts[cur][0], h->p[h->n][1] = pts[cur][1];
        h->n++;
        int next = (cur + 1) % 8;
        for (int i = 0; i < 8; i++) {
            double cr = (pts[next][0] - pts[cur][0]) * (pts[i][1] - pts[cur][1]) -
                        (pts[next][1] - pts[cur][1]) * (pts[i][0] - pts[cur][0]);
            double dn = hypot(pts[next][0] - pts[cur][0], pts[next][1] - pts[cur][1]);
            double di = hypot(pts[i][0] - pts[cur][0], pts[i][1] - pts[cur][1]);
            if (cr < -1e-12 || (fabs(cr) <= 1e-12 && di > dn)) next = i;
        }
        cur = next;
    } while (cur != start && h->n < 8);
}

/* Signed distance from ground point (x, z) to the hull's boundary: positive
   inside. The hull winds so that inside is to the left of each edge. */
static double hull_distance(const hull *h, double x, double z) {
    double best = 1e30;
    bool inside = true;
    for (int i = 0; i < h->n; i++) {
        const double *a = h->p[i], *b = h->p[(i + 1) % h->n];
        double ex = b[0] - a[0], ez = b[1] - a[1], len2 = ex * ex + ez * ez;
        double t = ((x - a[0]) * ex + (z - a[1]) * ez) / len2;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double dx = x - (a[0] + t * ex), dz = z - (a[1] + t * ez);
        double dist = sqrt(dx * dx + dz * dz);
        if (dist < best) best = dist;
        if (ex * (z - a[1]) - ez * (x - a[0]) < 0) inside = false;
    }
    return inside ? best : -best;
}

/* A 1 m box on a 60 m ground under a 40 degree sun (its light travelling
   30 degrees off -x), seen from 10 m straight above with a 30 degree lens:
   3 cm a pixel. Each ground pixel is compared with the same pixel drawn
   with the box casting nothing: inside the geometric shadow it must be 0,
   outside it unchanged, except within a band around the boundary whose
   width is what this test bounds: 6 cm inside and 4 cm outside ("dark" is
   byte 0, no light at all) for maps fitted tight to their slices; the
   cache's margin (OAK_SHADOW_CACHE_MARGIN) widens texels, and the band
   with them, by its fraction. The filter reaches 2.5 texels (cascade 1's
   are 1.75 cm here, 1.4 without the margin), 1 / sin 40 times that on the
   ground along the sun. */
TEST(cpuCascadeBoxShadowCoversItsFootprint) {
    scene s;
    scene_init(&s, 40, 30);
    scene_add(&s, g_ground, g_white, 0, 0, 0);
    uint32_t box = scene_add(&s, box_mesh(1, 1, 1), g_white, 0, 0.5f, 0);
    const float eye[3] = {-0.6f, 10, -0.3f}, at[3] = {-0.6f, 0, -0.3f};
    look(&s, eye, at);
    static shot img, ref;
    if (!render(&s, &img)) return;
    s.flags[box] = OAK_DRAW_NO_SHADOW;
    if (!render(&s, &ref)) return;
    const double lo[3] = {-0.5, 0, -0.5}, hi[3] = {0.5, 1, 0.5};
    hull h;
    shadow_hull(lo, hi, s.sun.direction, &h);
    double worst_in = 0, worst_out = 0; /* deepest pixel on the wrong side */
    double at_in[2] = {0, 0}, at_out[2] = {0, 0};
    int dark = 0, lit = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double o[3], d[3], g[3];
            pixel_ray(&img, x, y, o, d);
            double t = ground_hit(o, d, g);
            if (t <= 0 || hits_box(o, d, t, lo, hi)) continue;
            double sd = hull_distance(&h, g[0], g[2]);
            int v = red(&img, x, y), r = red(&ref, x, y);
            if (sd > 0) {
                dark += v == 0;
                if (v != 0 && sd > worst_in) worst_in = sd, at_in[0] = g[0], at_in[1] = g[2];
            } else {
                lit += abs(v - r) <= 1;
                if (abs(v - r) > 1 && -sd > worst_out)
                    worst_out = -sd, at_out[0] = g[0], at_out[1] = g[2];
            }
        }
    int c = 0;
    while (c + 1 < (int)img.cascade_count && img.cascades[c].split_far < 10) c++;
    fprintf(stderr,
            "  %d ground pixels fully shadowed, %d unchanged; a shadow pixel lit up to %.1f cm "
            "inside the footprint (at x %.3f z %.3f), a lit one darkened up to %.1f cm outside "
            "(at x %.3f z %.3f; texels %.2f/%.2f cm, cascades %d/%d blended at 10 m)\n",
            dark, lit, worst_in * 100, at_in[0], at_in[1], worst_out * 100, at_out[0], at_out[1],
            img.cascades[c].texel_world * 100,
            img.cascades[c + 1 < 4 ? c + 1 : c].texel_world * 100, c, c + 1);
    CHECK(dark > 1500); /* the visible shadow: about 1.2 m^2 at 3 cm a pixel */
    const double grow = 1 + OAK_SHADOW_CACHE_MARGIN;
    CHECK(worst_in <= 0.06 * grow);
    CHECK(worst_out <= 0.04 * grow);

    /* The penumbra along the row through the shadow's middle, from inside
       out across its far (-x) edge, never gets darker. */
    int row = -1;
    for (int y = 0; y < H && row < 0; y++) {
        double o[3], d[3], g[3];
        pixel_ray(&img, W / 2, y, o, d);
        if (ground_hit(o, d, g) && g[2] > -0.6 - 0.05 && g[2] < -0.6 + 0.05) row = y;
    }
    CHECK(row >= 0);
    int steps = 0, bad = 0, last = -1;
    if (row >= 0)
        for (int x = W - 1; x >= 0; x--) {
            double o[3], d[3], g[3];
            pixel_ray(&img, x, row, o, d);
            if (!ground_hit(o, d, g) || g[0] > -1.0) continue; /* past the box */
            int v = red(&img, x, row), r = red(&ref, x, row);
            if (last >= 0 && v < last && v < r) bad++;
            if (v > 0 && v < r) steps++;
            last = v;
        }
    fprintf(stderr, "  row %d: %d penumbra pixels, %d steps darker\n", row, steps, bad);
    CHECK(steps >= 1);
    CHECK_EQ_INT(bad, 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) {
        save("cascade_box.png", &img);
        save("cascade_box_ref.png", &ref);
    }
}

/* ae3d's stability test: a 6 m post's shadow seen from 12 poses 13 cm apart,
   each turned 1 degree more; the shadow's long edge, found in world metres
   in every row that crosses it, moves by at most 2.5 texels. */
TEST(cpuCascadeEdgeHoldsStillAsTheCameraMoves) {
    scene s;
    scene_init(&s, 40, 30);
    s.in.camera.fov_y = glm_rad(40);
    scene_add(&s, g_ground, g_white, 0, 0, 0);
    scene_add(&s, box_mesh(0.3f, 6, 0.3f), g_white, 0, 3, 0);
    /* h: the sun's way along the ground; n across it; the strip's edge
       is p.n = +0.15 (cos 30 + sin 30) */
    double hx = s.sun.direction[0], hz = s.sun.direction[2], hl = hypot(hx, hz);
    hx /= hl, hz /= hl;
    double nx = -hz, nz = hx;
    double edge = 0;
    for (int c = 0; c < 4; c++) {
        double px = (c & 1) ? 0.15 : -0.15, pz = (c & 2) ? 0.15 : -0.15;
        if (px * nx + pz * nz > edge) edge = px * nx + pz * nz;
    }
    double lo_edge = 1e9, hi_edge = -1e9, texel = 0;
    static shot img;
    for (int pose = 0; pose < 12; pose++) {
        double side = 0.13 * (pose - 5.5), turn = glm_rad(1.0f) * (pose - 5.5);
        double ex = 10.15 * hx + side * nx, ez = 10.15 * hz + side * nz;
        /* look back at the strip's middle, turned about the vertical */
        double lx = 3.5 * hx - ex, lz = 3.5 * hz - ez;
        double c = cos(turn), sn = sin(turn);
        const float eye[3] = {(float)ex, 2.5f, (float)ez};
        const float at[3] = {(float)(ex + c * lx - sn * lz), 0, (float)(ez + sn * lx + c * lz)};
        look(&s, eye, at);
        if (!render(&s, &img)) return;
        if (pose == 0) {
            int k = 0;
            while (k + 1 < (int)img.cascade_count && img.cascades[k].split_far < 8) k++;
            texel = img.cascades[k].texel_world;
        }
        /* each row: the 50% crossing between the strip (0) and the lit
           ground, interpolated in metres across the edge */
        double found[H];
        int nf = 0;
        for (int y = 0; y < H; y++) {
            double pe = 0, pv = -1, lit = -1;
            for (int x = 0; x < W; x++) {
                double o[3], d[3], g[3];
                pixel_ray(&img, x, y, o, d);
                if (!ground_hit(o, d, g)) continue;
                double along = g[0] * hx + g[2] * hz, e = g[0] * nx + g[2] * nz - edge;
                if (along < 2.5 || along > 4.5) continue;
                if (e > 0.25 && e < 0.35) lit = red(&img, x, y);
            }
            if (lit <= 0) continue;
            for (int x = 0; x < W; x++) {
                double o[3], d[3], g[3];
                pixel_ray(&img, x, y, o, d);
                if (!ground_hit(o, d, g)) continue;
                double along = g[0] * hx + g[2] * hz, e = g[0] * nx + g[2] * nz - edge;
                if (along < 2.5 || along > 4.5 || fabs(e) > 0.15) {
                    pv = -1;
                    continue;
                }
                double v = red(&img, x, y) / lit;
                if (pv >= 0 && (pv - 0.5) * (v - 0.5) <= 0 && pv != v) {
                    found[nf++] = pe + (0.5 - pv) / (v - pv) * (e - pe);
                    break;
                }
                pe = e, pv = v;
            }
        }
        CHECK(nf >= 5);
        if (nf < 1) continue;
        for (int i = 1; i < nf; i++) /* median */
            for (int j = i; j > 0 && found[j - 1] > found[j]; j--) {
                double t = found[j];
                found[j] = found[j - 1], found[j - 1] = t;
            }
        double e = found[nf / 2];
        if (e < lo_edge) lo_edge = e;
        if (e > hi_edge) hi_edge = e;
        if (getenv("OAK_TEST_SAVE")) {
            char name[64];
            snprintf(name, sizeof name, "cascade_pose%02d.png", pose);
            save(name, &img);
        }
    }
    fprintf(stderr,
            "  edge over 12 poses: %+.2f .. %+.2f cm from the geometric line, spread %.2f cm "
            "= %.2f texels of %.2f cm\n",
            lo_edge * 100, hi_edge * 100, (hi_edge - lo_edge) * 100, (hi_edge - lo_edge) / texel,
            texel * 100);
    CHECK(hi_edge - lo_edge <= 2.5 * texel);
    CHECK(fabs(lo_edge) < 0.05 && fabs(hi_edge) < 0.05);
}

/* A 1 m x 6 m pillar 59 m away still casts: the far cascade reaches it.
   Against the same frame with the pillar casting nothing, its geometric
   shadow darkens and nothing beyond the filter's reach (three texels, on
   the ground 1 / sin 40 times that along the sun) does. */
TEST(cpuCascadePostFiftyNineMetresAwayCasts) {
    scene s;
    scene_init(&s, 40, -90); /* the light travels towards +z, at the camera */
    s.in.camera.fov_y = glm_rad(60);
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {200, 0, 200}};
    oak_mesh ground = {0};
    CHECK_OK(oak_make_shape(&ground, &gd));
    scene_add(&s, ground, g_white, 0, 0, 0);
    uint32_t post = scene_add(&s, box_mesh(1, 6, 1), g_white, 0, 3, -51);
    const float eye[3] = {0, 30, 0}, at[3] = {0, 0, -51};
    look(&s, eye, at);
    static shot img, ref;
    if (!render(&s, &img)) return;
    s.flags[post] = OAK_DRAW_NO_SHADOW;
    if (!render(&s, &ref)) return;
    const double lo[3] = {-0.5, 0, -51.5}, hi[3] = {0.5, 6, -50.5};
    hull h;
    shadow_hull(lo, hi, s.sun.direction, &h);
    int darkened = 0, inside = 0, stray = 0;
    /* three texels across the light, stretched along the ground by 1/sin
       of the sun's elevation */
    double reach = 3 * img.cascades[3].texel_world / sin(glm_rad(40));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double o[3], d[3], g[3];
            pixel_ray(&img, x, y, o, d);
            double t = ground_hit(o, d, g);
            if (t <= 0 || hits_box(o, d, t, lo, hi)) continue;
            double sd = hull_distance(&h, g[0], g[2]);
            int v = red(&img, x, y), r = red(&ref, x, y);
            if (sd > 0.1) {
                inside++;
                darkened += v * 2 < r;
            } else if (sd < -reach) {
                stray += abs(v - r) > 1;
            }
        }
    double dist = sqrt(30.0 * 30.0 + 51.0 * 51.0);
    fprintf(stderr,
            "  pillar %.1f m away (cascade 3 covers %.1f..%.1f m, texel %.1f cm): %d of %d "
            "pixels inside its shadow darkened by half, %d beyond it changed\n",
            dist, img.cascades[2].split_far, img.cascades[3].split_far,
            img.cascades[3].texel_world * 100, darkened, inside, stray);
    CHECK(dist > 59 && dist < 62);
    CHECK(inside >= 10);
    CHECK(darkened * 10 >= inside * 9);
    CHECK_EQ_INT(stray, 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) save("cascade_far_post.png", &img);
}

/* An alpha-masked 1 m card 1 m up, opaque on its -x half only: its shadow
   is that half's, and the cut half lets the sun through. */
TEST(cpuCascadeMaskedCasterCutsItsShadow) {
    static uint8_t texels[64 * 64 * 4];
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            uint8_t *p = texels + (y * 64 + x) * 4;
            p[0] = p[1] = p[2] = 200;
            p[3] = x < 32 ? 255 : 0;
        }
    oak_material card_mat = oak_test_cutout_material(texels, 64, 64);
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {1, 0, 1}};
    oak_mesh card = {0};
    CHECK_OK(oak_make_shape(&card, &pd));

    scene s;
    scene_init(&s, 40, 0); /* light travelling along -x: the shadow lands 1.19 m to -x */
    scene_add(&s, g_ground, g_white, 0, 0, 0);
    scene_add(&s, card, card_mat, 0, 1, 0);
    const float eye[3] = {-0.8f, 10, 0}, at[3] = {-0.8f, 0, 0};
    look(&s, eye, at);
    static shot img;
    if (!render(&s, &img)) return;
    double shift = 1.0 / tan(glm_rad(40));
    int opaque = 0, opaque_dark = 0, cut = 0, cut_dark = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double o[3], d[3], g[3];
            pixel_ray(&img, x, y, o, d);
            if (!ground_hit(o, d, g)) continue;
            double t1 = (1 - o[1]) / d[1]; /* the card's plane: skip what it covers */
            double cx = o[0] + d[0] * t1, cz = o[2] + d[2] * t1;
            if (fabs(cx) < 0.55 && fabs(cz) < 0.55) continue;
            /* back along the sun to the card: which half cast here */
            double ux = g[0] + shift, uz = g[2];
            if (fabs(uz) > 0.45 || fabs(ux) > 0.45 || fabs(ux) < 0.05) continue;
            bool dark = red(&img, x, y) == 0;
            if (ux < 0)
                opaque++, opaque_dark += dark;
            else
                cut++, cut_dark += dark;
        }
    fprintf(stderr, "  under the opaque half %d of %d pixels dark; under the cut half %d of %d\n",
            opaque_dark, opaque, cut_dark, cut);
    CHECK(opaque > 100 && cut > 100);
    CHECK_EQ_INT(opaque_dark, opaque);
    CHECK_EQ_INT(cut_dark, 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) save("cascade_masked.png", &img);
}

int main(void) {
    oak_test_init(0);
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.8f;
    md.metallic = 0;
    md.roughness = 1;
    CHECK_OK(oak_make_material(&g_white, &md));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {60, 0, 60}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    RUN(cpuCascadeBoxShadowCoversItsFootprint);
    RUN(cpuCascadeEdgeHoldsStillAsTheCameraMoves);
    RUN(cpuCascadePostFiftyNineMetresAwayCasts);
    RUN(cpuCascadeMaskedCasterCutsItsShadow);
    oak_shutdown();
    return TEST_SUMMARY();
}
