/* What test_craster and test_craster_mask share: the compute raster's log
 * lines counted, a scene of two instance streams over a sunlit input, one
 * frame's albedo, normal and depth channels and the cascade atlas after some
 * frames under OAK_CRASTER=mode, and the atlas comparison. Included after
 * W, H, GX, CAP (records per stream) and g_backend are defined. */
#ifndef OAK_CRASTER_TEST_H
#define OAK_CRASTER_TEST_H

static int g_bands = -1;        /* the latest "compute raster: N LOD bands" */
static int g_shadow_bands = -1; /* the latest "shadow compute raster: N cascade bands" */
static int g_split = -1;        /* ... and of "compute raster: N LOD bands (+M per instance)" M */

static void log_bands(void *user, oak_log_level level, const char *msg) {
    const char *at = strstr(msg, "shadow compute raster: ");
    if (at) {
        g_shadow_bands = atoi(at + strlen("shadow compute raster: "));
    } else if ((at = strstr(msg, "compute raster: "))) {
        g_bands = atoi(at + strlen("compute raster: "));
        const char *plus = strstr(at, "(+");
        g_split = plus ? atoi(plus + 2) : -1;
    }
    if (level >= OAK_LOG_WARN) oak_test_count_log(user, level, msg);
}

typedef struct scene {
    oak_frame_input in;
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_stream *streams[2];
    oak_instance rec[CAP];
} scene;

/* Where a scene's records lie: a jittered grid from 2 m ahead, GX a row,
   the two streams interleaved, x = x0 + dx gx + jx h, z = 2 - dz gz - 0.8 h,
   each turned by yaw_span x (h - yaw_centre) about +Y. */
typedef struct grid_desc {
    float x0, dx, jx, dz, yaw_span, yaw_centre;
} grid_desc;

/* The sunlit input, the camera 1.6 m up looking ahead and down, and the
   two streams made from d[2] and filled over the grid g. */
static void scene_make(scene *s, const oak_stream_desc d[2], const grid_desc *g) {
    memset(s, 0, sizeof *s);
    oak_test_sunlit_input(&s->in, 0, NULL, NULL, NULL, &s->sun, &s->env, &s->post, 50, 200);
    s->post.ao = OAK_AO_OFF;
    mat4 view;
    glm_lookat((vec3){0, 1.6f, 4}, (vec3){0, 0.2f, -8}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s->in.camera_world);
    for (uint32_t k = 0; k < 2; k++) {
        CHECK_OK(oak_make_stream(&s->streams[k], &d[k]));
        if (!s->streams[k]) return;
        for (uint32_t i = 0; i < CAP; i++) {
            uint32_t j = i * 2 + k, gx = j % GX, gz = j / GX;
            float a = g->yaw_span * (oak_test_hash01(j, 2) - g->yaw_centre);
            float sc = 0.8f + 0.4f * oak_test_hash01(j, 3);
            s->rec[i] = (oak_instance){
                .position = {g->x0 + g->dx * (float)gx + g->jx * oak_test_hash01(j, 4), 0,
                             2.0f - g->dz * (float)gz - 0.8f * oak_test_hash01(j, 5)},
                .scale = sc,
                .rotation = {0, sinf(a * 0.5f), 0, cosf(a * 0.5f)},
                .phase = 0};
            for (int c = 0; c < 3; c++)
                s->rec[i].color[c] = 0.2f + 0.8f * oak_test_hash01(j, 7 + (uint32_t)c);
        }
        CHECK_OK(oak_stream_write(s->streams[k], 0, s->rec, CAP));
        CHECK_OK(oak_stream_set_count(s->streams[k], CAP));
    }
    s->in.stream_count = 2;
    s->in.streams = s->streams;
}

static void scene_free(scene *s) {
    for (int k = 0; k < 2; k++) oak_destroy_stream(s->streams[k]);
}

/* One frame of a fresh renderer under OAK_CRASTER=mode: its albedo, normal
   and depth channels (a draw of each; one plain draw when albedo is NULL),
   then its stream counts when ss is not NULL. */
static bool channels_stats(scene *s, const char *mode, float *albedo, float *normal, float *depth,
                           oak_stream_stats *ss) {
    setenv("OAK_CRASTER", mode, 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r != NULL;
    float *out[3] = {albedo, normal, depth};
    const oak_channel ch[3] = {OAK_CHANNEL_ALBEDO, OAK_CHANNEL_NORMAL, OAK_CHANNEL_DEPTH};
    for (int c = 0; c < (albedo ? 3 : 1) && ok; c++) {
        s->post.channel = albedo ? ch[c] : OAK_CHANNEL_NONE;
        ok = oak_renderer_draw(r, &s->in) == OAK_OK &&
             (!albedo || oak_renderer_read_channel(r, out[c], (size_t)W * H * 4) == OAK_OK);
    }
    s->post.channel = OAK_CHANNEL_NONE;
    ok = ok && (!ss || oak_renderer_stream_stats(r, ss) == OAK_OK);
    CHECK(ok);
    oak_destroy_renderer(r);
    unsetenv("OAK_CRASTER");
    return ok;
}

/* The albedo, normal and depth channels of one frame under OAK_CRASTER=mode. */
static bool channels(scene *s, const char *mode, float *albedo, float *normal, float *depth) {
    return channels_stats(s, mode, albedo, normal, depth, NULL);
}

#define SM    512 /* a cascade's map edge */
#define ATLAS (2 * SM)

/* The cascade atlas after `frames` frames of one renderer under
   OAK_CRASTER=mode; with `move`, every frame after the first rewrites the
   streams' records (the same values), so they cast as movers. */
static bool shadow_atlas(scene *s, const char *mode, int frames, bool move, float *out) {
    setenv("OAK_CRASTER", mode, 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = SM};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r != NULL;
    for (int i = 0; i < frames && ok; i++) {
        if (move && i)
            for (int k = 0; k < 2; k++) CHECK_OK(oak_stream_write(s->streams[k], 0, s->rec, CAP));
        ok = oak_renderer_draw(r, &s->in) == OAK_OK;
    }
    ok = ok && oak_renderer_read_shadow_map(r, out, (size_t)ATLAS * ATLAS) == OAK_OK;
    CHECK(ok);
    oak_destroy_renderer(r);
    unsetenv("OAK_CRASTER");
    return ok;
}

/* Texels of the hardware's atlas a (compute's b): covered in either, equal
   (within 2^-20 of depth: the two interpolate z in different float steps),
   differing away from an edge of a (all eight neighbours covered as the
   texel is and within 1e-3 of its depth: a cut's edges count as edges). */
typedef struct atlas_diff {
    size_t covered[2], either, equal, inner;
} atlas_diff;

static atlas_diff diff_atlas(const float *a, const float *b) {
    atlas_diff r = {{0, 0}, 0, 0, 0};
    for (int y = 0; y < ATLAS; y++)
        for (int x = 0; x < ATLAS; x++) {
            size_t i = (size_t)y * ATLAS + (size_t)x;
            bool c0 = a[i] > 0, c1 = b[i] > 0;
            r.covered[0] += c0, r.covered[1] += c1, r.either += c0 || c1;
            if (!c0 && !c1) continue;
            if (c0 == c1 && fabsf(a[i] - b[i]) <= 0x1p-20f) {
                r.equal++;
                continue;
            }
            bool edge = false;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = x + dx, yy = y + dy;
                    if (xx < 0 || yy < 0 || xx >= ATLAS || yy >= ATLAS) {
                        edge = true;
                        continue;
                    }
                    size_t j = (size_t)yy * ATLAS + (size_t)xx;
                    edge |= (a[j] > 0) != c0 || fabsf(a[j] - a[i]) > 1e-3f;
                }
            r.inner += !edge;
        }
    return r;
}

#endif
