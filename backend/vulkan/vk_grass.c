/* The grass kernel (shaders/grass.comp.glsl) on Vulkan: the grass pass,
 * which grows the squares that arrived (and zeroes the slots of those that
 * left) into each frame slot's instance buffer, with its own pipeline and
 * a set per slot (the jobs, 1.3 KB a square, in a host-visible buffer per
 * slot); and the test hook that runs it once over a list of squares into
 * host-visible memory (tests/grass_gpu.h), its objects made and torn down
 * per call. Both through vk_kernel.c. */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "render/stream.h"
#include "vk_grass.h"
#include "vk_kernel.h"

static const uint32_t k_grass_comp[] =
#include "shaders/grass.comp.h"
    ;

oak_result _oak_vk_grass_run(void *self, const oak_gpu_grass_square *squares, uint32_t n,
                             oak_instance *records, uint32_t count) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    if (!vk || (n && !squares) || !records || !count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan grass: NULL argument or no records");
    oak_result r = _oak_vk_wait_all(vk); /* the queue is the frame's too */
    _oak_vk_kernel_once o = {0};
    VkCommandBuffer cmd;
    uint64_t in_bytes = sizeof *squares * (uint64_t)(n ? n : 1);
    if (!r)
        r = _oak_vk_kernel_once_begin(vk, &o, k_grass_comp, sizeof k_grass_comp, OAK_B_GRASS_IN,
                                      OAK_B_GRASS_OUT, in_bytes, sizeof *records * (uint64_t)count,
                                      &cmd);
    if (!r) {
        if (n) memcpy(o.in.mapped, squares, sizeof *squares * (size_t)n);
        memset(o.out.mapped, 0, sizeof *records * (size_t)count);
        if (n) vkCmdDispatch(cmd, n, 1, 1);
        r = _oak_vk_kernel_once_end(vk, &o, cmd);
    }
    if (!r) memcpy(records, o.out.mapped, sizeof *records * (size_t)count);
    _oak_vk_kernel_once_free(vk, &o);
    return r;
}

/* ---- the grass pass --------------------------------------------------------- */

typedef struct _oak_vk_grass {
    _oak_vk_kernel kernel;
    _oak_vk_buffer jobs[OAK_VK_FRAMES];
    oak_gpu_grass_square *list;
    uint32_t list_cap;
    uint64_t squares;
} _oak_vk_grass;

oak_result _oak_vk_run_grass(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    if (!vk->grass && !(vk->grass = oak_calloc(1, sizeof *vk->grass)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan grass: no memory");
    _oak_vk_grass *G = vk->grass;
    oak_result r = _oak_vk_kernel_make(vk, &G->kernel, k_grass_comp, sizeof k_grass_comp,
                                       OAK_B_GRASS_IN, OAK_B_GRASS_OUT, OAK_VK_KERNEL_NONE, false);
    if (r) return r;
    uint32_t g[2], n = _oak_gpu_grass_jobs(&f->uploads, v, &G->list, &G->list_cap, g);
    if (n == UINT32_MAX) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan grass: no jobs");
    if (!n) return OAK_OK;
    uint32_t gx = g[0], gy = g[1];
    _oak_vk_buffer *jb = &G->jobs[vk->slot];
    uint64_t bytes = sizeof *G->list * (uint64_t)gx * gy;
    if (jb->size < bytes) {
        uint64_t size = jb->size ? jb->size : 16 * sizeof *G->list;
        while (size < bytes) size *= 2;
        _oak_vk_buffer_destroy(vk, jb); /* this slot's last frame has finished */
        if ((r = _oak_vk_buffer_create(vk, jb, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                       OAK_VK_MEM_UPLOAD)))
            return r;
    }
    memcpy(jb->mapped, G->list, (size_t)bytes);
    VkDescriptorSet set =
        _oak_vk_kernel_begin(vk, &G->kernel, f, jb->buffer, VK_WHOLE_SIZE, VK_NULL_HANDLE);
    _oak_vk_kernel_set(&G->kernel, f->cmd, set, 0);
    vkCmdDispatch(f->cmd, gx, gy, 1);
    G->squares += n;
    _oak_vk_kernel_end(vk, f);
    return OAK_OK;
}

void _oak_vk_grass_destroy(_oak_vk *vk) {
    _oak_vk_grass *G = vk->grass;
    if (!G) return;
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) _oak_vk_buffer_destroy(vk, &G->jobs[i]);
    _oak_vk_kernel_destroy(vk, &G->kernel);
    oak_free(G->list);
    oak_free(G);
    vk->grass = NULL;
}

uint64_t _oak_vk_grass_squares(void *self) {
    _oak_vk *vk = self; /* the backend's struct opens with its _oak_vk */
    return vk && vk->grass ? vk->grass->squares : 0;
}
