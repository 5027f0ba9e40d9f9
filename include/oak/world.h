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

#ifdef __cplusplus
}
#endif
#endif
