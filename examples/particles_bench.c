/* particles_bench: the CPU cost of oak_particles_update for one emitter
 * (docs/PERFORMANCE.md "Particles on the CPU"): `rate capacity` steps 60 Hz
 * frames for 6 s after 1 s of warm-up and prints the median and 95th
 * percentile ms a frame; `rate capacity seconds` times one call that steps
 * that far ahead from 0 (a catch-up). Two job threads. */
#include <stdio.h>
#include <stdlib.h>

#include <oak/oak.h>

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    float rate = argc > 1 ? (float)atof(argv[1]) : 1500;
    uint32_t cap = argc > 2 ? (uint32_t)atoi(argv[2]) : 4096;
    oak_engine_desc ed = {.threads = 2, .log_level = OAK_LOG_WARN};
    oak_scene *scene;
    oak_particles *p;
    if (oak_init(&ed) || oak_make_scene(&scene)) return 1;
    oak_entity cam = oak_scene_create(scene, "camera");
    oak_transform t = oak_transform_look_at((float[3]){4, 2, 6}, (float[3]){0, 1, 0});
    oak_scene_set_transform(scene, cam, &t);
    oak_scene_set_camera(scene, cam, &(oak_camera){0});
    oak_scene_set_active_camera(scene, cam);
    oak_emitter_desc d = {.capacity = cap,
                          .seed = 77,
                          .position = {0, 0.5f, 0},
                          .direction = {0.2f, 1, 0},
                          .cone_degrees = 35,
                          .rate = rate,
                          .speed = {2, 5},
                          .life = {0.8f, 1.6f},
                          .size = {0.05f, 0.2f},
                          .spin = {-3, 3},
                          .gravity = {0, -9.81f, 0},
                          .drag = 0.4f,
                          .color_key_count = 2,
                          .size_key_count = 2};
    d.color_keys[0] = (oak_particle_key){0, {1, 0.8f, 0.2f, 1}};
    d.color_keys[1] = (oak_particle_key){1, {0.2f, 0.2f, 0.2f, 0}};
    d.size_keys[0] = (oak_particle_key){0, {1, 0, 0, 0}};
    d.size_keys[1] = (oak_particle_key){1, {2.5f, 0, 0, 0}};
    if (oak_world_particles(scene, &p) || oak_particles_add_emitter(p, &d, NULL)) {
        fprintf(stderr, "particles_bench: %s\n", oak_last_error());
        return 1;
    }
    const oak_stream *s = oak_particles_stream(p, 0);
    if (argc > 3) {
        uint64_t t0 = oak_time_ns();
        oak_result r = oak_world_update_particles(scene, (float)atof(argv[3]));
        uint64_t t1 = oak_time_ns();
        printf("alive %u, one call %.1f ms\n", oak_stream_count(s), (double)(t1 - t0) / 1e6);
        oak_destroy_scene(scene);
        oak_shutdown();
        return r ? 1 : 0;
    }
    enum { WARM = 60, N = 360 };
    static double ms[N];
    for (int i = 0; i < WARM + N; i++) {
        uint64_t t0 = oak_time_ns();
        if (oak_world_update_particles(scene, (float)i / 60.0f)) return 1;
        if (i >= WARM) ms[i - WARM] = (double)(oak_time_ns() - t0) / 1e6;
    }
    qsort(ms, N, sizeof ms[0], by_value);
    printf("alive %u, median %.3f ms, p95 %.3f ms a frame\n", oak_stream_count(s), ms[N / 2],
           ms[N * 95 / 100]);
    oak_destroy_scene(scene);
    oak_shutdown();
    return 0;
}
