/* Counters of the Vulkan backend's live objects and device memory, for tests
 * that check churn and long runs leak nothing. Private to oak's tests. */
#ifndef OAK_VK_DEBUG_H
#define OAK_VK_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct oak_vk_stats {
    int64_t buffers, images, views, suballocations;
    uint64_t device_bytes;                      /* in device memory blocks */
    uint32_t blocks;                            /* device memory allocations */
    uint64_t vertex_pool_used, index_pool_used; /* items taken in the pools */
    uint32_t texture_classes;
    uint32_t bindless,
        bindless_textures; /* the runtime array's length (0: size classes), its live images */
    bool multi_draw, validation;
    uint32_t vis_commands, shadow_commands; /* indirect commands in the last frame */
} oak_vk_stats;

/* self is what the backend's create returned. */
void oak_vk_debug_stats(void *self, oak_vk_stats *out);
/* Failure injection: the n-th next device memory allocation fails as out of
 * device memory (0: off); mark the device lost as a driver would report it. */
void oak_vk_debug_fail_alloc(void *self, int32_t n);
void oak_vk_debug_lose_device(void *self);

#endif
