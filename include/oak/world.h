/* oak world: content that makes a whole world in a scene. Worlds are looked
 * up by name; each also gives a scripted camera path for benchmarks. */
#ifndef OAK_WORLD_H
#define OAK_WORLD_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

uint32_t oak_world_count(void);
const char *oak_world_name(uint32_t index);
const char *oak_world_description(uint32_t index);

/* Fills an empty scene with the named world, camera included. */
oak_result oak_world_build(oak_scene *scene, const char *name);
/* The world's benchmark camera at t in [0, 1] along its path (eye and the
 * point it looks at). */
oak_result oak_world_camera_path(const char *name, float t, float eye[3], float target[3]);
/* Moves what the named world moves by itself (lamps, ...) to its state at
 * `seconds` of world time; worlds that stand still do nothing. */
oak_result oak_world_update(oak_scene *scene, const char *name, float seconds);

/* ---- time of day (docs/SHADING.md "Time of day and the atmosphere") ----- */

/* Sets the hour (local standard time, [0, 24]) and applies it: the key light
 * (the directional light named "sun", else the first shadow-casting
 * directional one, made if none) where the sun stands, or the moon once the
 * sun is 6 degrees down, its colour and lux through the air; the sky image
 * baked by the CPU atmosphere (stars and the moon's disc at night), the
 * ground's light and the fog's colour from it, and a physical camera's
 * EV100 for the light. The place and date are the scene's
 * (oak_scene_time_of_day); zero fields are the defaults: Zurich (47.37 N,
 * 8.54 E, UTC+1) on day 180 (29 June) of 2026. Bad numbers give one line
 * and OAK_ERROR_INVALID_ARGUMENT, changing nothing. */
oak_result oak_world_set_time(oak_scene *scene, float hours);
/* The same with the place and date too (t->set is ignored; t->hour is used). */
oak_result oak_world_set_time_of_day(oak_scene *scene, const oak_time_of_day *t);
/* Applies the scene's own time of day (after loading a scene file); OK and
 * nothing done when it has none. */
oak_result oak_world_apply_time(oak_scene *scene);

#ifdef __cplusplus
}
#endif
#endif
