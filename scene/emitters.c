/* The particle emitters a scene keeps (docs/WORLD.md "Particles", docs/
 * SCENE_FILES.md): their descs' defaults and rules, which the world's
 * particle set and the scene file reader share, and the scene's list of
 * them with the clock they were stepped to. */
#include <math.h>
#include <string.h>

#include "scene_internal.h"

oak_emitter_desc oak_emitter_desc_defaults(const oak_emitter_desc *desc) {
    oak_emitter_desc d = desc ? *desc : (oak_emitter_desc){0};
    if (!d.capacity) d.capacity = 1024;
    if (!d.direction[0] && !d.direction[1] && !d.direction[2]) d.direction[1] = 1;
    if (!d.life[0] && !d.life[1]) d.life[0] = d.life[1] = 1;
    if (!d.size[0] && !d.size[1]) d.size[0] = d.size[1] = 0.1f;
    return d;
}

static bool finite_n(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

static bool range_ok(const float r[2], float lo) {
    return isfinite(r[0]) && isfinite(r[1]) && r[0] >= lo && r[1] >= r[0];
}

static bool keys_ok(const oak_particle_key *k, uint32_t n) {
    if (n > OAK_PARTICLE_KEYS) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (!(k[i].t >= 0 && k[i].t <= 1) || !finite_n(k[i].value, 4)) return false;
        if (i && k[i].t < k[i - 1].t) return false;
    }
    return true;
}

const char *oak_emitter_desc_problem(const oak_emitter_desc *desc) {
    if (!desc) return "no desc";
    oak_emitter_desc dd = oak_emitter_desc_defaults(desc);
    const oak_emitter_desc *d = &dd;
    float len = sqrtf(d->direction[0] * d->direction[0] + d->direction[1] * d->direction[1] +
                      d->direction[2] * d->direction[2]);
    if (d->capacity > OAK_PARTICLE_MAX) return "capacity past OAK_PARTICLE_MAX";
    if (!finite_n(d->position, 3)) return "position not finite";
    if (!finite_n(d->direction, 3) || !(len > 1e-6f)) return "direction not a direction";
    if (!(d->cone_degrees >= 0 && d->cone_degrees <= 180)) return "cone_degrees not in [0, 180]";
    if (!(d->rate >= 0 && d->rate <= 1e7f)) return "rate not in [0, 1e7]";
    if (!range_ok(d->speed, 0)) return "speed not a range >= 0";
    if (!range_ok(d->life, 0) || !(d->life[0] > 0)) return "life not a range > 0";
    if (!range_ok(d->size, 0)) return "size not a range >= 0";
    if (!range_ok(d->spin, -1e4f)) return "spin not a range";
    if (!finite_n(d->gravity, 3)) return "gravity not finite";
    if (!(d->drag >= 0 && d->drag <= 1e4f)) return "drag not in [0, 1e4]";
    if (!(d->lift >= -1 && d->lift <= 1)) return "lift not in [-1, 1]";
    if (!keys_ok(d->color_keys, d->color_key_count)) return "colour keys (t in [0, 1], rising)";
    if (!keys_ok(d->size_keys, d->size_key_count)) return "size keys (t in [0, 1], rising)";
    if ((d->flipbook[0] == 0) != (d->flipbook[1] == 0) ||
        (uint64_t)d->flipbook[0] * d->flipbook[1] > OAK_PARTICLE_FRAMES)
        return "flipbook not columns x rows of at most OAK_PARTICLE_FRAMES frames";
    for (int i = 0; i < OAK_PARTICLE_BURSTS; i++) {
        const oak_particle_burst *b = &d->bursts[i];
        if (b->count && !(b->at >= 0 && isfinite(b->at) && b->every >= 0 && isfinite(b->every)))
            return "a burst's at or every not a time >= 0";
    }
    return NULL;
}

oak_result oak_scene_add_emitter(oak_scene *scene, const oak_emitter_desc *desc) {
    if (!scene || !desc)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_add_emitter: NULL");
    const char *bad = oak_emitter_desc_problem(desc);
    if (bad) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_add_emitter: %s", bad);
    if (!OAK_GROW(scene->emitters, scene->emitter_capacity, scene->emitter_count + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_scene_add_emitter: out of memory");
    scene->emitters[scene->emitter_count++] = *desc;
    return OAK_OK;
}

uint32_t oak_scene_emitter_count(const oak_scene *scene) {
    return scene ? scene->emitter_count : 0;
}

oak_emitter_desc *oak_scene_emitter(oak_scene *scene, uint32_t index) {
    return scene && index < scene->emitter_count ? &scene->emitters[index] : NULL;
}

double oak_scene_particle_time(const oak_scene *scene) {
    return scene ? scene->particle_time : 0;
}

void oak_scene_set_particle_time(oak_scene *scene, double seconds) {
    if (scene && isfinite(seconds) && seconds >= 0) scene->particle_time = seconds;
}
