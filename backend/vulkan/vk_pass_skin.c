/* The skin pass on Vulkan: shaders/skin.comp, one dispatch for every mesh
 * posed by its palette whose pose moved since the pass last skinned it (a
 * workgroup row a mesh), writing its posed vertices and its previous pose
 * into its own range of the pools (oak_gpu.h "The skin pass"). Idle, with
 * no barrier, on frames where no pose moved. */
#include "backend/gpu/gpu_records.h"
#include "vk_internal.h"

static const uint32_t k_skin_comp[] =
#include "shaders/skin.comp.h"
    ;

oak_result _oak_vk_skin_reserve(_oak_vk *vk, _oak_vk_frame *f) {
    uint32_t n = vk->skin.count;
    if (!n) return OAK_OK;
    uint64_t words = _oak_gpu_skin_words(vk->skin.data, n);
    oak_result r =
        _oak_vk_upload_reserve(vk, &f->skin, words * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
    if (r) return r;
    _oak_gpu_skin_fill(f->skin.mapped, vk->skin.data, vk->skin.first, n);
    return OAK_OK;
}

void _oak_vk_skin_destroy(_oak_vk *vk) {
    if (vk->skin_pipe) vkDestroyPipeline(vk->device, vk->skin_pipe, NULL);
    vk->skin_pipe = VK_NULL_HANDLE;
}

oak_result _oak_vk_run_skin(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    if (!vk->skin_pipe) {
        oak_result r =
            _oak_vk_compute_spec(vk, k_skin_comp, sizeof k_skin_comp, NULL, &vk->skin_pipe);
        if (r) return r;
    }
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->skin_pipe);
    vkCmdDispatch(f->cmd, (vk->skin.vertices + OAK_GPU_SKIN_GROUP - 1) / OAK_GPU_SKIN_GROUP,
                  vk->skin.count, 1);
    return OAK_OK; /* the readers' barrier comes from their rows (vk_track.c) */
}
