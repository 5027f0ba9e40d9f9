/* The grass kernel (shaders/grass.comp.glsl) on OpenGL (backend/gl/gl_grass.c). */
#ifndef OAK_GL_GRASS_H
#define OAK_GL_GRASS_H

#include "gl_gpu.h"

/* The grass pass: the slots of each GRASS stream the device grows
   (oak_render_stream.grass) written since the frame's copies of its
   records (this frame's and last frame's) grown by the kernel into the
   instance buffer, where instcull reads them, their places marked in
   the upload ledger (backend/gpu/gpu_records.h) so it uploads none of them again. */
oak_result _oak_gl_run_grass(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_grass_release(_oak_gl_frame *f);
/* Test hook: squares the grass pass grew so far. */
uint64_t _oak_gl_grass_squares(void *self);
/* Test hook: the kernel over n squares into `count` records (zero before
   it runs), read back into records; needs a current GL context. */
oak_result _oak_gl_grass_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                             uint32_t count);

#endif
