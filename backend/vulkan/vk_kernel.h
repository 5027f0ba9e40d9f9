/* A compute kernel writing into the instance buffer on Vulkan
 * (backend/vulkan/vk_kernel.c): its pipeline over two storage bindings (what
 * it reads, and the records it writes), a set per frame slot, and its
 * test-time twin run once into host-visible memory. The grass pass and the
 * particles pass (its block dynamic; the draw kernel with a third binding,
 * the draws) use it. */
#ifndef OAK_VK_KERNEL_H
#define OAK_VK_KERNEL_H

#include "vk_internal.h"

#define OAK_VK_KERNEL_NONE UINT32_MAX /* no extra binding */

/* The pass's objects, made on first use and kept: a zeroed one is unmade. */
typedef struct _oak_vk_kernel {
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipe;
    VkDescriptorPool pool;
    VkDescriptorSet sets[OAK_VK_FRAMES];
    uint32_t in_binding, out_binding, extra_binding;
    VkDescriptorType in_type; /* STORAGE_BUFFER, or _DYNAMIC for a block per dispatch */
} _oak_vk_kernel;

/* The kernel `code` reading binding in_binding (dynamic: at an offset given
   per dispatch), writing out_binding and, unless OAK_VK_KERNEL_NONE, one
   more storage buffer at extra_binding; OAK_OK at once when made already. */
oak_result _oak_vk_kernel_make(_oak_vk *vk, _oak_vk_kernel *k, const uint32_t *code,
                               size_t code_size, uint32_t in_binding, uint32_t out_binding,
                               uint32_t extra_binding, bool in_dynamic);
void _oak_vk_kernel_destroy(_oak_vk *vk, _oak_vk_kernel *k);
/* This slot's set pointed at `in` (in_range bytes of it from 0; VK_WHOLE_SIZE
   unless dynamic), the frame's instance buffer and `extra` (the whole of
   it, where the kernel has the binding), and the pipeline bound
   into f->cmd: what the caller dispatches (binding the set with
   _oak_vk_kernel_set) goes into the instance buffer. */
VkDescriptorSet _oak_vk_kernel_begin(_oak_vk *vk, _oak_vk_kernel *k, _oak_vk_frame *f, VkBuffer in,
                                     VkDeviceSize in_range, VkBuffer extra);
/* The set bound (a dynamic kernel's block at `offset`; 0 otherwise). */
void _oak_vk_kernel_set(const _oak_vk_kernel *k, VkCommandBuffer cmd, VkDescriptorSet set,
                        uint32_t offset);
/* After the dispatches: the frame's own set bound again (this layout
   disturbed it) and the writes made visible to their readers (instcull's
   kernel, the raster's and the resolve's records). */
void _oak_vk_kernel_end(_oak_vk *vk, _oak_vk_frame *f);

/* ---- once, for a test --------------------------------------------------------- */

/* The objects of one run, torn down together whatever failed. */
typedef struct _oak_vk_kernel_once {
    _oak_vk_buffer in, out;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout layout;
    VkPipeline pipe;
    VkDescriptorPool pool;
    VkCommandPool cmd_pool;
    VkFence fence;
} _oak_vk_kernel_once;

/* Buffers of in_bytes (a transfer target too) and out_bytes, host visible
   and mapped (o->in.mapped, o->out.mapped), the kernel `code` bound to them
   at in_binding and out_binding, and a command buffer begun with its
   pipeline and set bound; the caller has waited for the queue. */
oak_result _oak_vk_kernel_once_begin(_oak_vk *vk, _oak_vk_kernel_once *o, const uint32_t *code,
                                     size_t code_size, uint32_t in_binding, uint32_t out_binding,
                                     uint64_t in_bytes, uint64_t out_bytes, VkCommandBuffer *cmd);
/* The compute's writes made visible to the host, the commands run and
   waited for. */
oak_result _oak_vk_kernel_once_end(_oak_vk *vk, _oak_vk_kernel_once *o, VkCommandBuffer cmd);
void _oak_vk_kernel_once_free(_oak_vk *vk, _oak_vk_kernel_once *o);

#endif
