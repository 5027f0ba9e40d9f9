/* Shadow caching of the sun's cascades on one backend (argv[1]: cpu, vulkan
 * or gl; 77 when it cannot run here): what stands still is drawn into a
 * cascade's static layer once, movers over it every frame, and the cache
 * survives a small camera step; a cached frame equals a fresh renderer's. */
#include "oak_test.h"

#include "backend_start.h"

#define W 160
#define H 90
#define S 256 /* texels across a cascade's map */

#define N_POSTS 4
enum { GROUND, POST0, MOVER = POST0 + N_POSTS, DRAWS };

static const char *g_backend = "cpu";
typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[DRAWS];
    oak_material mat[DRAWS];
    mat4 world[DRAWS];
    uint32_t flags[DRAWS];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
} scene;

static oak_material g_white;
static oak_mesh g_ground, g_post[N_POSTS], g_box;

static void place(scene *s, uint32_t i, float x, float y, float z) {
    glm_mat4_identity(s->world[i]);
    glm_translate(s->world[i], (vec3){x, y, z});
}

static void look(scene *s, const float eye[3], const float at[3]) {
    mat4 view;
    glm_lookat((float *)eye, (float *)at, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s->in.camera_world);
}

/* A ground, four 3 m posts from 6 to 120 m down the view (each its own mesh,
   so a cascade's list shows which it holds) and a 1 m box marked moving
   standing 4 m ahead, under a 40 degree sun. */
static void scene_init(scene *s) {
    memset(s, 0, sizeof *s);
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 200};
    const float dist[N_POSTS] = {6, 20, 45, 120};
    for (uint32_t i = 0; i < DRAWS; i++) s->mat[i] = g_white;
    s->mesh[GROUND] = g_ground;
    place(s, GROUND, 0, 0, -60);
    for (uint32_t k = 0; k < N_POSTS; k++) {
        s->mesh[POST0 + k] = g_post[k];
        place(s, POST0 + k, 1.5f, 1.5f, -dist[k]);
    }
    s->mesh[MOVER] = g_box;
    place(s, MOVER, -0.8f, 0.5f, -4);
    s->flags[MOVER] = OAK_DRAW_MOVING;
    s->sun.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s->sun.light.cast_shadows = true;
    float el = glm_rad(40), az = glm_rad(-60);
    s->sun.direction[0] = -cosf(el) * cosf(az), s->sun.direction[1] = -sinf(el);
    s->sun.direction[2] = -cosf(el) * sinf(az);
    s->env = oak_environment_defaults();
    s->post = (oak_post){.exposure = 1, .no_fxaa = true, .no_dither = true};
    s->in.draw_count = DRAWS;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.flags = s->flags;
    s->in.light_count = 1;
    s->in.lights = &s->sun;
    s->in.environment = &s->env;
    s->in.post = &s->post;
    const float eye[3] = {0, 2, 0}, at[3] = {0, 1.5f, -10};
    look(s, eye, at);
}

static oak_renderer *open_renderer(void) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = S};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

/* Draws a frame and returns what the shadow cache did. */
static oak_shadow_stats draw(oak_renderer *r, const scene *s) {
    oak_shadow_stats st = {0};
    CHECK_OK(oak_renderer_draw(r, &s->in));
    CHECK_OK(oak_renderer_shadow_stats(r, &st));
    return st;
}

/* Bit c: cascade c of the last view lists the draw of this mesh. */
static uint32_t cascades_listing(oak_renderer *r, oak_mesh m) {
    const oak_render_view *v = oak_renderer_last_view(r);
    uint32_t mask = 0;
    for (uint32_t c = 0; c < v->cascade_count; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        for (uint32_t i = cas->first_caster; i < cas->first_caster + cas->caster_count; i++)
            if (v->casters.mesh[i].id == m.id) mask |= 1u << c;
    }
    return mask;
}

static uint32_t bits(uint32_t m) {
    uint32_t n = 0;
    for (; m; m &= m - 1) n++;
    return n;
}

/* The first frame draws every static layer; a second with nothing moved
   draws none, and copies nothing where no mover falls. */
TEST(stillFrameDrawsNoStaticLayer) {
    static scene s;
    scene_init(&s);
    s.flags[MOVER] = 0; /* nothing moving at all */
    oak_renderer *r = open_renderer();
    if (!r) return;
    oak_shadow_stats a = draw(r, &s), b = draw(r, &s);
    fprintf(stderr,
            "  first frame: %u static layers, %u copies, %u mover draws; second: %u, %u, %u\n",
            a.static_layers, a.layer_copies, a.mover_draws, b.static_layers, b.layer_copies,
            b.mover_draws);
    CHECK_EQ_INT(a.static_layers, OAK_MAX_CASCADES);
    CHECK_EQ_INT(a.redrawn_mask, (1u << OAK_MAX_CASCADES) - 1);
    CHECK_EQ_INT(b.static_layers, 0);
    CHECK_EQ_INT(b.redrawn_mask, 0);
    CHECK_EQ_INT(b.layer_copies, 0);
    CHECK_EQ_INT(b.mover_draws, 0);
    oak_destroy_renderer(r);
}

/* Moving one static post redraws exactly the cascades that list it before
   or after the move; the others keep their layers. */
TEST(movingOnePostRedrawsOnlyItsCascades) {
    static scene s;
    scene_init(&s);
    oak_renderer *r = open_renderer();
    if (!r) return;
    draw(r, &s);
    draw(r, &s);
    for (uint32_t k = 0; k < N_POSTS; k++) {
        uint32_t before = cascades_listing(r, g_post[k]);
        s.world[POST0 + k][3][0] += 0.25f;
        oak_shadow_stats st = draw(r, &s);
        uint32_t expect = before | cascades_listing(r, g_post[k]);
        fprintf(stderr, "  post %u: listed by cascades 0x%x, redrawn 0x%x (%u layers)\n", k, expect,
                st.redrawn_mask, st.static_layers);
        CHECK(expect != 0);
        CHECK_EQ_INT(st.redrawn_mask, expect);
        CHECK_EQ_INT(st.static_layers, bits(expect));
    }
    /* the near post is in every cascade's map, the far one only in the last */
    CHECK_EQ_INT(cascades_listing(r, g_post[0]), 0xf);
    CHECK(!(cascades_listing(r, g_post[N_POSTS - 1]) & 1u));
    oak_destroy_renderer(r);
}

/* A static post's mesh re-uploaded in place with its shape kept (its
   version moves on, no vertex moves) redraws nothing; stretched to twice
   its height (vertices 1.5 m up and down, past every cascade's morph
   slack) it redraws the cascades that list it, as a move does. */
TEST(reuploadedPostRedrawsItsCascades) {
    static scene s;
    scene_init(&s);
    oak_renderer *r = open_renderer();
    if (!r) return;
    draw(r, &s);
    draw(r, &s);
    const oak_mesh_data *md = oak_mesh_get(g_post[2]);
    uint32_t n = md ? md->vertex_count : 0;
    float *pos = oak_alloc(sizeof(float) * 3 * (n ? n : 1)), *orig = NULL;
    if (md && pos) {
        memcpy(pos, md->positions, sizeof(float) * 3 * n);
        CHECK_OK(oak_mesh_update_vertices(g_post[2], n, pos, NULL, NULL));
    }
    uint32_t same = draw(r, &s).static_layers;
    if (md && pos && (orig = oak_alloc(sizeof(float) * 3 * (n ? n : 1)))) {
        memcpy(orig, pos, sizeof(float) * 3 * n);
        for (uint32_t i = 0; i < n; i++) pos[i * 3 + 1] *= 2;
        CHECK_OK(oak_mesh_update_vertices(g_post[2], n, pos, NULL, NULL));
    }
    oak_shadow_stats st = draw(r, &s);
    uint32_t expect = cascades_listing(r, g_post[2]);
    uint32_t next = draw(r, &s).static_layers;
    fprintf(stderr,
            "  post 2 re-uploaded: as it was, %u layers; stretched: listed by 0x%x, redrawn 0x%x; "
            "next frame %u layers\n",
            same, expect, st.redrawn_mask, next);
    if (orig) CHECK_OK(oak_mesh_update_vertices(g_post[2], n, orig, NULL, NULL)); /* shared */
    oak_free(pos);
    oak_free(orig);
    CHECK_EQ_INT(same, 0);
    CHECK(expect != 0 && expect != 0xf);
    CHECK_EQ_INT(next, 0);
    CHECK_EQ_INT(st.redrawn_mask, expect);
    oak_destroy_renderer(r);
}

/* A static post posed by a palette (oak_mesh_update_pose: its pose_version
   moves, its version holds) redraws the cascades that list it, as a
   re-upload does. */
TEST(posedPostRedrawsItsCascades) {
    static scene s;
    scene_init(&s);
    const oak_mesh_data *md = oak_mesh_get(g_post[2]);
    uint16_t *joints = md ? oak_calloc((size_t)md->vertex_count * 4 + 1, sizeof(uint16_t)) : NULL;
    oak_mesh posed = {0};
    if (md && joints) { /* every vertex all on joint 0 (weights NULL: 1 on the first) */
        oak_mesh_desc d = {.vertex_count = md->vertex_count,
                           .index_count = md->index_count,
                           .positions = md->positions,
                           .normals = md->normals,
                           .tangents = md->tangents,
                           .joints = joints,
                           .indices = md->indices};
        CHECK_OK(oak_make_mesh(&posed, &d));
    }
    oak_free(joints);
    static const float rows[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
    oak_renderer *r = posed.id ? open_renderer() : NULL;
    if (!r) goto done;
    CHECK_OK(oak_mesh_update_palette(posed, 1, rows));
    s.mesh[POST0 + 2] = posed;
    draw(r, &s);
    draw(r, &s);
    uint32_t version = oak_mesh_get(posed)->version;
    CHECK_OK(oak_mesh_update_palette(posed, 1, rows));
    CHECK_EQ_INT(oak_mesh_get(posed)->version, version);
    oak_shadow_stats st = draw(r, &s);
    uint32_t expect = cascades_listing(r, posed);
    uint32_t next = draw(r, &s).static_layers;
    fprintf(stderr, "  post 2 posed: listed by 0x%x, redrawn 0x%x; next frame %u layers\n", expect,
            st.redrawn_mask, next);
    CHECK(expect != 0 && expect != 0xf);
    CHECK_EQ_INT(next, 0);
    CHECK_EQ_INT(st.redrawn_mask, expect);
    oak_destroy_renderer(r);
done:
    if (posed.id) oak_destroy_mesh(posed);
}

/* Red channel sum over the picture's lower half (the ground near the box). */
static double ground_sum(const uint8_t *px) {
    double sum = 0;
    for (int y = H / 2; y < H; y++)
        for (int x = 0; x < W; x++) sum += px[((size_t)y * W + (size_t)x) * 4];
    return sum;
}

/* A mover draws no static layer, yet casts: the ground round it is darker
   than in the same frame with the box casting nothing. */
TEST(moverDrawsNoStaticLayerAndCasts) {
    static scene s;
    static uint8_t with[W * H * 4], without[W * H * 4];
    scene_init(&s);
    oak_renderer *r = open_renderer();
    if (!r) return;
    draw(r, &s);
    uint32_t layers = 0, movers = 0, copies = 0;
    for (int f = 0; f < 3; f++) {
        s.world[MOVER][3][0] += 0.3f;
        oak_shadow_stats st = draw(r, &s);
        layers += st.static_layers, movers += st.mover_draws, copies += st.layer_copies;
    }
    uint32_t listing = cascades_listing(r, g_box);
    CHECK_OK(oak_renderer_read_pixels(r, with, sizeof with));
    s.flags[MOVER] |= OAK_DRAW_NO_SHADOW;
    draw(r, &s);
    CHECK_OK(oak_renderer_read_pixels(r, without, sizeof without));
    int darker = 0;
    double kept = 0; /* of the light on the darkened pixels */
    for (size_t i = 0; i < sizeof with; i += 4)
        if (with[i] + 8 < without[i]) darker++, kept += (double)with[i] / without[i];
    kept = darker ? kept / darker : 1;
    double drop = 1 - ground_sum(with) / ground_sum(without);
    fprintf(stderr,
            "  3 frames moving the box: %u static layers, %u mover draws, %u copies (cascades "
            "0x%x list it); %d pixels darker by 8+ (keeping %.0f%% of their light), lower half "
            "%.1f%% darker\n",
            layers, movers, copies, listing, darker, 100 * kept, 100 * drop);
    CHECK_EQ_INT(layers, 0);
    CHECK(listing & 1u);
    CHECK_EQ_INT(movers, 3 * bits(listing));
    CHECK_EQ_INT(copies, 3 * bits(listing));
    CHECK(darker >= 100); /* the box's shadow: about 1 m^2 some 4 m ahead */
    CHECK(kept < 0.85);   /* sRGB bytes after ACES: the ambient still lights it */
    CHECK(drop > 0.005);
    oak_destroy_renderer(r);
}

/* The camera stepping 10 cm a frame for eight frames keeps every map where
   it was: no static layer is drawn; a second renderer fed the same views
   gets the same cascade matrices. */
TEST(cameraStepsKeepTheLayers) {
    static scene s;
    scene_init(&s);
    oak_renderer *r = open_renderer(), *twin = open_renderer();
    if (!r || !twin) {
        oak_destroy_renderer(r);
        oak_destroy_renderer(twin);
        return;
    }
    draw(r, &s);
    draw(twin, &s);
    uint32_t layers = 0, same = 0;
    for (int f = 1; f <= 8; f++) {
        const float eye[3] = {0.1f * (float)f, 2, -0.05f * (float)f},
                    at[3] = {0.1f * (float)f, 1.5f, -10};
        look(&s, eye, at);
        layers += draw(r, &s).static_layers;
        draw(twin, &s);
        const oak_render_view *a = oak_renderer_last_view(r), *b = oak_renderer_last_view(twin);
        bool eq = a->cascade_count == b->cascade_count;
        for (uint32_t c = 0; c < a->cascade_count; c++)
            eq = eq && !memcmp(a->cascades[c].view_proj, b->cascades[c].view_proj, sizeof(mat4));
        same += eq;
    }
    fprintf(stderr, "  8 steps of 11 cm: %u static layers drawn, matrices equal in %u of 8\n",
            layers, same);
    CHECK_EQ_INT(layers, 0);
    CHECK_EQ_INT(same, 8);
    oak_destroy_renderer(r);
    oak_destroy_renderer(twin);
}

/* A camera turning 30 degrees a frame re-centres its maps every frame:
   after the second such frame a cascade lists its static casters as
   tightly as its movers (the near post no longer in the far map's list),
   and once it has stood still for OAK_SHADOW_CACHE_WINDOW frames the box
   list (and one redraw for it) is back, then nothing is redrawn. */
TEST(fastTurnListsStaticCastersTightly) {
    static scene s;
    scene_init(&s);
    oak_renderer *r = open_renderer();
    if (!r) return;
    draw(r, &s);
    uint32_t boxed = cascades_listing(r, g_post[0]);
    float yaw = 0;
    for (int f = 0; f < 3; f++) {
        yaw += glm_rad(30);
        const float eye[3] = {0, 2, 0}, at[3] = {-10 * sinf(yaw), 1.5f, -10 * cosf(yaw)};
        look(&s, eye, at);
        draw(r, &s);
    }
    uint32_t tight = cascades_listing(r, g_post[0]);
    uint32_t later = 0, last = 0;
    for (int f = 0; f < OAK_SHADOW_CACHE_WINDOW + 2; f++) {
        last = draw(r, &s).static_layers;
        later += last;
    }
    uint32_t settled = cascades_listing(r, g_post[0]);
    fprintf(stderr,
            "  near post listed by 0x%x, after three 30-degree turns 0x%x, %u frames later 0x%x "
            "(%u layers redrawn while settling, %u in the last frame)\n",
            boxed, tight, OAK_SHADOW_CACHE_WINDOW + 2, settled, later, last);
    CHECK_EQ_INT(boxed, 0xf);
    CHECK(!(tight & 8u));
    CHECK(settled & 8u);
    CHECK(later >= 1);
    CHECK_EQ_INT(last, 0);
    oak_destroy_renderer(r);
}

/* A frame drawn from cached layers (a post and the mover moved since the
   layers were drawn) equals a fresh renderer's frame of the same view:
   bitwise on the CPU, at the parity rule on a GPU. */
TEST(cachedFrameEqualsFreshFrame) {
    static scene s;
    static uint8_t cached[W * H * 4], fresh[W * H * 4];
    scene_init(&s);
    oak_renderer *r = open_renderer(), *f = open_renderer();
    if (!r || !f) {
        oak_destroy_renderer(r);
        oak_destroy_renderer(f);
        return;
    }
    draw(r, &s);
    s.world[POST0 + 1][3][0] -= 0.5f;
    s.world[MOVER][3][2] -= 0.5f;
    draw(r, &s);
    oak_shadow_stats st = draw(r, &s);
    CHECK_OK(oak_renderer_read_pixels(r, cached, sizeof cached));
    draw(f, &s);
    CHECK_OK(oak_renderer_read_pixels(f, fresh, sizeof fresh));
    size_t n = 0, within = 0, differ = 0;
    double sum = 0;
    for (size_t i = 0; i < sizeof cached; i++) {
        if (i % 4 == 3) continue;
        int d = abs((int)cached[i] - (int)fresh[i]);
        n++, within += d <= 2, differ += d != 0, sum += d;
    }
    fprintf(stderr,
            "  cached frame (%u static layers) vs fresh: %zu of %zu channels differ, %.4f%% within "
            "2/255, mean %.4f/255\n",
            st.static_layers, differ, n, 100.0 * (double)within / (double)n, sum / (double)n);
    CHECK_EQ_INT(st.static_layers, 0);
    if (!strcmp(g_backend, "cpu")) {
        CHECK_EQ_INT(differ, 0);
    } else {
        CHECK((double)within >= 0.995 * (double)n);
        CHECK(sum / (double)n < 0.5);
    }
    oak_destroy_renderer(r);
    oak_destroy_renderer(f);
}

/* The sampled cascade atlas of the renderer's last frame, 2S x 2S. */
static float *read_atlas(oak_renderer *r) {
    size_t n = (size_t)4 * S * S;
    float *d = oak_alloc(n * sizeof(float));
    if (d && oak_renderer_read_shadow_map(r, d, n) != OAK_OK) {
        oak_free(d);
        d = NULL;
    }
    CHECK(d != NULL);
    return d;
}

/* A copy of post 2's box as a mesh of its own, which a test may morph. */
static oak_mesh own_post(void) {
    oak_mesh m = {0};
    oak_shape_desc pd = {.type = OAK_SHAPE_BOX, .size = {0.43f, 3, 0.4f}};
    CHECK_OK(oak_make_shape(&m, &pd));
    return m;
}

/* The post's box squashed to `height` of its own (a morph: the same mesh,
   its vertices rewritten, its version moved on). */
static void morph_post(oak_mesh m, float height) {
    const oak_mesh_data *md = oak_mesh_get(m);
    uint32_t n = md ? md->vertex_count : 0;
    float *pos = oak_alloc(sizeof(float) * 3 * (n ? n : 1));
    if (md && pos) {
        memcpy(pos, md->positions, sizeof(float) * 3 * n);
        for (uint32_t i = 0; i < n; i++) pos[i * 3 + 1] *= height;
        CHECK_OK(oak_mesh_update_vertices(m, n, pos, NULL, NULL));
    }
    oak_free(pos);
}

/* The vertices of m whose mesh-space z lies in [z0, z1] lifted by dy (a
   morph: the same mesh, its vertices rewritten, its version moved on). */
static void lift_band(oak_mesh m, float z0, float z1, float dy) {
    const oak_mesh_data *md = oak_mesh_get(m);
    uint32_t n = md ? md->vertex_count : 0;
    float *pos = oak_alloc(sizeof(float) * 3 * (n ? n : 1));
    if (md && pos) {
        memcpy(pos, md->positions, sizeof(float) * 3 * n);
        for (uint32_t i = 0; i < n; i++)
            if (pos[i * 3 + 2] >= z0 && pos[i * 3 + 2] <= z1) pos[i * 3 + 1] += dy;
        CHECK_OK(oak_mesh_update_vertices(m, n, pos, NULL, NULL));
    }
    oak_free(pos);
}

/* A post morphed and another moved redraw only the dirty rectangles of the
   cascades that list them (under 5% of those maps' texels), and the atlas
   then equals a fresh renderer's whole redraw of the same casters: bitwise
   on the CPU, within 2^-20 of depth on a GPU. */
TEST(partialRedrawEqualsWholeRedraw) {
    static scene s;
    scene_init(&s);
    s.flags[MOVER] = 0; /* everything in the static layers */
    oak_mesh own = own_post();
    s.mesh[POST0 + 2] = own;
    oak_renderer *r = own.id ? open_renderer() : NULL, *f = r ? open_renderer() : NULL;
    float *a = NULL, *b = NULL;
    if (!r || !f) goto done;
    draw(r, &s);
    draw(r, &s);
    uint32_t before = cascades_listing(r, own) | cascades_listing(r, g_post[1]);
    morph_post(own, 0.8f);
    s.world[POST0 + 1][3][0] += 0.3f;
    oak_shadow_stats st = draw(r, &s);
    uint32_t expect = before | cascades_listing(r, own) | cascades_listing(r, g_post[1]);
    a = read_atlas(r);
    draw(f, &s);
    b = read_atlas(f);
    const oak_render_view *va = oak_renderer_last_view(r), *vb = oak_renderer_last_view(f);
    bool same_maps = va->cascade_count == vb->cascade_count;
    for (uint32_t c = 0; c < va->cascade_count; c++)
        same_maps = same_maps &&
                    !memcmp(va->cascades[c].view_proj, vb->cascades[c].view_proj, sizeof(mat4));
    if (!a || !b) goto done;
    size_t n = (size_t)4 * S * S, cast = 0, differ = 0, far = 0;
    for (size_t i = 0; i < n; i++) {
        cast += b[i] > 0;
        differ += a[i] != b[i];
        far += fabsf(a[i] - b[i]) > 0x1p-20f;
    }
    double share = (double)st.dirty_texels / ((double)st.partial_layers * S * S + 1e-9);
    fprintf(stderr,
            "  post 2 morphed, post 1 moved: cascades 0x%x list them, redrawn 0x%x (%u layers, %u "
            "partial, %u texels: %.2f%% of those maps); atlas vs a fresh renderer's: %zu of %zu "
            "texels differ (%zu by more than 2^-20), %zu cast\n",
            expect, st.redrawn_mask, st.static_layers, st.partial_layers, st.dirty_texels,
            100 * share, differ, n, far, cast);
    CHECK(same_maps);
    CHECK(expect != 0);
    CHECK_EQ_INT(st.redrawn_mask, expect);
    CHECK_EQ_INT(st.partial_layers, bits(expect));
    CHECK(st.dirty_texels > 0);
    CHECK(share < 0.05);
    CHECK(cast > (size_t)S * S / 4); /* the ground casts too: a map to compare */
    if (!strcmp(g_backend, "cpu"))
        CHECK_EQ_INT(differ, 0);
    else
        CHECK_EQ_INT(far, 0);
done:
    oak_free(a);
    oak_free(b);
    oak_destroy_renderer(r);
    oak_destroy_renderer(f);
    if (own.id) oak_destroy_mesh(own);
}

/* A change whose bounds pass OAK_SHADOW_DIRTY_SHARE of a map (the ground,
   60 x 160 m under every map, morphed: more than half of the near maps,
   less of the far one) redraws those layers whole; a post removed (its old
   bounds only) redraws its cascades partially. */
TEST(largeChangeRedrawsWholeLayer) {
    static scene s;
    scene_init(&s);
    s.flags[MOVER] = 0;
    oak_mesh ground = {0};
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {60, 0, 160}};
    CHECK_OK(oak_make_shape(&ground, &gd));
    s.mesh[GROUND] = ground;
    oak_renderer *r = ground.id ? open_renderer() : NULL;
    if (!r) goto done;
    draw(r, &s);
    draw(r, &s);
    lift_band(ground, -1e9f, 1e9f, 3.0f); /* every vertex moved, past the slack */
    oak_shadow_stats whole = draw(r, &s);
    uint32_t listing = cascades_listing(r, g_post[1]);
    s.flags[POST0 + 1] = OAK_DRAW_HIDDEN;
    oak_shadow_stats gone = draw(r, &s);
    fprintf(stderr,
            "  ground morphed: %u layers redrawn, %u partial (%u texels); post 1 (cascades 0x%x) "
            "hidden: redrawn 0x%x, %u partial, %u texels\n",
            whole.static_layers, whole.partial_layers, whole.dirty_texels, listing,
            gone.redrawn_mask, gone.partial_layers, gone.dirty_texels);
    CHECK_EQ_INT(whole.static_layers, OAK_MAX_CASCADES);
    CHECK(whole.partial_layers < OAK_MAX_CASCADES - 1); /* the near ones whole */
    CHECK(whole.dirty_texels <= (double)OAK_SHADOW_DIRTY_SHARE * whole.partial_layers * S * S);
    CHECK(listing != 0);
    CHECK_EQ_INT(gone.redrawn_mask, listing);
    CHECK_EQ_INT(gone.partial_layers, bits(listing));
    CHECK(gone.dirty_texels > 0 && gone.dirty_texels < bits(listing) * S * S / 20);
    oak_destroy_renderer(r);
done:
    if (ground.id) oak_destroy_mesh(ground);
}

/* The scene with no mover and a ground of 32 x 32 quads whose vertices
   the morph tests move (lift_band); the ground's id 0 when it failed. */
static oak_mesh morph_scene(scene *s) {
    scene_init(s);
    s->flags[MOVER] = 0;
    oak_mesh ground = {0};
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {60, 0, 160}, .segments = 32};
    CHECK_OK(oak_make_shape(&ground, &gd));
    s->mesh[GROUND] = ground;
    return ground;
}

/* A morph that moves one band of a big mesh's vertices (a terrain tile's
   LOD morph) dirties only the triangles that touch the band, not the
   mesh's whole bounds: every cascade that lists the ground redraws
   partially, through far fewer texels than the ground covers, and the
   atlas then equals a fresh renderer's whole redraw (bitwise on the CPU,
   within 2^-20 of depth on a GPU); a second update that moves nothing
   dirties nothing. */
TEST(morphedBandRedrawsOnlyItsTriangles) {
    static scene s;
    oak_mesh ground = morph_scene(&s);
    oak_renderer *r = ground.id ? open_renderer() : NULL, *f = r ? open_renderer() : NULL;
    float *a = NULL, *b = NULL;
    if (!r || !f) goto done;
    draw(r, &s);
    draw(r, &s);
    uint32_t listing = cascades_listing(r, ground);
    /* the rows 50 m to 60 m ahead of the eye (the ground's centre is 60 m
       ahead): far enough that the band is a strip across every map */
    lift_band(ground, 0, 10, 3.0f); /* past every cascade's slack */
    oak_shadow_stats st = draw(r, &s);
    a = read_atlas(r);
    draw(f, &s);
    b = read_atlas(f);
    lift_band(ground, 0, 0, 0); /* rewritten, nothing moved */
    oak_shadow_stats none = draw(r, &s);
    if (!a || !b) goto done;
    size_t n = (size_t)4 * S * S, differ = 0, far = 0;
    for (size_t i = 0; i < n; i++) {
        differ += a[i] != b[i];
        far += fabsf(a[i] - b[i]) > 0x1p-20f;
    }
    double share = (double)st.dirty_texels / ((double)st.partial_layers * S * S + 1e-9);
    fprintf(stderr,
            "  ground's band lifted: cascades 0x%x list it, redrawn 0x%x (%u layers, %u partial, "
            "%u texels: %.2f%% of those maps); atlas vs a fresh renderer's: %zu of %zu texels "
            "differ (%zu by more than 2^-20); unmoved rewrite: %u layers, %u texels\n",
            listing, st.redrawn_mask, st.static_layers, st.partial_layers, st.dirty_texels,
            100 * share, differ, n, far, none.static_layers, none.dirty_texels);
    CHECK(bits(listing) >= 3);
    CHECK_EQ_INT(st.redrawn_mask, listing);
    CHECK_EQ_INT(st.partial_layers, bits(listing));
    CHECK(st.dirty_texels > 0);
    CHECK(share < 0.25); /* the ground alone covers most of every map */
    CHECK_EQ_INT(none.dirty_texels, 0);
    if (!strcmp(g_backend, "cpu"))
        CHECK_EQ_INT(differ, 0);
    else
        CHECK_EQ_INT(far, 0);
done:
    oak_free(a);
    oak_free(b);
    oak_destroy_renderer(r);
    oak_destroy_renderer(f);
    if (ground.id) oak_destroy_mesh(ground);
}

/* A morph that moves vertices by less than OAK_SHADOW_MORPH_SLACK of a
   cascade's texel leaves that layer as drawn (no redraw); once the moves
   add up past it, the cascade redraws the triangles that moved, and its
   map then equals a fresh renderer's (bitwise on the CPU, within 2^-20 of
   depth on a GPU), while the coarser ones, whose slack is wider, still
   hold. */
TEST(morphWithinSlackKeepsTheLayer) {
    static scene s;
    oak_mesh ground = morph_scene(&s);
    oak_renderer *r = ground.id ? open_renderer() : NULL, *f = r ? open_renderer() : NULL;
    float *a = NULL, *b = NULL;
    if (!r || !f) goto done;
    draw(r, &s);
    draw(r, &s);
    const oak_render_view *v = oak_renderer_last_view(r);
    float slack0 = (float)OAK_SHADOW_MORPH_SLACK * v->cascades[0].texel_world;
    float slack1 = (float)OAK_SHADOW_MORPH_SLACK * v->cascades[1].texel_world;
    /* every vertex of the ground, 0.6 of cascade 0's slack each time */
    lift_band(ground, -1e9f, 1e9f, 0.6f * slack0);
    oak_shadow_stats one = draw(r, &s);
    lift_band(ground, -1e9f, 1e9f, 0.6f * slack0);
    oak_shadow_stats two = draw(r, &s);
    a = read_atlas(r);
    draw(f, &s);
    b = read_atlas(f);
    if (!a || !b) goto done;
    size_t differ0 = 0, far0 = 0, differ_rest = 0;
    for (uint32_t y = 0; y < 2 * S; y++)
        for (uint32_t x = 0; x < 2 * S; x++) {
            size_t i = (size_t)y * 2 * S + x;
            bool c0 = x < S && y < S; /* cascade 0's tile of the atlas */
            differ0 += c0 && a[i] != b[i];
            far0 += c0 && fabsf(a[i] - b[i]) > 0x1p-20f;
            differ_rest += !c0 && a[i] != b[i];
        }
    fprintf(stderr,
            "  ground lifted 2 x %.4f m (slack %.4f m in cascade 0, %.4f in 1): first %u layers, "
            "then redrawn 0x%x (%u partial); cascade 0 vs a fresh renderer's: %zu texels differ "
            "(%zu by more than 2^-20), the rest %zu\n",
            0.6f * slack0, slack0, slack1, one.static_layers, two.redrawn_mask, two.partial_layers,
            differ0, far0, differ_rest);
    CHECK(1.2f * slack0 < slack1);
    CHECK_EQ_INT(one.static_layers, 0);
    CHECK_EQ_INT(two.redrawn_mask, 1);
    CHECK_EQ_INT(two.partial_layers, 0); /* the whole ground moved: more than half the map */
    CHECK(differ_rest > 0);              /* the coarser layers held what they drew */
    if (!strcmp(g_backend, "cpu"))
        CHECK_EQ_INT(differ0, 0);
    else
        CHECK_EQ_INT(far0, 0);
done:
    oak_free(a);
    oak_free(b);
    oak_destroy_renderer(r);
    oak_destroy_renderer(f);
    if (ground.id) oak_destroy_mesh(ground);
}

/* The low preset's far cascade while the view moves (render/shadow_fit.c
   cascade_dirty): with the camera stepping 11 cm a frame (its maps hold
   still) and the far post (listed by the last two cascades) moved 2 m
   every frame, the last layer is redrawn every other frame and its atlas
   tile lags a fresh renderer's by one frame in between, while the nearer
   cascade that lists it redraws every frame; the default preset and a
   still camera never lag. */
static uint32_t far_lags(oak_preset preset, bool still, bool *caught_up, bool *showed_lag) {
    static scene s;
    scene_init(&s);
    s.post.preset = preset;
    s.flags[MOVER] = 0;
    oak_renderer *r = open_renderer();
    if (!r) return 0;
    draw(r, &s);
    draw(r, &s);
    uint32_t last = 1u << (OAK_MAX_CASCADES - 1), lags = 0;
    uint32_t listing = cascades_listing(r, g_post[N_POSTS - 1]);
    CHECK(listing & last);
    *caught_up = true, *showed_lag = false;
    for (int f = 1; f <= 6; f++) {
        if (!still) {
            const float eye[3] = {0.1f * (float)f, 2, -0.05f * (float)f},
                        at[3] = {0.1f * (float)f, 1.5f, -10};
            look(&s, eye, at);
        }
        s.world[POST0 + N_POSTS - 1][3][0] += 2.0f;
        oak_shadow_stats st = draw(r, &s);
        CHECK_EQ_INT(cascades_listing(r, g_post[N_POSTS - 1]), listing);
        CHECK_EQ_INT(st.redrawn_mask & ~last, listing & ~last); /* never late */
        bool lag = !(st.redrawn_mask & last);
        lags += lag;
        /* the far tile against a fresh renderer's (the other three hold
           the same casts either way) */
        oak_renderer *fresh = open_renderer();
        if (!fresh) break;
        draw(fresh, &s);
        float *a = read_atlas(r), *b = read_atlas(fresh);
        uint32_t differ = 0;
        for (uint32_t y = S; a && b && y < 2 * S; y++)
            for (uint32_t x = S; x < 2 * S; x++)
                differ += a[(size_t)y * 2 * S + x] != b[(size_t)y * 2 * S + x];
        fprintf(stderr, "  %s%s frame %d: redrawn 0x%x, far tile %u texels off a fresh one\n",
                oak_preset_name(preset), still ? " still" : "", f, st.redrawn_mask, differ);
        if (lag)
            *showed_lag |= differ > 0; /* the 0.4 m post: about a far texel */
        else
            *caught_up &= differ == 0;
        oak_free(a), oak_free(b);
        oak_destroy_renderer(fresh);
    }
    oak_destroy_renderer(r);
    return lags;
}

TEST(lowPresetFarLayerLagsOneFrameInMotion) {
    bool caught_up, showed_lag;
    /* every other frame of six, the first moved frame among them */
    CHECK_EQ_INT(far_lags(OAK_PRESET_LOW, false, &caught_up, &showed_lag), 3);
    if (!strcmp(g_backend, "cpu")) { /* the GPUs' depth round-trips are not compared here */
        CHECK(caught_up);
        CHECK(showed_lag);
    }
    CHECK_EQ_INT(far_lags(OAK_PRESET_LOW, true, &caught_up, &showed_lag), 0);
    CHECK_EQ_INT(far_lags(OAK_PRESET_DEFAULT, false, &caught_up, &showed_lag), 0);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!(oak_backend_caps(g_backend) & OAK_CAP_SHADOW_CACHE)) {
        fprintf(stderr, "skipped: %s keeps no shadow cache\n", g_backend);
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_material_desc md = oak_material_desc_defaults(NULL);
    CHECK_OK(oak_make_material(&g_white, &md));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {60, 0, 160}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    for (int k = 0; k < N_POSTS; k++) {
        /* each a hair different, so each is its own mesh */
        oak_shape_desc pd = {.type = OAK_SHAPE_BOX, .size = {0.4f + 0.01f * (float)k, 3, 0.4f}};
        CHECK_OK(oak_make_shape(&g_post[k], &pd));
    }
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    RUN(stillFrameDrawsNoStaticLayer);
    RUN(movingOnePostRedrawsOnlyItsCascades);
    RUN(reuploadedPostRedrawsItsCascades);
    RUN(posedPostRedrawsItsCascades);
    RUN(moverDrawsNoStaticLayerAndCasts);
    RUN(cameraStepsKeepTheLayers);
    RUN(fastTurnListsStaticCastersTightly);
    RUN(cachedFrameEqualsFreshFrame);
    RUN(partialRedrawEqualsWholeRedraw);
    RUN(largeChangeRedrawsWholeLayer);
    RUN(morphedBandRedrawsOnlyItsTriangles);
    RUN(morphWithinSlackKeepsTheLayer);
    RUN(lowPresetFarLayerLagsOneFrameInMotion);
    oak_shutdown();
    fprintf(stderr, "  %d validation or debug messages, %d other errors logged\n",
            g_oak_test_validation, g_oak_test_errors);
    if (g_oak_test_validation || g_oak_test_errors) oak_test_failed_++;
    return TEST_SUMMARY();
}
