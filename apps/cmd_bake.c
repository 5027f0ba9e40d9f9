/* `oak bake in.gltf|in.glb out.oakm`: loads a model with every
 * post-processing step (generated normals and tangents, decoded images) and
 * writes it as oak's versioned binary cache, which oak_gltf_load reads back. */
#include <stdio.h>
#include <string.h>

#include <oak/gltf.h>
#include <oak/oak.h>

int oak_cmd_bake(int argc, char **argv);

int oak_cmd_bake(int argc, char **argv) {
    if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
        fprintf(stderr, "usage: oak bake IN.gltf|IN.glb OUT.oakm\n");
        return 2;
    }
    oak_engine_desc ed = {.log_level = OAK_LOG_WARN};
    if (oak_init(&ed)) {
        fprintf(stderr, "oak: %s\n", oak_last_error());
        return 1;
    }
    uint64_t t0 = oak_time_ns();
    oak_gltf *g = NULL;
    oak_result r = oak_gltf_load(&g, argv[1], NULL);
    double load_ms = oak_ms_since(t0);
    if (!r) r = oak_gltf_bake(g, argv[2]);
    if (r) {
        fprintf(stderr, "oak: %s\n", oak_last_error());
        oak_gltf_free(g);
        oak_shutdown();
        return 1;
    }
    char line[512];
    oak_gltf_summary(g, line, sizeof line);
    printf("%s; baked to %s (loaded in %.1f ms)\n", line, argv[2], load_ms);
    oak_gltf_free(g);
    oak_shutdown();
    return 0;
}
