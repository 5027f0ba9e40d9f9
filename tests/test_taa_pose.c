/* Motion vectors of posed meshes on a backend (argv[1]: cpu, vulkan or gl):
 * a skinned model (SimpleSkin) and a morph-only one (MorphStressTest) change
 * pose between two frames under a still camera and a still node; the
 * motion channel over them is each surface point's own screen displacement
 * worked on the host from the two poses' positions through the view, a
 * still tile beside them reads 0, and a third frame without a new pose
 * reads 0 on the model too. The CPU gives the same bytes at 1 and 7 job
 * workers; vulkan and gl give the CPU's picture at the parity rule. A
 * running Fox under TAA leaves a smaller residual from its no-TAA frames
 * than the same sequence drawn with the pose ignored (rigid motion only). */
#include "oak_test.h"

#include <oak/anim.h>

#include "backend_start.h"
#include "gltf_test_assets.h"
#include "render/renderer_internal.h"
#include "shaders/common/oak_gpu.h"

#define W     160
#define H     90
#define PRIMS 8

static const char *g_backend = "cpu";

/* A placed glTF whose node `node` holds the posed primitives. */
typedef struct posed {
    oak_gltf *g;
    oak_scene *scene;
    oak_gltf_instance *inst;
    uint32_t node, prims;
    oak_mesh mesh[PRIMS];
    mat4 world;
} posed;

static void posed_free(posed *p) {
    if (p->inst) oak_gltf_instance_free(p->inst);
    if (p->scene) oak_destroy_scene(p->scene);
    if (p->g) oak_gltf_free(p->g);
    memset(p, 0, sizeof *p);
}

static bool posed_load(posed *p, const char *rel) {
    memset(p, 0, sizeof *p);
    char path[256];
    CHECK_OK(oak_gltf_load(&p->g, gltf_asset(path, sizeof path, rel), NULL));
    if (!p->g) return false;
    CHECK_OK(oak_make_scene(&p->scene));
    if (p->scene) CHECK_OK(oak_gltf_instantiate(&p->inst, p->scene, p->g, (oak_entity){0}, "m"));
    if (!p->inst) return false;
    for (uint32_t n = 0; n < p->g->node_count && !p->prims; n++) {
        if (p->g->nodes[n].mesh < 0) continue;
        const oak_gltf_mesh *gm = &p->g->meshes[p->g->nodes[n].mesh];
        p->node = n;
        for (uint32_t k = 0; k < gm->primitive_count && k < PRIMS; k++)
            p->mesh[p->prims++] = oak_gltf_instance_mesh(p->inst, n, k);
    }
    oak_scene_update_transforms(p->scene);
    oak_scene_world_matrix(p->scene, oak_gltf_instance_node(p->inst, p->node), p->world);
    CHECK(p->prims > 0);
    return p->prims > 0;
}

/* The frame: a still tile low on the left, the model's primitives, a still
   camera looking down -z at the model's bounds from 2.2 radii. */
typedef struct frame {
    oak_frame_input in;
    oak_mesh mesh[PRIMS + 1];
    oak_material mat[PRIMS + 1];
    mat4 world[PRIMS + 1];
    oak_environment env;
    oak_post post;
} frame;

static oak_mesh g_tile;
static oak_material g_still, g_model;
/* the backend's renderers (made once: a Vulkan one under validation takes
   seconds): g_main draws the motion views and the TAA frames, g_off the
   frames without TAA; each test's first frame has a new draw list, so
   nothing of the one before carries over */
static oak_renderer *g_main, *g_off;
/* each kind's motion view on the backend, for backendsAgree */
static uint8_t g_view[2][W * H * 4];

/* An emitter seen from both sides (a posed strip may turn its back). */
static oak_material two_sided_emitter(float level) {
    oak_material m = {0};
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0;
    md.metallic = 0, md.roughness = 1;
    md.emissive[0] = md.emissive[1] = md.emissive[2] = 1;
    md.emissive_strength = level;
    md.double_sided = true;
    CHECK_OK(oak_make_material(&m, &md));
    return m;
}

static void make_assets(void) {
    g_still = oak_test_emitter(0.5f), g_model = two_sided_emitter(0.8f);
    oak_shape_desc td = {.type = OAK_SHAPE_PLANE, .size = {1, 0, 1}};
    CHECK_OK(oak_make_shape(&g_tile, &td));
}

static void frame_init(frame *f, const posed *p, const oak_mesh *meshes, oak_material model) {
    memset(f, 0, sizeof *f);
    oak_test_dark_world(&f->env, &f->post);
    const oak_mesh_data *md = oak_mesh_get(meshes[0]);
    float c[3] = {0, 0, 0}, r = 1;
    if (md) {
        vec4 lc = {md->bounds.center[0], md->bounds.center[1], md->bounds.center[2], 1}, wc;
        glm_mat4_mulv((vec4 *)p->world, lc, wc);
        float s = glm_vec3_norm((float *)p->world[0]);
        c[0] = wc[0], c[1] = wc[1], c[2] = wc[2], r = md->bounds.radius * s;
    }
    /* the tile: 0.4 r square, facing the camera, at (-1.8 r, -0.9 r) */
    glm_mat4_identity(f->world[0]);
    glm_translate(f->world[0], (vec3){c[0] - 1.8f * r, c[1] - 0.9f * r, c[2]});
    glm_rotate_x(f->world[0], glm_rad(90), f->world[0]);
    glm_scale_uni(f->world[0], 0.4f * r);
    f->mesh[0] = g_tile, f->mat[0] = g_still;
    for (uint32_t k = 0; k < p->prims; k++) {
        f->mesh[k + 1] = meshes[k], f->mat[k + 1] = model;
        memcpy(f->world[k + 1], p->world, sizeof(mat4));
    }
    f->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.05f * r, .zfar = 10 * r};
    glm_mat4_identity(f->in.camera_world);
    f->in.camera_world[3][0] = c[0], f->in.camera_world[3][1] = c[1];
    f->in.camera_world[3][2] = c[2] + 2.2f * r;
    f->in.draw_count = p->prims + 1;
    f->in.meshes = f->mesh;
    f->in.materials = f->mat;
    f->in.transforms = (const mat4 *)f->world;
    f->in.environment = &f->env;
    f->in.post = &f->post;
}

static oak_renderer *renderer(const char *backend) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

/* ---- the host's motion: the same homogeneous barycentrics the taa pass
   takes, the frontmost triangle at each pixel centre ------------------------ */

static void clip_of(const mat4 vp, const mat4 world, const float *p, double out[4]) {
    double wp[4];
    for (int r = 0; r < 4; r++)
        wp[r] = (double)world[0][r] * p[0] + (double)world[1][r] * p[1] +
                (double)world[2][r] * p[2] + world[3][r];
    for (int r = 0; r < 4; r++)
        out[r] = vp[0][r] * wp[0] + vp[1][r] * wp[1] + vp[2][r] * wp[2] + vp[3][r] * wp[3];
}

/* Per pixel: the expected vector (x, y) and the depth w of the frontmost
   model surface there (0: none). */
static void host_motion(const frame *f, const mat4 vp, const mat4 prev_vp, double (*out)[3]) {
    for (size_t i = 0; i < (size_t)W * H; i++) out[i][0] = out[i][1] = out[i][2] = 0;
    for (uint32_t d = 1; d < f->in.draw_count; d++) {
        const oak_mesh_data *md = oak_mesh_get(f->mesh[d]);
        if (!md || (!md->prev_positions && !md->palette)) continue;
        /* both poses as every backend draws them (a palette's skinned) */
        static float now_pos[3 * 8192], prev_pos[3 * 8192];
        if (oak_mesh_posed_positions(f->mesh[d], false, now_pos, 8192) != md->vertex_count ||
            oak_mesh_posed_positions(f->mesh[d], true, prev_pos, 8192) != md->vertex_count)
            continue;
        const float(*world)[4] = (const float(*)[4])f->world[d];
        for (uint32_t t = 0; t + 2 < md->index_count; t += 3) {
            double cl[3][4];
            uint32_t ix[3] = {md->indices[t], md->indices[t + 1], md->indices[t + 2]};
            for (int k = 0; k < 3; k++) clip_of(vp, world, now_pos + 3 * ix[k], cl[k]);
            double lo[2] = {1e9, 1e9}, hi[2] = {-1e9, -1e9};
            bool front = true;
            for (int k = 0; k < 3; k++) {
                if (cl[k][3] <= 0) front = false;
                double px = (cl[k][0] / cl[k][3] * 0.5 + 0.5) * W,
                       py = (0.5 - cl[k][1] / cl[k][3] * 0.5) * H;
                lo[0] = fmin(lo[0], px), hi[0] = fmax(hi[0], px);
                lo[1] = fmin(lo[1], py), hi[1] = fmax(hi[1], py);
            }
            if (!front) continue;
            for (int y = (int)fmax(0, floor(lo[1])); y <= (int)fmin(H - 1, hi[1]); y++)
                for (int x = (int)fmax(0, floor(lo[0])); x <= (int)fmin(W - 1, hi[0]); x++) {
                    double nx = (x + 0.5) / W * 2 - 1, ny = 1 - (y + 0.5) / H * 2;
                    double E[3], S = 0;
                    for (int k = 0; k < 3; k++) {
                        const double *a = cl[(k + 1) % 3], *b = cl[(k + 2) % 3];
                        double e0 = a[1] * b[3] - a[3] * b[1], e1 = a[3] * b[0] - a[0] * b[3],
                               e2 = a[0] * b[1] - a[1] * b[0];
                        E[k] = e0 * nx + e1 * ny + e2;
                        S += E[k];
                    }
                    if (S == 0) continue;
                    bool in = true;
                    for (int k = 0; k < 3; k++) in &= E[k] / S >= 0;
                    if (!in) continue;
                    double w = 0, P[3] = {0, 0, 0};
                    for (int k = 0; k < 3; k++) {
                        w += E[k] / S * cl[k][3];
                        for (int j = 0; j < 3; j++) P[j] += E[k] / S * prev_pos[3 * ix[k] + j];
                    }
                    double *o = out[(size_t)y * W + x];
                    if (o[2] > 0 && o[2] <= w) continue;
                    float Pf[3] = {(float)P[0], (float)P[1], (float)P[2]};
                    double pc[4];
                    clip_of(prev_vp, world, Pf, pc);
                    o[0] = (pc[0] / pc[3] * 0.5 + 0.5) * W - (x + 0.5);
                    o[1] = (0.5 - pc[1] / pc[3] * 0.5) * H - (y + 0.5);
                    o[2] = w;
                }
        }
    }
}

static void motion_at(const float *hdr, size_t i, double m[2]) {
    for (int k = 0; k < 2; k++) m[k] = ((double)hdr[i * 4 + k] - 0.5) * 2 * OAK_TAA_MOTION_VIEW;
}

/* ---- the two poses ------------------------------------------------------- */

typedef enum { SKIN, MORPH } kind;

/* pose 0, 1: two nearby poses; skinned: SimpleSkin's clip at 0.5 s and
   0.62 s; morphed: MorphStressTest's eight weights from one set to another */
static void set_pose(posed *p, kind k, int pose) {
    if (k == SKIN) {
        oak_anim_player *pl = oak_gltf_instance_player(p->inst);
        oak_anim_play(pl, 0, false);
        oak_anim_set_time(pl, pose ? 0.62f : 0.5f);
        oak_anim_update(p->scene, 0);
    } else {
        uint32_t count = 0;
        float *w = oak_gltf_instance_weights(p->inst, p->node, &count);
        static const float a[8] = {0.2f, 0, 0.1f, 0.5f, 0, 0, 0.3f, -0.2f};
        static const float b[8] = {0.4f, 0.1f, 0.2f, 0.7f, 0, 0.1f, 0.5f, -0.4f};
        for (uint32_t i = 0; w && i < count && i < 8; i++) w[i] = pose ? b[i] : a[i];
    }
    CHECK_OK(oak_skin_update(p->scene));
}

typedef struct motion_run {
    uint8_t px[W * H * 4]; /* the second frame's motion view */
    double worst, largest; /* largest error and largest expected vector on the model */
    uint32_t compared, still_px;
    double still_worst, held_worst; /* the tile; the model when no new pose came */
} motion_run;

/* Draws pose 0, pose 1, then pose 1 again without an update on r, and
   measures the second and third frames' vectors. */
static bool run_motion(oak_renderer *r, kind k, motion_run *out) {
    static posed p;
    static frame f;
    static float hdr[W * H * 4];
    static double want[W * H][3];
    memset(out, 0, sizeof *out);
    if (!posed_load(&p, k == SKIN ? "SimpleSkin/SimpleSkin.gltf" : "animated/MorphStressTest.gltf"))
        goto fail;
    set_pose(&p, k, 0);
    frame_init(&f, &p, p.mesh, g_model);
    f.post.debug = OAK_DEBUG_MOTION;
    CHECK_OK(oak_renderer_draw(r, &f.in));
    set_pose(&p, k, 1);
    CHECK_OK(oak_renderer_draw(r, &f.in));
    CHECK_OK(oak_renderer_read_pixels(r, out->px, sizeof out->px));
    CHECK_OK(r->backend->read_hdr(r->self, hdr, (size_t)W * H * 4));
    const oak_render_view *v = &r->frontend.view;
    host_motion(&f, v->view_proj, v->prev_view_proj, want);
    for (int y = 1; y + 1 < H; y++)
        for (int x = 1; x + 1 < W; x++) {
            size_t i = (size_t)y * W + x;
            /* inside the model: the 3 x 3 around covered and smooth (no
               silhouette, where the raster's coverage may differ by a pixel) */
            bool inside = true;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const double *q = want[i + (size_t)(dy * W + dx)];
                    inside &= q[2] > 0 && fabs(q[0] - want[i][0]) < 0.5 &&
                              fabs(q[1] - want[i][1]) < 0.5 &&
                              fabs(q[2] - want[i][2]) < 0.02 * q[2];
                }
            if (!inside) continue;
            double m[2];
            motion_at(hdr, i, m);
            double e = fmax(fabs(m[0] - want[i][0]), fabs(m[1] - want[i][1]));
            out->worst = fmax(out->worst, e);
            out->largest = fmax(out->largest, hypot(want[i][0], want[i][1]));
            out->compared++;
        }
    /* the still tile (its middle: 16, 77): 0 */
    for (int y = 74; y <= 80; y++)
        for (int x = 13; x <= 19; x++) {
            double m[2];
            motion_at(hdr, (size_t)y * W + x, m);
            out->still_worst = fmax(out->still_worst, fmax(fabs(m[0]), fabs(m[1])));
            out->still_px++;
        }
    /* no new pose: the model stands still */
    CHECK_OK(oak_renderer_draw(r, &f.in));
    CHECK_OK(r->backend->read_hdr(r->self, hdr, (size_t)W * H * 4));
    for (size_t i = 0; i < (size_t)W * H; i++) {
        if (!(want[i][2] > 0)) continue;
        double m[2];
        motion_at(hdr, i, m);
        out->held_worst = fmax(out->held_worst, fmax(fabs(m[0]), fabs(m[1])));
    }
    posed_free(&p);
    return true;
fail:
    posed_free(&p);
    return false;
}

/* The posed model's vectors are the host's within 0.05 px at every inside
   pixel (the same float arithmetic as the rigid case, test_taa's 0.05 px),
   with some over 1 px (the pose ignored, they would read 0: the node and
   camera are still); the still tile and the unposed third frame read
   under 0.01 px. */
static void check_motion(kind k) {
    static motion_run run;
    if (run_motion(g_main, k, &run)) {
        fprintf(stderr,
                "  %s: %u inside pixels, largest vector %.2f px, largest error %.4f px; still "
                "tile %.4f px over %u px; no new pose %.4f px\n",
                k == SKIN ? "SimpleSkin (skinned)" : "MorphStressTest (morphed)", run.compared,
                run.largest, run.worst, run.still_worst, run.still_px, run.held_worst);
        CHECK(run.compared > 150);
        CHECK(run.largest > 1.0);
        CHECK(run.worst < 0.05);
        CHECK(run.still_worst < 0.01);
        CHECK(run.held_worst < 0.01);
        memcpy(g_view[k], run.px, sizeof run.px);
    }
}

TEST(skinnedVectorsFollowThePose) {
    check_motion(SKIN);
}

TEST(morphedVectorsFollowThePose) {
    check_motion(MORPH);
}

/* The motion view of the skinned pose change: vulkan and gl give the CPU's
   bytes at the parity rule. */
TEST(backendsAgree) {
    static motion_run a;
    oak_renderer *rc = renderer("cpu");
    for (int k = SKIN; k <= MORPH && rc; k++) {
        if (!run_motion(rc, (kind)k, &a)) break;
        char what[64];
        snprintf(what, sizeof what, "%s motion cpu vs %s", k == SKIN ? "skinned" : "morphed",
                 g_backend);
        oak_test_parity(what, a.px, g_view[k], W, H);
    }
    oak_destroy_renderer(rc);
}

/* ---- the Fox under TAA ---------------------------------------------------- */

/* The Fox running (its clip 2 at 30 frames a second, 16 frames) with TAA:
   each frame against the same pose drawn without TAA, over the pixels
   inside the fox (the 3 x 3 around covered in the no-TAA frame: its edges'
   anti-aliasing differs either way), from frame 6 on. Drawn twice: its
   posed mesh (last frame's pose read), and a copy of it replaced whole
   each frame by oak_mesh_update, which keeps no previous pose (the rigid
   motion alone, as before this). */
typedef struct fox_run {
    double mean, share; /* mean |TAA - no TAA| (bytes) and share over 16/255 */
    uint32_t px, vertices, indices;
} fox_run;

static bool fox_material(const posed *p, oak_material *out) {
    const oak_gltf_primitive *pr = &p->g->meshes[p->g->nodes[p->node].mesh].primitives[0];
    const oak_material_data *src = oak_material_get(
        pr->material >= 0 ? p->g->material_handles[pr->material] : p->g->default_material);
    if (!src) return false;
    oak_material_desc md = src->desc; /* its texture as light: no lamps needed */
    md.emissive_tex = md.base_color_tex;
    md.emissive[0] = md.emissive[1] = md.emissive[2] = 1;
    md.emissive_strength = 1;
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0;
    md.double_sided = true;
    CHECK_OK(oak_make_material(out, &md));
    return out->id != 0;
}

static void fox_sequence(bool keep_pose, fox_run *out) {
    enum { FRAMES = 16, FROM = 6 };
    static posed p;
    static frame on, off;
    static uint8_t a[W * H * 4], b[W * H * 4];
    memset(out, 0, sizeof *out);
    oak_renderer *rt = g_main, *ro = g_off;
    oak_material mat = {0};
    oak_mesh copy = {0};
    if (!rt || !ro || !posed_load(&p, "animated/Fox.glb") || !fox_material(&p, &mat)) goto done;
    oak_anim_player *pl = oak_gltf_instance_player(p.inst);
    oak_anim_play(pl, p.g->clip_count > 2 ? 2 : 0, true);
    double sum = 0;
    uint32_t over = 0;
    for (int fr = 0; fr < FRAMES; fr++) {
        oak_anim_update(p.scene, 1.0f / 30.0f);
        CHECK_OK(oak_skin_update(p.scene));
        const oak_mesh_data *md = oak_mesh_get(p.mesh[0]);
        if (!md) break;
        out->vertices = md->vertex_count, out->indices = md->index_count;
        oak_mesh drawn = p.mesh[0];
        if (!keep_pose) {               /* a whole new mesh's contents: no previous pose */
            static float pos[3 * 8192]; /* as drawn (emissive: normals do not matter) */
            if (oak_mesh_posed_positions(p.mesh[0], false, pos, 8192) != md->vertex_count) break;
            oak_mesh_desc d = {.vertex_count = md->vertex_count,
                               .index_count = md->index_count,
                               .positions = pos,
                               .uv0 = md->uv0,
                               .indices = md->indices};
            if (!copy.id)
                CHECK_OK(oak_make_mesh(&copy, &d));
            else
                CHECK_OK(oak_mesh_update(copy, &d));
            drawn = copy;
        }
        if (fr == 0) {
            frame_init(&on, &p, &drawn, mat);
            on.in.draw_count = 2; /* the Fox has one primitive */
            off = on;
            off.in.meshes = off.mesh, off.in.materials = off.mat;
            off.in.transforms = (const mat4 *)off.world;
            off.in.environment = &off.env, off.in.post = &off.post;
            on.post.taa = OAK_TAA_ON, off.post.taa = OAK_TAA_OFF;
        }
        CHECK_OK(oak_renderer_draw(rt, &on.in));
        CHECK_OK(oak_renderer_draw(ro, &off.in));
        CHECK_OK(oak_renderer_read_pixels(rt, a, sizeof a));
        CHECK_OK(oak_renderer_read_pixels(ro, b, sizeof b));
        if (fr >= FROM)
            for (size_t i = 0; i < (size_t)W * H; i++) {
                /* the backdrop is black: the fox covers what is lit now or was */
                int x = (int)(i % W), y = (int)(i / W);
                if (x < 1 || y < 1 || x + 1 >= W || y + 1 >= H) continue;
                bool fox = true;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        size_t j = i + (size_t)(dy * W + dx);
                        fox &= b[j * 4] + b[j * 4 + 1] > 4;
                    }
                if (!fox) continue;
                int most = 0;
                for (int c = 0; c < 3; c++) {
                    int d = abs((int)a[i * 4 + c] - (int)b[i * 4 + c]);
                    sum += d, most = d > most ? d : most;
                }
                over += most > 16;
                out->px++;
            }
    }
    if (out->px) out->mean = sum / (3.0 * out->px), out->share = (double)over / out->px;
    /* a frame without TAA: the next sequence's history starts afresh */
    on.post.taa = OAK_TAA_OFF;
    CHECK_OK(oak_renderer_draw(rt, &on.in));
done:
    if (copy.id) oak_destroy_mesh(copy);
    if (mat.id) oak_destroy_material(mat);
    posed_free(&p);
}

TEST(runningFoxLeavesLessResidual) {
    static fox_run kept, ignored;
    fox_sequence(true, &kept);
    fox_sequence(false, &ignored);
    fprintf(stderr,
            "  fox under TAA vs no TAA over %u pixel-frames: mean %.2f/255, %.2f%% over 16/255 "
            "(last frame's pose); pose ignored: mean %.2f/255, %.2f%% over 16/255\n",
            kept.px, kept.mean, 100 * kept.share, ignored.mean, 100 * ignored.share);
    /* what a GPU backend uploads for it each frame its pose moves: positions
       and the previous pose's (16 bytes a vertex each), attributes, indices */
    size_t prev = (size_t)kept.vertices * 16,
           all = (size_t)kept.vertices * (32 + sizeof(oak_gpu_vertex)) + (size_t)kept.indices * 4;
    fprintf(stderr,
            "  fox: %u vertices, %u indices: %zu bytes uploaded a posed frame, %zu of them the "
            "previous pose\n",
            kept.vertices, kept.indices, all, prev);
    CHECK(kept.px > 1000);
    CHECK(kept.mean < 7.0);
    CHECK(ignored.mean > 7.0);
    CHECK(kept.share < ignored.share);
}

/* The CPU's motion view of the skinned pose change: the same bytes at 1 and
   7 job workers. */
TEST(sameBytesAtAnyThreadCount) {
    if (strcmp(g_backend, "cpu")) return;
    static motion_run ref, run;
    const uint32_t threads[2] = {1, 7};
    for (int i = 0; i < 2; i++) {
        oak_shutdown();
        oak_engine_desc d = {
            .log = oak_test_count_log, .log_level = OAK_LOG_WARN, .threads = threads[i]};
        CHECK_OK(oak_init(&d));
        CHECK_EQ_INT(oak_job_threads(), threads[i]);
        make_assets();
        oak_renderer *r = renderer("cpu");
        if (r && run_motion(r, SKIN, i ? &run : &ref) && i)
            CHECK(memcmp(run.px, ref.px, sizeof ref.px) == 0);
        oak_destroy_renderer(r);
    }
    fprintf(stderr, "  cpu motion view: 1 and 7 workers give the same bytes\n");
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_TAA)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    make_assets();
    fprintf(stderr, "  backend %s\n", g_backend);
    g_main = renderer(g_backend), g_off = renderer(g_backend);
    if (g_main && g_off) {
        RUN(skinnedVectorsFollowThePose);
        RUN(morphedVectorsFollowThePose);
        RUN(runningFoxLeavesLessResidual);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    oak_destroy_renderer(g_main);
    oak_destroy_renderer(g_off);
    RUN(sameBytesAtAnyThreadCount); /* restarts the engine */
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
