/* Lamp shadows on every backend that runs the lampshadow pass, measured in
 * world metres through the whole renderer: a box's shadow under a point lamp
 * and under a spot ends where the lamp and the box's edge put it; 20 spots in
 * a row shadow only the 16 nearest the camera; a frame in which nothing moved
 * redraws no static face, moving a post redraws only the face it is in, and
 * a mover is drawn over the cached layer. Lit by the lamps alone over black
 * ambient, tone mapping off (a pixel's byte is its radiance, sRGB encoded). */
#include <dlfcn.h>

#include "backend_start.h"

#define W    320
#define H    180
#define MAXD 48
#define MAXL 24

typedef struct scene {
    oak_frame_input in;
    oak_mesh meshes[MAXD];
    oak_material mats[MAXD];
    mat4 worlds[MAXD];
    uint32_t flags[MAXD];
    oak_render_light lights[MAXL];
    oak_environment env;
    oak_post post;
} scene;

static oak_material g_white;
static oak_mesh g_ground, g_box, g_panel, g_post;
static const char *g_backend = "cpu";

static void scene_init(scene *s) {
    memset(s, 0, sizeof *s);
    s->env = oak_environment_defaults();
    memset(s->env.ambient_sky, 0, sizeof s->env.ambient_sky);
    memset(s->env.ambient_ground, 0, sizeof s->env.ambient_ground);
    memset(s->env.sky_zenith_display, 0, sizeof s->env.sky_zenith_display);
    memset(s->env.sky_horizon_display, 0, sizeof s->env.sky_horizon_display);
    s->env.fog_density = 0;
    s->post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    s->in.environment = &s->env;
    s->in.post = &s->post;
    s->in.meshes = s->meshes;
    s->in.materials = s->mats;
    s->in.transforms = (const mat4 *)s->worlds;
    s->in.flags = s->flags;
    s->in.lights = s->lights;
    s->in.camera.fov_y = glm_rad(30);
    s->in.camera.znear = 0.1f;
    s->in.camera.zfar = 500;
}

static uint32_t scene_add(scene *s, oak_mesh m, float x, float y, float z) {
    uint32_t i = s->in.draw_count++;
    s->meshes[i] = m;
    s->mats[i] = g_white;
    glm_mat4_identity(s->worlds[i]);
    s->worlds[i][3][0] = x, s->worlds[i][3][1] = y, s->worlds[i][3][2] = z;
    return i;
}

static oak_render_light *lamp(scene *s, oak_light_type type, float x, float y, float z,
                              float intensity, float range) {
    oak_render_light *l = &s->lights[s->in.light_count++];
    *l = (oak_render_light){.light = oak_light_defaults(type)};
    l->light.intensity = intensity;
    l->light.range = range;
    l->light.cast_shadows = true;
    l->position[0] = x, l->position[1] = y, l->position[2] = z;
    l->direction[1] = -1;
    return l;
}

/* Straight down from eye (screen right is world +x). */
static void look_down(scene *s, float x, float y, float z) {
    const float eye[3] = {x, y, z}, at[3] = {x, 0, z}, up[3] = {0, 0, -1};
    mat4 view;
    glm_lookat((float *)eye, (float *)at, (float *)up, view);
    glm_mat4_inv(view, s->in.camera_world);
}

static oak_mesh box_mesh(float sx, float sy, float sz) {
    oak_shape_desc d = {.type = OAK_SHAPE_BOX, .size = {sx, sy, sz}};
    oak_mesh m = {0};
    CHECK_OK(oak_make_shape(&m, &d));
    return m;
}

typedef struct shot {
    uint8_t px[W * H * 4];
    mat4 view_proj, inv_view_proj;
    uint32_t lamp_shadows, lamp_faces, faces_changed;
    int32_t slot[MAXL];
} shot;

/* Draws s with renderer r (made when *r is NULL) and reads the frame back. */
static bool draw(oak_renderer **r, scene *s, shot *out) {
    if (!*r) {
        oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H};
        CHECK_OK(oak_make_renderer(r, &d));
        if (!*r) return false;
    }
    oak_result res = oak_renderer_draw(*r, &s->in);
    CHECK_OK(res);
    if (!res) res = oak_renderer_read_pixels(*r, out->px, sizeof out->px);
    CHECK_OK(res);
    const oak_render_view *v = oak_renderer_last_view(*r);
    if (res || !v) return false;
    glm_mat4_copy((vec4 *)v->view_proj, out->view_proj);
    glm_mat4_copy((vec4 *)v->inv_view_proj, out->inv_view_proj);
    out->lamp_shadows = v->lamp_shadow_count;
    out->lamp_faces = v->lamp_face_count;
    out->faces_changed = v->lamp_faces_changed;
    for (uint32_t i = 0; i < MAXL; i++)
        out->slot[i] = i < v->light_count && v->light_shadow ? v->light_shadow[i] : -1;
    return true;
}

static void save(const char *name, const shot *s) {
    char path[512], file[128];
    snprintf(file, sizeof file, "%s_%s", g_backend, name);
    oak_image_write_png(oak_test_out(path, sizeof path, file), W, H, s->px);
}

/* Linear radiance of pixel (x, y)'s red channel. */
static double lin(const shot *s, int x, int y) {
    return oak_srgb_to_linear(s->px[((size_t)y * W + (size_t)x) * 4] / 255.0f);
}

/* The pixel that ground point (x, 0, z) shows in; false off the picture. */
static bool ground_pixel(const shot *s, double x, double z, int *px, int *py) {
    vec4 p = {(float)x, 0, (float)z, 1}, c;
    glm_mat4_mulv((vec4 *)s->view_proj, p, c);
    double nx = c[0] / c[3], ny = c[1] / c[3];
    *px = (int)floor((nx * 0.5 + 0.5) * W), *py = (int)floor((0.5 - ny * 0.5) * H);
    return *px >= 0 && *py >= 0 && *px < W && *py < H;
}

/* Ground x under pixel column px on the row showing z (top-down view). */
static double pixel_ground_x(const shot *s, int px, int py) {
    float nx = ((float)px + 0.5f) / W * 2 - 1, ny = 1 - ((float)py + 0.5f) / H * 2;
    vec4 a = {nx, ny, 1, 1}, b = {nx, ny, 0.5f, 1}, pa, pb;
    glm_mat4_mulv((vec4 *)s->inv_view_proj, a, pa);
    glm_mat4_mulv((vec4 *)s->inv_view_proj, b, pb);
    double o[3], d[3];
    for (int k = 0; k < 3; k++) o[k] = pa[k] / pa[3], d[k] = pb[k] / pb[3] - o[k];
    double t = -o[1] / d[1];
    return o[0] + d[0] * t;
}

/* Where, walking +x along the ground row at z from x0 to x1, the lit
   fraction (img over ref) first rises past one half, interpolated between
   pixel centres; NAN when it never does. */
static double edge_x(const shot *img, const shot *ref, double z, double x0, double x1) {
    int ax, ay, bx, by;
    if (!ground_pixel(img, x0, z, &ax, &ay) || !ground_pixel(img, x1, z, &bx, &by)) return NAN;
    double last = -1, last_x = 0;
    for (int x = ax; x <= bx; x++) {
        double r = lin(ref, x, ay), f = r > 0 ? lin(img, x, ay) / r : 1;
        double gx = pixel_ground_x(img, x, ay);
        if (f >= 0.5 && last >= 0) return last_x + (gx - last_x) * (0.5 - last) / (f - last);
        if (f >= 0.5) return gx;
        last = f, last_x = gx;
    }
    return NAN;
}

/* A 1 m box on the ground at the origin lit by a lamp 2 m to its -x and 4 m
   up: the far edge of its shadow is where the ray past the box's top edge
   (x 0.5, y 1) meets the ground, x = -2 + 2.5 * 4 / 3 = 1.333 m, for
   |z| < 0.667. Seen from 6 m above (1.8 cm a pixel) the edge, found where
   the ground reaches half its unshadowed light, must be within 1.5 face
   texels of it, times 1.25 (a texel of lift moves the edge back 1.25 times
   as far here), on three rows: 3.0 cm for the cube (texels 1.6 cm at 4 m
   along its -y face), 4.8 cm for the spot (2.6 cm: a 103 degree tile, 5.2
   m along its axis). The shadow's core (x 0.6..1.2) must be dark and the
   ground past it (x 1.45..2.4) unchanged. */
static void box_edge(oak_light_type type) {
    scene s;
    scene_init(&s);
    scene_add(&s, g_ground, 0, 0, 0);
    uint32_t box = scene_add(&s, g_box, 0, 0.5f, 0);
    oak_render_light *l = lamp(&s, type, -2, 4, 0, 40, 20);
    if (type == OAK_LIGHT_SPOT) {
        /* pointed at the ground past the box, wide enough to light it all */
        float d[3] = {3, -4, 0}, n = 5;
        for (int k = 0; k < 3; k++) l->direction[k] = d[k] / n;
        l->light.outer_cone = 0.9f, l->light.inner_cone = 0.8f;
    }
    look_down(&s, 1.0f, 6, 0);
    static shot img, ref;
    oak_renderer *r = NULL;
    bool ok = draw(&r, &s, &img);
    s.flags[box] = OAK_DRAW_NO_SHADOW;
    ok = ok && draw(&r, &s, &ref);
    oak_destroy_renderer(r);
    if (!ok) return;
    CHECK_EQ_INT((int)img.lamp_shadows, 1);
    CHECK_EQ_INT((int)img.lamp_faces, type == OAK_LIGHT_SPOT ? 1 : 6);
    const double want = -2.0 + 2.5 * 4.0 / 3.0;
    double F = OAK_LAMP_SHADOW_FACE, widen = F / (F - 2.0 * OAK_LAMP_SHADOW_BORDER);
    double texel = type == OAK_LIGHT_SPOT ? 2 * tan(0.9) * widen * 5.2 / F : 2 * widen * 4 / F;
    double tol = 1.5 * texel * 1.25;
    double worst = 0;
    const double zs[3] = {0, 0.3, -0.3};
    for (int k = 0; k < 3; k++) {
        double e = edge_x(&img, &ref, zs[k], 0.6, 2.0);
        fprintf(stderr,
                "  %s %s: shadow edge at z %+.1f: x %.4f m (geometry %.4f, off %.1f cm, "
                "allowed %.1f)\n",
                g_backend, type == OAK_LIGHT_SPOT ? "spot" : "point", zs[k], e, want,
                (e - want) * 100, tol * 100);
        CHECK(!isnan(e));
        if (isnan(e) || fabs(e - want) > worst) worst = isnan(e) ? 1e9 : fabs(e - want);
    }
    CHECK(worst <= tol);
    double core = 0, core_ref = 0, past_diff = 0;
    int n = 0;
    for (double x = 0.6; x <= 1.2; x += 0.05) {
        int px, py;
        if (!ground_pixel(&img, x, 0, &px, &py)) continue;
        core += lin(&img, px, py), core_ref += lin(&ref, px, py), n++;
    }
    for (double x = 1.45; x <= 2.4; x += 0.05) {
        int px, py;
        if (!ground_pixel(&img, x, 0, &px, &py)) continue;
        double d = fabs(lin(&img, px, py) - lin(&ref, px, py));
        if (d > past_diff) past_diff = d;
    }
    fprintf(stderr, "  %s: core %.4f against %.4f unshadowed; past the edge differs by %.4f\n",
            g_backend, core / n, core_ref / n, past_diff);
    CHECK(n > 5 && core_ref / n > 0.05);
    CHECK(core < 0.02 * core_ref);
    CHECK(past_diff < 0.01);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE"))
        save(type == OAK_LIGHT_SPOT ? "lamp_box_spot.png" : "lamp_box_point.png", &img);
}

TEST(lampPointBoxShadowEndsWhereGeometrySays) {
    box_edge(OAK_LIGHT_POINT);
}

TEST(lampSpotBoxShadowEndsWhereGeometrySays) {
    box_edge(OAK_LIGHT_SPOT);
}

/* A stream's instances cast in the lamp atlas (render/stream_cull.c
   expands a stream into draws while a lamp casts): three 1 m boxes at z
   -1.2, 0 and 1.2 on the ground at x 0, under box_edge's spot (x -2, 4 m
   up), drawn once as a stream and once as three plain draws, against the
   ground with nothing casting (the boxes' stream marked
   OAK_DRAW_NO_SHADOW). Under each box's shadow core (x 0.7..1.1 on its
   row) the ground has under 2% of its unshadowed light for both; the
   stream's picture and the draws' agree under the parity rule; on vulkan
   and gl the stream's picture agrees with the CPU's under it. */
static void stream_boxes(scene *s, oak_stream **stream, uint32_t flags) {
    scene_init(s);
    scene_add(s, g_ground, 0, 0, 0);
    oak_render_light *l = lamp(s, OAK_LIGHT_SPOT, -2, 4, 0, 40, 20);
    float d[3] = {3, -4, 0}, n = 5;
    for (int k = 0; k < 3; k++) l->direction[k] = d[k] / n;
    l->light.outer_cone = 0.9f, l->light.inner_cone = 0.8f;
    look_down(s, 0.5f, 8, 0);
    *stream = NULL;
    oak_stream_desc sd = {.capacity = 3, .lods = {{g_box, 0}}, .material = g_white, .flags = flags};
    CHECK_OK(oak_make_stream(stream, &sd));
    if (!*stream) return;
    oak_instance rec[3];
    for (int i = 0; i < 3; i++)
        rec[i] = (oak_instance){
            .position = {0, 0.5f, -1.2f + 1.2f * (float)i}, .scale = 1, .color = {1, 1, 1}};
    CHECK_OK(oak_stream_write(*stream, 0, rec, 3));
    CHECK_OK(oak_stream_set_count(*stream, 3));
    s->in.stream_count = 1;
    s->in.streams = stream;
}

TEST(lampStreamInstancesCastInTheLampFace) {
    static shot img, plain, ref;
    static uint8_t cpu_img[W * H * 4];
    scene s;
    oak_stream *st = NULL;
    oak_renderer *r = NULL;
    stream_boxes(&s, &st, 0);
    bool ok = st && draw(&r, &s, &img);
    oak_destroy_stream(st);
    oak_destroy_renderer(r), r = NULL;
    stream_boxes(&s, &st, OAK_DRAW_NO_SHADOW);
    ok = ok && st && draw(&r, &s, &ref);
    oak_destroy_stream(st);
    oak_destroy_renderer(r), r = NULL;
    stream_boxes(&s, &st, 0); /* the same boxes as three draws, the same lamp and camera */
    oak_destroy_stream(st);
    s.in.stream_count = 0, s.in.streams = NULL;
    for (int i = 0; i < 3; i++) scene_add(&s, g_box, 0, 0.5f, -1.2f + 1.2f * (float)i);
    ok = ok && draw(&r, &s, &plain);
    oak_destroy_renderer(r);
    CHECK(ok);
    if (!ok) return;
    CHECK_EQ_INT((int)img.lamp_shadows, 1);
    double worst[2] = {0, 0}, least = 1e9;
    int n = 0;
    for (int b = 0; b < 3; b++)
        for (double x = 0.7; x <= 1.1; x += 0.1) {
            int px, py;
            if (!ground_pixel(&img, x, -1.2 + 1.2 * b, &px, &py)) continue;
            double u = lin(&ref, px, py);
            least = fmin(least, u);
            worst[0] = fmax(worst[0], lin(&img, px, py) / fmax(u, 1e-6));
            worst[1] = fmax(worst[1], lin(&plain, px, py) / fmax(u, 1e-6));
            n++;
        }
    fprintf(stderr,
            "  %s: %d points of the three boxes' shadow cores: at most %.4f of the unshadowed "
            "light (stream), %.4f (plain draws); unshadowed at least %.4f\n",
            g_backend, n, worst[0], worst[1], least);
    CHECK(n == 15);
    CHECK(least > 0.05);
    CHECK(worst[0] < 0.02);
    CHECK(worst[1] < 0.02);
    char what[64];
    snprintf(what, sizeof what, "%s stream vs plain draws", g_backend);
    oak_test_parity(what, plain.px, img.px, W, H);
    if (!strcmp(g_backend, "cpu"))
        memcpy(cpu_img, img.px, sizeof cpu_img);
    else
        oak_test_parity("lamp-shadowed stream cpu vs this backend", cpu_img, img.px, W, H);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) save("lamp_stream.png", &img);
}

/* 20 spots 3 m up in a row along x (every 4 m from 0 to 76), each with a
   panel 0.8 m to its +x casting on the ground past it, seen from straight
   above x = 34, 50 m up (orthographic, 28 cm a pixel): the 16 lamps nearest
   the camera (x 4..64) have slots, the four others (0, 68..76) none. Past a shadowed
   lamp's panel the ground is darker than with the panels casting nothing;
   past an unshadowed one it is the same. */
static void row_scene(scene *s, uint32_t panel[20]) {
    scene_init(s);
    scene_add(s, g_ground, 40, 0, 0);
    for (int i = 0; i < 20; i++) {
        oak_render_light *l = lamp(s, OAK_LIGHT_SPOT, 4.0f * (float)i, 3, 0, 20, 8);
        l->light.outer_cone = 0.7f, l->light.inner_cone = 0.55f;
        panel[i] = scene_add(s, g_panel, 4.0f * (float)i + 0.8f, 0.75f, 0);
    }
    s->in.camera.ortho_height = 50;
    look_down(s, 34, 50, 0);
}

TEST(lampRowShadowsTheSixteenNearest) {
    scene s;
    uint32_t panel[20];
    row_scene(&s, panel);
    static shot img, ref;
    oak_renderer *r = NULL;
    bool ok = draw(&r, &s, &img);
    for (int i = 0; i < 20; i++) s.flags[panel[i]] = OAK_DRAW_NO_SHADOW;
    ok = ok && draw(&r, &s, &ref);
    oak_destroy_renderer(r);
    if (!ok) return;
    CHECK_EQ_INT((int)img.lamp_shadows, 16);
    int shadowed = 0, wrong = 0;
    for (int i = 0; i < 20; i++) {
        int px, py;
        double x = 4.0 * i + 1.25;
        bool near = abs(4 * i - 34) <= 30;
        /* the view's lights: the 20 lamps in order (no directional light) */
        CHECK(near == (img.slot[i] >= 0));
        if (!ground_pixel(&img, x, 0, &px, &py)) {
            CHECK(false);
            continue;
        }
        double a = lin(&img, px, py), b = lin(&ref, px, py);
        fprintf(stderr,
                "  %s lamp at x %2d (%s): past the panel %.4f, with it casting nothing %.4f\n",
                g_backend, 4 * i, near ? "slot" : "none", a, b);
        CHECK(b > 0.02);
        if (near) {
            shadowed += a < 0.25 * b;
            wrong += !(a < 0.25 * b);
        } else {
            wrong += fabs(a - b) > 0.002;
        }
    }
    CHECK_EQ_INT(shadowed, 16);
    CHECK_EQ_INT(wrong, 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) save("lamp_row.png", &img);
}

/* Caching, with one renderer kept across frames: the first frame draws
   every face; the same input again draws none; moving one panel redraws
   only its lamp's tile, and its shadow moves with it; a panel marked
   OAK_DRAW_MOVING moves without redrawing any static layer, and casts. */
TEST(lampFacesRedrawOnlyWhenWhatTheyHoldChanges) {
    scene s;
    uint32_t panel[20];
    row_scene(&s, panel);
    oak_renderer *r = NULL;
    static shot a, b, c, d, e;
    if (!draw(&r, &s, &a) || !draw(&r, &s, &b)) goto done;
    fprintf(stderr, "  %s: faces redrawn: first frame %u, unchanged %u\n", g_backend,
            a.faces_changed, b.faces_changed);
    CHECK_EQ_INT((int)a.faces_changed, 16);
    CHECK_EQ_INT((int)b.faces_changed, 0);
    /* panel 5 (x 20.8) slides 1 m towards -z: the ground it shaded at
       (21.25, 0) comes out of its shadow, (21.25, -1.3) goes into it */
    int p0x, p0y, p1x, p1y;
    CHECK(ground_pixel(&b, 21.25, 0.0, &p0x, &p0y) && ground_pixel(&b, 21.25, -1.3, &p1x, &p1y));
    s.worlds[panel[5]][3][2] = -1.0f;
    if (!draw(&r, &s, &c)) goto done;
    fprintf(stderr,
            "  %s: moving one panel redraws %u face(s); ground %.4f -> %.4f there, "
            "%.4f -> %.4f where it moved\n",
            g_backend, c.faces_changed, lin(&b, p0x, p0y), lin(&c, p0x, p0y), lin(&b, p1x, p1y),
            lin(&c, p1x, p1y));
    CHECK_EQ_INT((int)c.faces_changed, 1);
    CHECK(lin(&c, p0x, p0y) > 2 * lin(&b, p0x, p0y));
    CHECK(lin(&c, p1x, p1y) < 0.5 * lin(&b, p1x, p1y));
    /* a mover: out of the static layer (that redraws once), then moved back */
    s.flags[panel[5]] = OAK_DRAW_MOVING;
    if (!draw(&r, &s, &d)) goto done;
    CHECK_EQ_INT((int)d.faces_changed, 1);
    s.worlds[panel[5]][3][2] = 0;
    if (!draw(&r, &s, &e)) goto done;
    fprintf(stderr, "  %s: a mover moved back redraws %u face(s); ground %.4f -> %.4f\n", g_backend,
            e.faces_changed, lin(&d, p0x, p0y), lin(&e, p0x, p0y));
    CHECK_EQ_INT((int)e.faces_changed, 0);
    CHECK(lin(&e, p0x, p0y) < 0.5 * lin(&d, p0x, p0y));
    CHECK(fabs(lin(&e, p0x, p0y) - lin(&b, p0x, p0y)) < 0.002);
done:
    oak_destroy_renderer(r);
}

/* A post under a point lamp stays inside the cube's -y face as it moves:
   only that face is redrawn. Eleven point lamps want 66 faces; ten fit in
   the atlas. A lamp that opts out of casting gets no slot and its light is
   the same with or without the post. */
TEST(lampCubeBudgetAndOptOut) {
    scene s;
    scene_init(&s);
    scene_add(&s, g_ground, 0, 0, 0);
    uint32_t post = scene_add(&s, g_post, 0.3f, 0.5f, 0.2f);
    lamp(&s, OAK_LIGHT_POINT, 0, 3, 0, 20, 8);
    look_down(&s, 0, 12, 0);
    oak_renderer *r = NULL;
    static shot a, b, c;
    if (!draw(&r, &s, &a) || !draw(&r, &s, &b)) goto done;
    s.worlds[post][3][0] = 0.5f;
    if (!draw(&r, &s, &c)) goto done;
    fprintf(stderr, "  %s: cube faces drawn %u, then %u, then %u after the post moved\n", g_backend,
            a.faces_changed, b.faces_changed, c.faces_changed);
    CHECK_EQ_INT((int)a.faces_changed, 6);
    CHECK_EQ_INT((int)b.faces_changed, 0);
    CHECK_EQ_INT((int)c.faces_changed, 1);
    /* the same lamp, opted out */
    s.lights[0].light.cast_shadows = false;
    static shot d, e;
    if (!draw(&r, &s, &d)) goto done;
    s.flags[post] = OAK_DRAW_NO_SHADOW;
    if (!draw(&r, &s, &e)) goto done;
    CHECK_EQ_INT((int)d.lamp_shadows, 0);
    CHECK(memcmp(d.px, e.px, sizeof d.px) == 0);
    /* eleven point lamps: ten slots */
    s.in.light_count = 0;
    for (int i = 0; i < 11; i++) lamp(&s, OAK_LIGHT_POINT, (float)i - 5, 3, 0, 20, 8);
    static shot f;
    if (!draw(&r, &s, &f)) goto done;
    fprintf(stderr, "  %s: 11 point lamps: %u shadowed, %u faces\n", g_backend, f.lamp_shadows,
            f.lamp_faces);
    CHECK_EQ_INT((int)f.lamp_shadows, 10);
    CHECK_EQ_INT((int)f.lamp_faces, 60);
done:
    oak_destroy_renderer(r);
}

/* A lamp keeps its tile while it stays chosen: a 21st lamp nearest the
   camera pushes the last chosen one (x 64, tied at 30 m with x 4 and
   behind it in view order) out of the budget and takes its tile; no other
   lamp's tile moves and only that tile is redrawn. */
static uint32_t tile_of(const oak_render_view *v, uint32_t light) {
    return v->lamp_faces[v->lamp_shadows[v->light_shadow[light]].first_face].tile;
}

TEST(lampKeepsItsSlotWhileChosen) {
    scene s;
    uint32_t panel[20];
    row_scene(&s, panel);
    oak_renderer *r = NULL;
    static shot a, b;
    if (!draw(&r, &s, &a)) goto done;
    uint32_t tiles[20] = {0};
    const oak_render_view *v = oak_renderer_last_view(r);
    for (uint32_t i = 0; i < 20; i++)
        if (v->light_shadow[i] >= 0) tiles[i] = tile_of(v, i);
    oak_render_light *l = lamp(&s, OAK_LIGHT_SPOT, 34, 3, 1, 20, 8);
    l->light.outer_cone = 0.7f;
    if (!draw(&r, &s, &b)) goto done;
    v = oak_renderer_last_view(r);
    int kept = 0, moved = 0;
    for (uint32_t i = 0; i < 20; i++) {
        if (a.slot[i] < 0 || i == 16) continue;
        CHECK(v->light_shadow[i] >= 0);
        if (v->light_shadow[i] < 0) continue;
        kept++;
        moved += tiles[i] != tile_of(v, i);
    }
    CHECK_EQ_INT(kept, 15);
    CHECK_EQ_INT(moved, 0);
    CHECK(a.slot[16] >= 0 && v->light_shadow[16] < 0);
    CHECK(v->light_shadow[20] >= 0 && tile_of(v, 20) == tiles[16]);
    CHECK_EQ_INT((int)b.faces_changed, 1);
done:
    oak_destroy_renderer(r);
}

/* A view whose lamp faces or slots do not hold together is refused in one
   line (OAK_ERROR_INVALID_ARGUMENT), never drawn: a tile past the atlas, a
   slot's faces past the list, a face's casters past the lamp casters. */
TEST(lampMalformedViewIsRefused) {
    scene s;
    scene_init(&s);
    scene_add(&s, g_ground, 0, 0, 0);
    scene_add(&s, g_post, 0.3f, 0.5f, 0.2f);
    lamp(&s, OAK_LIGHT_POINT, 0, 3, 0, 20, 8);
    look_down(&s, 0, 12, 0);
    oak_renderer *r = NULL;
    static shot a;
    const oak_backend *be = !strcmp(g_backend, "cpu")      ? oak_backend_cpu()
                            : !strcmp(g_backend, "vulkan") ? oak_backend_vulkan()
                                                           : oak_backend_gl();
    void *self = NULL;
    oak_backend_desc d = {W, H, NULL, 256, false};
    if (!draw(&r, &s, &a) || !be) goto done;
    CHECK_OK(be->create(&self, &d));
    if (!self) goto done;
    static oak_render_view v;
    v = *oak_renderer_last_view(r);
    CHECK_OK(be->render(self, &v)); /* as built: fine */
    v.lamp_faces[2].tile = OAK_LAMP_ATLAS_FACES;
    CHECK_EQ_INT(be->render(self, &v), OAK_ERROR_INVALID_ARGUMENT);
    fprintf(stderr, "  %s: %s\n", g_backend, oak_last_error());
    v = *oak_renderer_last_view(r);
    v.lamp_shadows[0].first_face = 60;
    CHECK_EQ_INT(be->render(self, &v), OAK_ERROR_INVALID_ARGUMENT);
    fprintf(stderr, "  %s: %s\n", g_backend, oak_last_error());
    v = *oak_renderer_last_view(r);
    v.lamp_faces[5].mover_count = 1000;
    CHECK_EQ_INT(be->render(self, &v), OAK_ERROR_INVALID_ARGUMENT);
    fprintf(stderr, "  %s: %s\n", g_backend, oak_last_error());
    v = *oak_renderer_last_view(r);
    CHECK_OK(be->render(self, &v)); /* and it still draws */
    oak_clear_error();
done:
    if (self) be->destroy(self);
    oak_destroy_renderer(r);
}

/* Vulkan runs with the validation layer on; any message it prints fails. */
static int g_validation;
static void log_hook(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (strstr(msg, "vulkan validation")) g_validation++;
    if (level >= OAK_LOG_WARN || strstr(msg, "vulkan validation")) fprintf(stderr, "%s\n", msg);
}

int main(void) {
    setenv("OAK_VK_VALIDATION", "1", 0);
    /* keep the driver and layer mapped so LSan can name their frames */
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    oak_engine_desc ed = {.log = log_hook, .log_level = OAK_LOG_WARN};
    if (oak_init(&ed) != OAK_OK) return 2;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.8f;
    md.metallic = 0;
    md.roughness = 1;
    CHECK_OK(oak_make_material(&g_white, &md));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {120, 0, 60}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    g_box = box_mesh(1, 1, 1);
    g_panel = box_mesh(0.2f, 1.5f, 1.0f);
    g_post = box_mesh(0.2f, 1.0f, 0.2f);
    const char *backends[3] = {"cpu", "vulkan", "gl"};
    int ran = 0;
    for (int k = 0; k < 3; k++) {
        char report[1024];
        if (!oak_test_backend_has(backends[k], OAK_PASS_LAMPSHADOW)) continue;
        if (oak_backend_probe(backends[k], report, sizeof report) != OAK_OK) {
            fprintf(stderr, "skipped: %s cannot start here\n", backends[k]);
            continue;
        }
        g_backend = backends[k];
        fprintf(stderr, "-- %s\n", g_backend);
        uint64_t t0 = oak_time_ns();
        RUN(lampPointBoxShadowEndsWhereGeometrySays);
        RUN(lampSpotBoxShadowEndsWhereGeometrySays);
        RUN(lampStreamInstancesCastInTheLampFace);
        RUN(lampRowShadowsTheSixteenNearest);
        RUN(lampFacesRedrawOnlyWhenWhatTheyHoldChanges);
        RUN(lampCubeBudgetAndOptOut);
        RUN(lampKeepsItsSlotWhileChosen);
        RUN(lampMalformedViewIsRefused);
        fprintf(stderr, "  %s: %d validation messages, %.1f s\n", g_backend, g_validation,
                oak_ms_since(t0) / 1000.0);
        if (g_validation) oak_test_failed_++;
        g_validation = 0;
        ran++;
    }
    oak_shutdown();
    if (!ran) return OAK_TEST_SKIP;
    return TEST_SUMMARY();
}
