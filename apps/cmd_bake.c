/* `oak bake in.gltf|in.glb out.oakm`: loads a model with every
 * post-processing step (generated normals and tangents, decoded images),
 * writes it as oak's versioned binary cache, reads the cache back to check
 * it, and prints both load times and, for skinned or morphed models, what
 * posing costs per thousand vertices (the numbers docs/PERFORMANCE.md keeps). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oak/anim.h>
#include <oak/oak.h>

#include "cli.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median milliseconds of one animation + deform frame, and the vertices posed. */
static oak_result pose_cost(const oak_gltf *g, double *ms, uint32_t *vertices) {
    *ms = 0;
    *vertices = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        const oak_gltf_node *n = &g->nodes[i];
        if (n->mesh < 0) continue;
        const oak_gltf_mesh *m = &g->meshes[n->mesh];
        for (uint32_t p = 0; p < m->primitive_count; p++)
            if ((n->skin >= 0 && m->primitives[p].influence_count) || n->weight_count)
                *vertices += m->primitives[p].vertex_count;
    }
    if (!*vertices) return OAK_OK;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    oak_result r = oak_make_scene(&scene);
    if (!r) r = oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "bench");
    if (!r && g->clip_count) oak_anim_play(oak_gltf_instance_player(inst), 0, true);
    enum { FRAMES = 60 };
    double t[FRAMES];
    for (int f = 0; f < FRAMES && !r; f++) {
        uint64_t t0 = oak_time_ns();
        oak_anim_update(scene, 1.0f / 60);
        r = oak_skin_update(scene);
        t[f] = oak_ms_since(t0);
    }
    if (!r) {
        qsort(t, FRAMES, sizeof t[0], cmp_double);
        *ms = t[FRAMES / 2];
    }
    oak_gltf_instance_free(inst);
    if (scene) oak_destroy_scene(scene);
    return r;
}

/* Loads path runs times; the first model is kept in *keep. */
static oak_result timed_loads(const char *path, const char *root, int runs, oak_gltf **keep,
                              double *first, double *median) {
    double t[64];
    if (runs > 64) runs = 64;
    for (int i = 0; i < runs; i++) {
        uint64_t t0 = oak_time_ns();
        oak_gltf *g = NULL;
        oak_result r = oak_gltf_load(&g, path, &(oak_gltf_desc){.asset_root = root});
        t[i] = oak_ms_since(t0);
        if (r) return r;
        if (i == 0)
            *keep = g;
        else
            oak_gltf_free(g);
    }
    *first = t[0];
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    *median = t[runs / 2];
    return OAK_OK;
}

int _oak_cmd_bake(int argc, char **argv) {
    int runs = 1;
    const char *root = NULL;
    bool bad = false;
    while (argc >= 5 && !bad) { /* options after IN and OUT, each with a value */
        if (strcmp(argv[argc - 2], "--runs") == 0) {
            char *end = NULL;
            long n = strtol(argv[argc - 1], &end, 10);
            runs = *argv[argc - 1] && !*end && n >= 1 && n <= 64 ? (int)n : 0;
        } else if (strcmp(argv[argc - 2], "--asset-root") == 0) {
            root = argv[argc - 1];
        } else {
            bad = true;
        }
        argc -= 2;
    }
    if (bad || argc != 3 || argv[1][0] == '-' || argv[2][0] == '-' || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: oak bake IN.gltf|IN.glb OUT.oakm [--runs N] [--asset-root DIR]\n");
        return 2;
    }
    cli_options co = {.command = "bake"};
    if (_oak_cli_start(&co)) return CLI_EXIT_FAIL; /* errors wait for our one line */
    oak_gltf *g = NULL, *back = NULL;
    double src_first = 0, src_median = 0, cache_first = 0, cache_median = 0, pose_ms = 0;
    uint32_t posed = 0;
    oak_result r = timed_loads(argv[1], root, runs, &g, &src_first, &src_median);
    if (!r) r = oak_gltf_bake(g, argv[2]);
    if (!r) r = timed_loads(argv[2], root, runs < 5 ? 5 : runs, &back, &cache_first, &cache_median);
    if (!r) r = pose_cost(back, &pose_ms, &posed);
    if (r) {
        fprintf(stderr, "oak bake: %s\n", oak_last_error());
    } else {
        char line[512];
        oak_gltf_summary(g, line, sizeof line);
        printf("%s\nbaked to %s\n", line, argv[2]);
        printf("load ms: source %.2f first, %.2f median of %d; cache %.2f first, %.2f median of "
               "%d (%.1fx first, %.1fx median)\n",
               src_first, src_median, runs, cache_first, cache_median, runs < 5 ? 5 : runs,
               src_first / cache_first, src_median / cache_median);
        if (posed)
            printf("posing %u vertices: %.3f ms a frame, %.4f ms per 1000 vertices (%u threads)\n",
                   posed, pose_ms, pose_ms * 1000.0 / posed, oak_job_threads());
    }
    oak_gltf_free(back);
    oak_gltf_free(g);
    oak_shutdown();
    return r ? 1 : 0;
}
