/* The grass kernel (shaders/grass.comp.glsl) on Vulkan (backend/vulkan/vk_grass.c). */
#ifndef OAK_VK_GRASS_H
#define OAK_VK_GRASS_H

#include "vk_internal.h"

/* The grass pass: the slots of each GRASS stream the device grows
   (oak_render_stream.grass) written since this slot's copies of its
   records (this frame's and last frame's) grown by the kernel into the
   slot's instance buffer, where instcull reads them, their places marked in
   the upload ledger (backend/gpu/gpu_records.h) so it copies none of them again. */
oak_result _oak_vk_run_grass(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v);
void _oak_vk_grass_destroy(_oak_vk *vk);
/* Test hook: squares the grass pass grew so far, any slot. */
uint64_t _oak_vk_grass_squares(void *self);
/* Test hook: the kernel over n squares into `count` records (zero before
   it runs), read back into records (self: the backend's, as created). */
oak_result _oak_vk_grass_run(void *self, const oak_gpu_grass_square *squares, uint32_t n,
                             oak_instance *records, uint32_t count);

#endif
