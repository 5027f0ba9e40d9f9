/* Private to the engine: one particle's record from its birth state, the
 * closed form the particle kernel (shaders/particles.comp.glsl) computes
 * too; world/particles.c runs it on the job pool (docs/WORLD.md "Particles"). */
#ifndef OAK_RENDER_PARTICLE_EVAL_H
#define OAK_RENDER_PARTICLE_EVAL_H

#include <oak/backend.h>
#include <oak/render.h>

#include "shaders/common/oak_gpu.h"

/* The record of particle q at age `age` seconds under emitter constants c
   (c->time is not read: the caller gives the age); returns its flipbook
   frame (0 .. frames - 1). Touches only *out. */
uint32_t _oak_particle_record(const oak_gpu_particle_emitter *c, const oak_gpu_particle *q,
                              float age, oak_instance *out);

/* The flipbook frame (0 .. frames - 1) at `age` of a life of `life`
   seconds: the record's, and the kernel's frame_of to the bit where the
   device divides as IEEE does. */
uint32_t _oak_particle_frame(uint32_t frames, float age, float life);

/* The key BLEND draw `draw` of view v sorts by, far to near (the squared
   distance from `cam`): where it is an instance of a stream whose
   unit_point is set (oak_draw_list.unit; an unsorted particle emitter's
   streams), that point's, so the order does not need the stream's records
   and every backend keys the unit alike; else `key`, the draw's own. */
float _oak_blend_unit_key(const oak_render_view *v, uint32_t draw, const float cam[3], float key);

#endif
