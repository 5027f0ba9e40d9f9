/* The fountain world: one emitter of many small opaque unlit quads (--count,
 * default 100,000, up to OAK_PARTICLE_MAX), thrown up in a burst every 4 s
 * that lives 3.5 s, so the alive set (the particle kernel's block) changes
 * only at a burst and at its death: what the particles pass on the GPUs
 * (a PARTICLES stream drawn natively) is measured by, against the job pool
 * on the CPU (docs/WORLD.md "Particles"). */
#include <math.h>

#include "world/internal.h"

#define FOUNTAIN_DEFAULT 100000u

oak_result _oak_world_fountain_build(oak_scene *scene, const oak_world_options *opts) {
    uint32_t n = opts && opts->count ? opts->count : FOUNTAIN_DEFAULT;
    if (n > OAK_PARTICLE_MAX)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "world fountain: --count %u, at most %u", n,
                         OAK_PARTICLE_MAX);
    oak_particles *p = NULL;
    oak_result r = oak_world_particles(scene, &p);
    if (r) return r;
    oak_emitter_desc d = {.capacity = n,
                          .seed = 17,
                          .position = {0, 0, 0},
                          .cone_degrees = 25,
                          .speed = {4, 9},
                          .life = {3.5f, 3.5f},
                          .size = {0.02f, 0.05f},
                          .spin = {-2, 2},
                          .gravity = {0, -9.81f, 0},
                          .drag = 0.3f,
                          .lift = 0.5f,
                          .color_key_count = 3};
    d.bursts[0] = (oak_particle_burst){.at = 0, .every = 4, .count = n};
    d.color_keys[0] = (oak_particle_key){0, {0.6f, 0.8f, 1, 1}};
    d.color_keys[1] = (oak_particle_key){0.5f, {0.2f, 0.5f, 1, 1}};
    d.color_keys[2] = (oak_particle_key){1, {0.05f, 0.1f, 0.4f, 1}};
    if ((r = oak_particles_add_emitter(p, &d, NULL))) return r;
    oak_camera cam = {0};
    float eye[3], target[3];
    _oak_world_fountain_path(0, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world fountain: no room for the camera");
    return OAK_OK;
}

void _oak_world_fountain_path(float t, float eye[3], float target[3]) {
    float a = 0.3f * t; /* a slow walk round the spray */
    eye[0] = 9 * sinf(a), eye[1] = 2, eye[2] = 9 * cosf(a);
    target[0] = 0, target[1] = 2.5f, target[2] = 0;
}
