/* The exposure pass on Vulkan: exposure_meter.comp adds each pixel of the
 * HDR image into the histogram with atomics, then exposure_step.comp (one
 * invocation) steps the camera and clears the counts; post.comp reads the
 * state. One buffer, kept across frames (frames in flight run in order, the
 * rows' barriers keep them so); only the test hook reads it on the host. */
#include <string.h>

#include "vk_internal.h"

#define OAK_VK_EXPOSURE_BYTES ((uint64_t)OAK_GPU_EXPOSURE_WORDS * 4)

oak_result _oak_vk_exposure_create(_oak_vk *vk) {
    if (vk->exposure.buffer) return OAK_OK; /* the camera's state outlives a resize */
    oak_result r = _oak_vk_buffer_create(vk, &vk->exposure, OAK_VK_EXPOSURE_BYTES,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_UPLOAD);
    if (r) return r;
    memset(vk->exposure.mapped, 0, OAK_VK_EXPOSURE_BYTES); /* the histogram starts empty */
    _oak_vk_track_reset(vk, OAK_TARGET_EXPOSURE);
    return OAK_OK;
}

void _oak_vk_exposure_destroy(_oak_vk *vk) {
    _oak_vk_buffer_destroy(vk, &vk->exposure);
}

oak_result _oak_vk_run_exposure(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    _oak_vk_dispatch(vk, f->cmd, OAK_VK_PIPE_EXPOSURE_METER);
    /* inside the pass: the step reads the counts just added */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    if (_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_EXPOSURE_STEP)) vkCmdDispatch(f->cmd, 1, 1, 1);
    return OAK_OK; /* post's barrier comes from its row (vk_track.c) */
}

oak_result _oak_vk_exposure_read(_oak_vk *vk, float state[4]) {
    if (!vk->exposure.buffer)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: no exposure buffer");
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    memcpy(state, vk->exposure.mapped, 4 * sizeof(float));
    return OAK_OK;
}
