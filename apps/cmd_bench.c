/* `oak bench`: warm-up frames, then --frames frames along the world's camera
 * path, timing the whole frame and each stage the renderer reports; prints
 * median / p95 / p99 / max per stage as a table or one JSON object. --compare runs
 * several backends over the same path, frame by frame in turn, and prints
 * the ratio of their median frames and how far their last pictures differ.
 * After the timed frames it reads the last frame's instance streams (each
 * one's instances and those in view per LOD band, the grass's as
 * blade-equivalents): on vulkan and gl a read-back that waits for the GPU,
 * which is why it comes after the timing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_STAGES       64 /* "frame", the backend's stages and its busy.tN threads */
#define MAX_RUNS         4
#define PARITY_TOLERANCE 2 /* channel difference in 1/255 steps: the parity rule */

typedef struct series {
    char name[32];
    bool gpu; /* times from the GPU's clock */
    uint32_t count;
    double *ms;
} series;

typedef struct bench_run {
    char backend[32], device[256];
    uint32_t stage_count;
    series stages[MAX_STAGES];
    uint8_t *pixels; /* last frame, kept for --compare */
    bool has_grid;   /* the backend's lamp grid of the last frame was read */
    oak_light_grid_info grid;
    bool has_shadow;          /* the backend counts its shadow cache */
    oak_shadow_stats shadow;  /* summed over the timed frames */
    bool has_uploads;         /* the backend counts its mesh uploads */
    oak_upload_stats uploads; /* summed over the timed frames */
    oak_occlusion_stats occ;  /* summed over the timed frames (on: any frame built the grid) */
    oak_meshlet_stats ml;     /* summed over the timed frames (on: any frame culled by meshlets) */
    float scale;              /* the render scale the last frame ran at */
    uint32_t cloud_steps, cloud_scale; /* the clouds' march the backend ran (oak_post) */
    uint32_t render_w, render_h;
    /* the last frame's streams (oak_renderer_stream_counts), their sums
       (oak_renderer_stream_stats: the counter the tests read) and the
       world's grass, whose streams count blades */
    uint32_t stream_count;
    oak_stream_visibility streams[OAK_STREAM_MAX_PER_VIEW];
    oak_stream_stats stream_totals;
    bool has_grass;
    oak_grass_stats grass;
    const oak_stream *grass_streams[2]; /* grass, flowers */
    bool has_sky;                       /* the backend counts its sky captures */
    uint32_t sky_recaptures;            /* the sky light's captures during the timed frames */
    series sky_frames[2]; /* the timed frames' ms: [1] those that captured the sky, [0] the rest */
} bench_run;

static void release_run(bench_run *run) {
    for (uint32_t i = 0; i < run->stage_count; i++) oak_free(run->stages[i].ms);
    oak_free(run->sky_frames[0].ms);
    oak_free(run->sky_frames[1].ms);
    oak_free(run->pixels);
    memset(run, 0, sizeof *run);
}

static series *find_series(bench_run *run, const char *name, uint32_t frames) {
    for (uint32_t i = 0; i < run->stage_count; i++)
        if (!strcmp(run->stages[i].name, name)) return &run->stages[i];
    if (run->stage_count == MAX_STAGES) return NULL;
    series *s = &run->stages[run->stage_count];
    s->ms = oak_alloc(sizeof(double) * frames);
    if (!s->ms) return NULL;
    snprintf(s->name, sizeof s->name, "%s", name);
    run->stage_count++;
    return s;
}

static void set_camera(const cli_options *o, oak_scene *scene, float t) {
    if (!o->world) return; /* a scene file's camera stays where the file put it */
    float eye[3], target[3];
    if (oak_world_camera_path(o->world, t, eye, target) != OAK_OK) return;
    oak_entity cam = oak_scene_active_camera(scene);
    oak_transform tr = oak_transform_look_at(eye, target);
    oak_scene_set_transform(scene, cam, &tr);
}

/* Opens the backend's renderer and draws the warm-up frames. */
static int open_backend(const cli_options *o, oak_scene *scene, const char *backend, bench_run *run,
                        oak_renderer **out) {
    oak_renderer *renderer = NULL;
    *out = NULL;
    int status = _oak_cli_open_renderer(o, backend, scene, &renderer);
    if (status) return status;
    snprintf(run->backend, sizeof run->backend, "%s", oak_renderer_backend(renderer));
    snprintf(run->device, sizeof run->device, "%s", oak_renderer_device(renderer));
    const oak_post *post = oak_scene_post(scene);
    oak_quality q = oak_preset_quality(post->preset);
    run->cloud_steps = post->cloud_steps ? post->cloud_steps : q.cloud_steps;
    run->cloud_scale = post->cloud_scale ? post->cloud_scale : q.cloud_scale;
    uint32_t frames = o->frames ? o->frames : 60;
    uint32_t warmup = o->warmup_set ? o->warmup : 5;
    if (!find_series(run, "frame", frames)) goto fail;
    for (uint32_t i = 0; i < warmup; i++) {
        set_camera(o, scene, 0.0f);
        if (oak_scene_draw(scene, renderer) != OAK_OK) goto fail;
    }
    *out = renderer;
    return 0;
fail:
    status = _oak_cli_fail(o);
    oak_destroy_renderer(renderer);
    return status;
}

/* Times frame i of the camera path on one renderer. */
static int bench_frame(const cli_options *o, oak_scene *scene, oak_renderer *renderer,
                       bench_run *run, uint32_t i) {
    uint32_t frames = o->frames ? o->frames : 60;
    series *frame = &run->stages[0];
    oak_stage_timing timings[MAX_STAGES];
    /* frame i at its share of the path (--path: of that share only, so a
       world's flight can be timed at a speed a player flies) */
    float share = o->path_set ? o->path : 1.0f;
    set_camera(o, scene, frames > 1 ? share * (float)i / (float)(frames - 1) : 0.0f);
    /* a frame is the world's own update (lamps moving, terrain tiles
       streaming: stage "world") and the draw */
    /* the sky light's captures so far (a lightning flash or a weather
       change recaptures it: the frame's cost shows apart, "sky") */
    uint32_t caps0 = 0, caps1 = 0;
    bool sky = oak_renderer_read_sky(renderer, NULL, 0, &caps0) == OAK_OK;
    oak_clear_error();
    uint64_t start = oak_time_ns();
    double world_ms = -1;
    if (_oak_cli_world_tick(o, scene, i) != OAK_OK) return _oak_cli_fail(o);
    if (o->world) world_ms = oak_ms_since(start);
    if (oak_scene_draw(scene, renderer) != OAK_OK) return _oak_cli_fail(o);
    double frame_ms = oak_ms_since(start);
    frame->ms[frame->count++] = frame_ms;
    if (sky && oak_renderer_read_sky(renderer, NULL, 0, &caps1) == OAK_OK) {
        series *sf = &run->sky_frames[caps1 != caps0];
        if (!sf->ms && !(sf->ms = oak_alloc(sizeof(double) * frames))) return _oak_cli_fail(o);
        sf->ms[sf->count++] = frame_ms;
        run->has_sky = true;
        run->sky_recaptures += caps1 - caps0;
    }
    oak_shadow_stats st;
    if ((oak_backend_caps(run->backend) & OAK_CAP_SHADOW_CACHE) &&
        oak_renderer_shadow_stats(renderer, &st) == OAK_OK) {
        run->has_shadow = true;
        run->shadow.static_layers += st.static_layers;
        run->shadow.layer_copies += st.layer_copies;
        run->shadow.mover_draws += st.mover_draws;
        run->shadow.partial_layers += st.partial_layers;
        run->shadow.dirty_texels += st.dirty_texels;
    }
    oak_upload_stats up;
    if (oak_renderer_upload_stats(renderer, &up) == OAK_OK) {
        run->has_uploads = true;
        run->uploads.meshes_whole += up.meshes_whole;
        run->uploads.meshes_positions += up.meshes_positions;
        run->uploads.mesh_bytes += up.mesh_bytes;
    }
    oak_meshlet_stats ml;
    if (oak_renderer_meshlet_stats(renderer, &ml) == OAK_OK) {
        run->ml.on |= ml.on;
        run->ml.tested += ml.tested;
        run->ml.culled_frustum += ml.culled_frustum;
        run->ml.culled_cone += ml.culled_cone;
        run->ml.triangles_kept += ml.triangles_kept;
        run->ml.culled_lod += ml.culled_lod;
        run->ml.culled_occluded += ml.culled_occluded;
        run->ml.triangles_pass1 += ml.triangles_pass1;
        run->ml.overflow_triangles += ml.overflow_triangles;
        run->ml.fallback_draws += ml.fallback_draws;
        run->ml.shadow_triangles += ml.shadow_triangles;
    }
    oak_clear_error();
    oak_occlusion_stats occ;
    if (oak_renderer_occlusion_stats(renderer, &occ) == OAK_OK) {
        oak_occlusion_stats *a = &run->occ;
        a->on |= occ.on;
        a->occluders += occ.occluders;
        a->occluder_triangles += occ.occluder_triangles;
        a->draws_tested += occ.draws_tested;
        a->draws_frustum += occ.draws_frustum;
        a->draws_occluded += occ.draws_occluded;
        a->instances_tested += occ.instances_tested;
        a->instances_frustum += occ.instances_frustum;
        a->instances_occluded += occ.instances_occluded;
        a->drawn_pass1 += occ.drawn_pass1;
        a->drawn_pass2 += occ.drawn_pass2;
        a->instances_pass1 += occ.instances_pass1;
        a->instances_pass2 += occ.instances_pass2;
    }
    uint32_t n = oak_renderer_timings(renderer, timings, MAX_STAGES);
    for (uint32_t k = 0; k < n && k < MAX_STAGES; k++) {
        if (!timings[k].name || !strcmp(timings[k].name, "frame")) continue;
        series *s = find_series(run, timings[k].name, frames);
        if (!s) continue; /* more stages than we keep: drop the rest */
        s->gpu = timings[k].gpu_ms >= 0;
        s->ms[s->count++] = s->gpu ? timings[k].gpu_ms : timings[k].cpu_ms;
    }
    /* after the renderer's stages, which follow the frame's in the table */
    series *world = world_ms >= 0 ? find_series(run, "world", frames) : NULL;
    if (world) world->ms[world->count++] = world_ms;
    return 0;
}

/* The last frame's streams per LOD band and the grass's blades per clump. */
static int read_streams(const cli_options *o, const oak_scene *scene, oak_renderer *renderer,
                        bench_run *run) {
    if (oak_renderer_stream_counts(renderer, run->streams, OAK_STREAM_MAX_PER_VIEW,
                                   &run->stream_count) != OAK_OK ||
        oak_renderer_stream_stats(renderer, &run->stream_totals) != OAK_OK)
        return _oak_cli_fail(o);
    if (run->stream_count > OAK_STREAM_MAX_PER_VIEW) run->stream_count = OAK_STREAM_MAX_PER_VIEW;
    const oak_grass *g = oak_world_grass(scene);
    run->has_grass = g != NULL;
    if (g) {
        oak_grass_get_stats(&run->grass, g);
        run->grass_streams[0] = oak_grass_stream(g, false);
        run->grass_streams[1] = oak_grass_stream(g, true);
    }
    return 0;
}

/* "grass", "flowers" or "other" */
static const char *stream_kind(const bench_run *run, const oak_stream_visibility *c) {
    if (!run->has_grass || !c->stream) return "other";
    return c->stream == run->grass_streams[0]   ? "grass"
           : c->stream == run->grass_streams[1] ? "flowers"
                                                : "other";
}

/* A grass stream's blade-equivalents in view (each clump in view stands for
   blades_each blades, however few its band draws: oak_grass_stats) and the
   blades its bands submit (each band's clump mesh's blades); 0 for others. */
static void stream_blades(const bench_run *run, const oak_stream_visibility *c,
                          uint64_t *equivalents, uint64_t *submitted) {
    *equivalents = *submitted = 0;
    if (strcmp(stream_kind(run, c), "grass")) return;
    for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) {
        *equivalents += (uint64_t)c->per_lod[k] * run->grass.blades_each;
        *submitted += (uint64_t)c->per_lod[k] * run->grass.blades[k];
    }
}

static void blade_totals(const bench_run *run, uint64_t *equivalents, uint64_t *submitted) {
    *equivalents = *submitted = 0;
    for (uint32_t i = 0; i < run->stream_count; i++) {
        uint64_t e, b;
        stream_blades(run, &run->streams[i], &e, &b);
        *equivalents += e, *submitted += b;
    }
}

/* Keeps the last picture for --compare and closes the renderer. */
static int close_backend(const cli_options *o, const oak_scene *scene, oak_renderer *renderer,
                         bench_run *run) {
    int status = read_streams(o, scene, renderer, run);
    /* lamps in view, the longest cell list and listings lost to the cap */
    run->scale = oak_renderer_render_scale(renderer, &run->render_w, &run->render_h);
    run->has_grid = oak_renderer_read_light_grid(renderer, &run->grid, NULL, NULL) == OAK_OK;
    if (!status && o->compare) {
        size_t bytes = (size_t)o->width * o->height * 4;
        run->pixels = oak_alloc(bytes);
        if (!run->pixels || oak_renderer_read_pixels(renderer, run->pixels, bytes) != OAK_OK)
            status = _oak_cli_fail(o);
    }
    oak_destroy_renderer(renderer);
    return status;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median (mean of the middle two for even counts), nearest-rank 95th and
   99th percentiles and maximum; sorts in place. */
static void summarize(series *s, double *median, double *p95, double *p99, double *max) {
    *median = *p95 = *p99 = *max = 0;
    if (!s->count) return;
    qsort(s->ms, s->count, sizeof *s->ms, cmp_double);
    uint32_t n = s->count;
    *median = n % 2 ? s->ms[n / 2] : 0.5 * (s->ms[n / 2 - 1] + s->ms[n / 2]);
    uint32_t rank = (uint32_t)ceil(0.95 * n);
    *p95 = s->ms[rank ? rank - 1 : 0];
    rank = (uint32_t)ceil(0.99 * n);
    *p99 = s->ms[rank ? rank - 1 : 0];
    *max = s->ms[n - 1];
}

static void json_string(const char *s) {
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

/* the sky light's recaptures over the timed frames: how many, the
   skycapture stage's sum, and the frames that captured against the rest */
typedef struct sky_summary {
    uint32_t frames[2]; /* timed frames without [0] and with [1] a capture */
    double total_ms;    /* the skycapture stage's times summed (a GPU's lag a frame) */
    double median_ms[2], max_ms[2];
} sky_summary;

static sky_summary summarize_sky(bench_run *run) {
    sky_summary y = {{0, 0}, 0, {0, 0}, {0, 0}};
    for (uint32_t i = 0; i < run->stage_count; i++)
        if (!strcmp(run->stages[i].name, "skycapture"))
            for (uint32_t k = 0; k < run->stages[i].count; k++) y.total_ms += run->stages[i].ms[k];
    for (int k = 0; k < 2; k++) {
        double p95, p99;
        y.frames[k] = run->sky_frames[k].count;
        summarize(&run->sky_frames[k], &y.median_ms[k], &p95, &p99, &y.max_ms[k]);
    }
    return y;
}

static void json_stages(bench_run *run) {
    if (run->has_grid)
        printf("\"lamp_grid\": {\"lamps\": %u, \"listed\": %u, \"max_cell\": %u, "
               "\"overflow\": %u}, ",
               run->grid.lamps, run->grid.listed, run->grid.max_cell, run->grid.overflow);
    /* totals over the timed frames: static layers redrawn, copies, movers */
    if (run->has_shadow)
        printf("\"shadow_cache\": {\"static_layers\": %u, \"layer_copies\": %u, "
               "\"mover_draws\": %u}, \"shadow_dirty\": {\"partial_layers\": %u, "
               "\"dirty_texels\": %u}, ",
               run->shadow.static_layers, run->shadow.layer_copies, run->shadow.mover_draws,
               run->shadow.partial_layers, run->shadow.dirty_texels);
    /* totals over the timed frames: meshes sent whole or as positions */
    if (run->has_uploads)
        printf("\"mesh_uploads\": {\"whole\": %u, \"positions\": %u, \"bytes\": %llu}, ",
               run->uploads.meshes_whole, run->uploads.meshes_positions,
               (unsigned long long)run->uploads.mesh_bytes);
    /* totals over the timed frames */
    const oak_occlusion_stats *oc = &run->occ;
    printf("\"occlusion\": {\"on\": %s, \"occluders\": %u, \"occluder_triangles\": %u, "
           "\"draws_tested\": %u, \"draws_frustum\": %u, \"draws_occluded\": %u, "
           "\"instances_tested\": %u, \"instances_frustum\": %u, \"instances_occluded\": %u, "
           "\"drawn_pass1\": %u, \"drawn_pass2\": %u, \"instances_pass1\": %u, "
           "\"instances_pass2\": %u}, ",
           oc->on ? "true" : "false", oc->occluders, oc->occluder_triangles, oc->draws_tested,
           oc->draws_frustum, oc->draws_occluded, oc->instances_tested, oc->instances_frustum,
           oc->instances_occluded, oc->drawn_pass1, oc->drawn_pass2, oc->instances_pass1,
           oc->instances_pass2);
    printf("\"stages\": {");
    for (uint32_t i = 0; i < run->stage_count; i++) {
        double med, p95, p99, max;
        summarize(&run->stages[i], &med, &p95, &p99, &max);
        printf("%s", i ? ", " : "");
        json_string(run->stages[i].name);
        printf(": {\"median_ms\": %.4f, \"p95_ms\": %.4f, \"p99_ms\": %.4f, \"max_ms\": %.4f, "
               "\"clock\": \"%s\"}",
               med, p95, p99, max, run->stages[i].gpu ? "gpu" : "cpu");
    }
    printf("}");
    /* totals over the timed frames (after the stages: readers that stop
       at "stages" keep working) */
    const oak_meshlet_stats *ml = &run->ml;
    printf(", \"meshlets\": {\"on\": %s, \"tested\": %u, \"culled_frustum\": %u, "
           "\"culled_cone\": %u, \"triangles_kept\": %u, \"culled_lod\": %u, "
           "\"culled_occluded\": %u, \"triangles_pass1\": %u, \"overflow_triangles\": %u, "
           "\"fallback_draws\": %u, \"shadow_triangles\": %u}",
           ml->on ? "true" : "false", ml->tested, ml->culled_frustum, ml->culled_cone,
           ml->triangles_kept, ml->culled_lod, ml->culled_occluded, ml->triangles_pass1,
           ml->overflow_triangles, ml->fallback_draws, ml->shadow_triangles);
    /* the last frame's streams: instances given, in view per LOD band and,
       for the grass, blades; then their sums as oak_renderer_stream_stats
       gives them */
    printf(", \"streams\": [");
    for (uint32_t i = 0; i < run->stream_count; i++) {
        const oak_stream_visibility *c = &run->streams[i];
        uint64_t e, b;
        stream_blades(run, c, &e, &b);
        printf("%s{\"kind\": \"%s\", \"native\": %s, \"instances\": %u, \"visible\": [",
               i ? ", " : "", stream_kind(run, c), c->native ? "true" : "false", c->instances);
        for (uint32_t k = 0; k < c->lod_count && k < OAK_STREAM_LODS; k++)
            printf("%s%u", k ? ", " : "", c->per_lod[k]);
        printf("], \"blade_equivalents\": %llu, \"blades_submitted\": %llu}", (unsigned long long)e,
               (unsigned long long)b);
    }
    const oak_stream_stats *st = &run->stream_totals;
    printf("], \"stream_totals\": {\"streams\": %u, \"instances\": %u, \"visible\": %u, "
           "\"per_lod\": [%u, %u, %u, %u], \"per_instance\": [%u, %u, %u, %u]}",
           st->streams, st->instances, st->visible, st->per_lod[0], st->per_lod[1], st->per_lod[2],
           st->per_lod[3], st->per_instance[0], st->per_instance[1], st->per_instance[2],
           st->per_instance[3]);
    if (run->has_grass) {
        uint64_t e, b;
        blade_totals(run, &e, &b);
        const oak_grass_stats *g = &run->grass;
        printf(", \"grass\": {\"clumps\": %u, \"flowers\": %u, \"blades_each\": %u, "
               "\"blades\": [%u, %u, %u, %u], \"blade_equivalents\": %llu, "
               "\"blades_submitted\": %llu}",
               g->instances, g->flowers, g->blades_each, g->blades[0], g->blades[1], g->blades[2],
               g->blades[3], (unsigned long long)e, (unsigned long long)b);
    }
    if (run->has_sky) {
        sky_summary y = summarize_sky(run);
        printf(", \"sky\": {\"recaptures\": %u, \"skycapture_total_ms\": %.4f, "
               "\"frames_recaptured\": %u, \"frame_median_ms_recaptured\": %.4f, "
               "\"frame_max_ms_recaptured\": %.4f, \"frames_other\": %u, "
               "\"frame_median_ms_other\": %.4f}",
               run->sky_recaptures, y.total_ms, y.frames[1], y.median_ms[1], y.max_ms[1],
               y.frames[0], y.median_ms[0]);
    }
}

static void print_table(bench_run *run) {
    printf("  %-12s %9s %9s %9s %9s  (ms)\n", "stage", "median", "p95", "p99", "max");
    for (uint32_t i = 0; i < run->stage_count; i++) {
        double med, p95, p99, max;
        summarize(&run->stages[i], &med, &p95, &p99, &max);
        printf("  %-12s %9.3f %9.3f %9.3f %9.3f%s\n", run->stages[i].name, med, p95, p99, max,
               run->stages[i].gpu ? "  gpu clock" : "");
    }
    if (run->has_sky) {
        sky_summary y = summarize_sky(run);
        printf("  sky light: %u recaptures, skycapture %.3f ms in all; frames that captured %u "
               "(median %.3f, max %.3f ms), the rest %u (median %.3f ms)\n",
               run->sky_recaptures, y.total_ms, y.frames[1], y.median_ms[1], y.max_ms[1],
               y.frames[0], y.median_ms[0]);
    }
}

static void print_streams(const bench_run *run) {
    if (!run->stream_count) return;
    printf("  streams in the last frame (instances: in view per LOD band):\n");
    for (uint32_t i = 0; i < run->stream_count; i++) {
        const oak_stream_visibility *c = &run->streams[i];
        printf("    %-8s %10u:", stream_kind(run, c), c->instances);
        for (uint32_t k = 0; k < c->lod_count && k < OAK_STREAM_LODS; k++)
            printf(" %u", c->per_lod[k]);
        printf("%s\n", c->native ? " (the GPU's instcull)" : "");
    }
    if (!run->has_grass) return;
    uint64_t e, b;
    blade_totals(run, &e, &b);
    printf("  grass: %u clumps grown, %.3g blade-equivalents in view (x %u a clump), %.3g blades "
           "submitted\n",
           run->grass.instances, (double)e, run->grass.blades_each, (double)b);
}

typedef struct parity {
    uint32_t max_diff;
    double over_fraction; /* channels differing by more than PARITY_TOLERANCE */
} parity;

static parity compare_pixels(const uint8_t *a, const uint8_t *b, size_t bytes) {
    parity p = {0, 0};
    size_t over = 0, channels = 0;
    for (size_t i = 0; i < bytes; i++) {
        if (i % 4 == 3) continue; /* alpha is not part of the picture */
        uint32_t d = (uint32_t)abs((int)a[i] - (int)b[i]);
        if (d > p.max_diff) p.max_diff = d;
        over += d > PARITY_TOLERANCE;
        channels++;
    }
    p.over_fraction = channels ? (double)over / (double)channels : 0;
    return p;
}

/* Splits "cpu,gl" into names checked against the backends compiled in. */
static int split_compare(const cli_options *o, char *buf, size_t size, const char **names,
                         uint32_t *count) {
    snprintf(buf, size, "%s", o->compare);
    *count = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (*count == MAX_RUNS)
            return _oak_cli_failf(o, "--compare '%s': at most %d backends", o->compare, MAX_RUNS);
        int status = _oak_cli_check_backend(o, tok);
        if (status) return status;
        names[(*count)++] = tok;
    }
    if (*count < 2)
        return _oak_cli_failf(o, "--compare '%s': name two or more backends, such as cpu,gl",
                              o->compare);
    return 0;
}

/* Median frame of a over that of b (summarize sorts; the order is not kept). */
static double frame_ratio(bench_run *a, bench_run *b) {
    double ma, mb, p95, p99, max;
    summarize(&a->stages[0], &ma, &p95, &p99, &max);
    summarize(&b->stages[0], &mb, &p95, &p99, &max);
    return mb > 0 ? ma / mb : 0;
}

static void report(const cli_options *o, bench_run *runs, uint32_t run_count,
                   const oak_scene *scene) {
    uint32_t frames = o->frames ? o->frames : 60, warmup = o->warmup_set ? o->warmup : 5;
    /* the world's rocks in their streams after the last frame (meadow) */
    const oak_rocks *rocks = oak_world_rocks(scene);
    oak_rocks_stats rs;
    oak_rocks_get_stats(&rs, rocks);
    size_t bytes = (size_t)o->width * o->height * 4;
    if (o->json) {
        printf("{\"world\": ");
        if (o->world)
            json_string(o->world);
        else
            printf("null");
        if (o->scene) {
            printf(", \"scene\": ");
            json_string(o->scene);
        }
        if (run_count == 1) {
            printf(", \"backend\": ");
            json_string(runs[0].backend);
            printf(", \"device\": ");
            json_string(runs[0].device);
        }
        printf(", \"preset\": ");
        json_string(oak_preset_name(o->preset) ? oak_preset_name(o->preset) : "default");
        printf(", \"size\": [%u, %u], \"render_scale\": %.4g, \"render_size\": [%u, %u], "
               "\"frames\": %u, \"warmup\": %u, \"threads\": %u, ",
               o->width, o->height, (double)runs[0].scale, runs[0].render_w, runs[0].render_h,
               frames, warmup, oak_job_threads());
        if (o->path_set) printf("\"path\": %.4g, ", (double)o->path);
        if (o->lod_scale > 0) printf("\"lod_scale\": %.4g, ", (double)o->lod_scale);
        if (rocks) printf("\"rocks\": %u, ", rs.rocks);
        printf("\"cloud_march\": {\"steps\": %u, \"scale\": %u}, ", runs[0].cloud_steps,
               runs[0].cloud_scale);
        if (run_count == 1) {
            json_stages(&runs[0]);
        } else {
            printf("\"runs\": [");
            for (uint32_t i = 0; i < run_count; i++) {
                printf("%s{\"backend\": ", i ? ", " : "");
                json_string(runs[i].backend);
                printf(", \"device\": ");
                json_string(runs[i].device);
                /* median frame over the first backend's */
                printf(", \"frame_ratio\": %.4f, ", frame_ratio(&runs[i], &runs[0]));
                json_stages(&runs[i]);
                printf("}");
            }
            printf("], \"parity\": [");
            for (uint32_t i = 1; i < run_count; i++) {
                parity p = compare_pixels(runs[0].pixels, runs[i].pixels, bytes);
                printf("%s{\"a\": ", i > 1 ? ", " : "");
                json_string(runs[0].backend);
                printf(", \"b\": ");
                json_string(runs[i].backend);
                printf(", \"max_diff\": %u, \"over_%d_fraction\": %.6f}", p.max_diff,
                       PARITY_TOLERANCE, p.over_fraction);
            }
            printf("]");
        }
        printf("}\n");
        return;
    }
    char subject[128];
    _oak_cli_subject(o, subject, sizeof subject);
    for (uint32_t i = 0; i < run_count; i++) {
        const char *preset = oak_preset_name(o->preset);
        printf("oak bench: %s | %s | %s | %ux%u (render scale %.3g: %ux%u) | preset %s | %u "
               "frames after %u warm-up | %u threads\n",
               subject, runs[i].backend, runs[i].device, o->width, o->height, (double)runs[i].scale,
               runs[i].render_w, runs[i].render_h, preset ? preset : "default", frames, warmup,
               oak_job_threads());
        if (o->path_set) printf("  the camera over %.4g of its path\n", (double)o->path);
        if (rocks) printf("  rocks: %u in the streams after the last frame\n", rs.rocks);
        print_table(&runs[i]);
        if (runs[i].has_grid)
            printf("  lamp grid: %u lamps in view, %u listings, longest cell %u, overflow %u\n",
                   runs[i].grid.lamps, runs[i].grid.listed, runs[i].grid.max_cell,
                   runs[i].grid.overflow);
        const oak_occlusion_stats *oc = &runs[i].occ;
        /* two-pass Hi-Z builds no grid: no occluders, its draws in two passes */
        bool two = oc->on && !oc->occluders;
        printf("  occlusion over %u frames: %s; %u draws tested, %u outside the frustum, %u "
               "hidden; %u instances tested, %u outside, %u hidden",
               frames,
               !oc->on ? "off"
               : two   ? "two-pass Hi-Z"
                       : "coarse CPU depth",
               oc->draws_tested, oc->draws_frustum, oc->draws_occluded, oc->instances_tested,
               oc->instances_frustum, oc->instances_occluded);
        if (two)
            printf("; drawn in pass 1 / 2: %u / %u draws, %u / %u instances", oc->drawn_pass1,
                   oc->drawn_pass2, oc->instances_pass1, oc->instances_pass2);
        printf("\n");
        if (runs[i].has_shadow)
            printf("  shadow cache over %u frames: %u static layers drawn (%u of them only "
                   "their dirty rectangles, %u texels), %u copies, %u mover draws\n",
                   frames, runs[i].shadow.static_layers, runs[i].shadow.partial_layers,
                   runs[i].shadow.dirty_texels, runs[i].shadow.layer_copies,
                   runs[i].shadow.mover_draws);
        print_streams(&runs[i]);
    }
    for (uint32_t i = 1; i < run_count; i++) {
        parity p = compare_pixels(runs[0].pixels, runs[i].pixels, bytes);
        printf("parity %s vs %s: max difference %u/255, %.4f%% of channels over %d/255\n",
               runs[0].backend, runs[i].backend, p.max_diff, 100.0 * p.over_fraction,
               PARITY_TOLERANCE);
        printf("median frame %s / %s: %.2f\n", runs[i].backend, runs[0].backend,
               frame_ratio(&runs[i], &runs[0]));
    }
}

int _oak_cmd_bench(int argc, char **argv) {
    cli_options o;
    int status = _oak_cli_parse(&o, argc, argv, CLI_BENCH_OPTIONS);
    if (status) return status;
    if ((status = _oak_cli_start(&o))) return status;
    const char *names[MAX_RUNS] = {o.backend};
    uint32_t run_count = 1;
    char compare_buf[256];
    oak_scene *scene = NULL;
    static bench_run runs[MAX_RUNS];
    if (o.compare)
        status = split_compare(&o, compare_buf, sizeof compare_buf, names, &run_count);
    else
        status = _oak_cli_check_backend(&o, o.backend);
    if (!status) status = _oak_cli_open_scene(&o, &scene);
    if (!status) o.preset = oak_scene_post(scene)->preset; /* the file's, or --preset's */
    /* With --compare every renderer stays open and the frames alternate
       between them, so a slow spell on a shared machine falls on all alike. */
    oak_renderer *renderers[MAX_RUNS] = {NULL};
    for (uint32_t i = 0; !status && i < run_count; i++)
        status = open_backend(&o, scene, names[i], &runs[i], &renderers[i]);
    uint32_t frames = o.frames ? o.frames : 60;
    for (uint32_t f = 0; !status && f < frames; f++)
        for (uint32_t i = 0; !status && i < run_count; i++)
            status = bench_frame(&o, scene, renderers[i], &runs[i], f);
    for (uint32_t i = 0; i < run_count; i++) {
        if (!renderers[i]) continue;
        if (status)
            oak_destroy_renderer(renderers[i]);
        else
            status = close_backend(&o, scene, renderers[i], &runs[i]);
    }
    if (!status) report(&o, runs, run_count, scene);
    for (uint32_t i = 0; i < run_count; i++) release_run(&runs[i]);
    if (scene) oak_destroy_scene(scene);
    oak_shutdown();
    return status;
}
