/* oak fly camera: mouse look and keys move a camera entity through a scene
 * as a sphere kept out of its static geometry (both sides of every
 * triangle), sliding along what it touches (docs/FLY_CAMERA.md). */
#ifndef OAK_FLY_H
#define OAK_FLY_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oak_fly oak_fly;

typedef struct oak_fly_desc {
    float radius;      /* the camera's sphere, metres; 0: OAK_FLY_RADIUS */
    bool no_collision; /* fly through everything (an editor's camera) */
} oak_fly_desc;

/* One frame's input: keys as -1..1 per axis, the mouse as angles. */
typedef struct oak_fly_input {
    float move[3]; /* right, up, forward in the camera's frame (WASD, E/Q) */
    float look[2]; /* yaw (left positive) and pitch (up positive) change, radians */
    float speed;   /* metres a second at full key; 0: OAK_FLY_SPEED */
} oak_fly_input;

/* What one update did, for tests and the overlay. */
typedef struct oak_fly_stats {
    uint32_t contacts;  /* surfaces the move touched */
    uint32_t triangles; /* triangles tested */
    bool pushed_out;    /* the sphere started inside something and was moved out */
} oak_fly_stats;

/* Drives `camera` (an entity with a transform); its position and heading
   are taken from the entity now. */
oak_result oak_fly_create(oak_fly **out, oak_scene *scene, oak_entity camera,
                          const oak_fly_desc *desc);
void oak_fly_destroy(oak_fly *fly);
/* Turns by the look, then moves along the view by move * speed * dt, swept
   as a sphere against every static mesh renderer (not OAK_DRAW_MOVING, not
   OAK_DRAW_HIDDEN): it stops at what it meets and slides along it, up to
   OAK_FLY_ITERATIONS surfaces a frame, and never ends closer than its
   radius to a surface. Writes the entity's transform. */
oak_result oak_fly_update(oak_fly *fly, const oak_fly_input *in, float dt, oak_fly_stats *stats);
/* The sweep alone: from `from` by `move`, where the sphere ends. */
void oak_fly_sweep(oak_fly *fly, const float from[3], const float move[3], float out[3],
                   oak_fly_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
