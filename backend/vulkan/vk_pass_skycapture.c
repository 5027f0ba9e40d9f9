/* The sky capture on Vulkan: when the environment's hash moved, the host
 * writes the sky buffer's head and sky image (host-visible), then
 * skycapture.comp fills the capture's mips (and, the first time, the BRDF
 * table) and skyfilter.comp the irradiance and prefiltered levels from them.
 * Nothing is recorded while the hash holds: the maps are a cached target. */
#include <string.h>

#include "render/skylight.h"
#include "vk_internal.h"

#define OAK_VK_SKY_BYTES ((uint64_t)OAK_GPU_SKY_TEXELS * 16)

oak_result _oak_vk_sky_create(_oak_vk *vk) {
    if (vk->sky.buffer) return OAK_OK;
    oak_result r = _oak_vk_buffer_create(vk, &vk->sky, OAK_VK_SKY_BYTES,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_UPLOAD);
    if (r) return r;
    memset(vk->sky.mapped, 0, OAK_VK_SKY_BYTES); /* no light until the first capture */
    vk->sky_hash = 0;
    vk->sky_brdf = false;
    return OAK_OK;
}

void _oak_vk_sky_destroy(_oak_vk *vk) {
    _oak_vk_buffer_destroy(vk, &vk->sky);
    vk->sky_hash = 0;
}

oak_result _oak_vk_run_skycapture(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint64_t h = _oak_sky_hash(v);
    if (h == vk->sky_hash) return OAK_OK;
    /* the host rewrites the head and image: frames still reading them finish first */
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    _oak_sky_prepare(vk->sky.mapped, v, !vk->sky_brdf);
    /* through the clouds: their noise table (bound at OAK_B_CLOUDS, sized
       by the upload's reserve) baked first */
    oak_gpu_clouds cl;
    float P[3];
    if (_oak_sky_cloud_point(v, &cl, P) && (r = _oak_vk_clouds_bake(vk, f))) return r;
    uint32_t first = OAK_GPU_SKY_CAPTURE_TEXELS + OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE;
    if (!_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_SKYCAPTURE)) return vk->pipe_result;
    vkCmdDispatch(f->cmd, (first + 63) / 64, 1, 1);
    /* inside the pass: the filter reads the capture's mips just written */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    if (!_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_SKYFILTER)) return vk->pipe_result;
    vkCmdDispatch(f->cmd, (OAK_GPU_SKY_FILTER_TEXELS + 63) / 64, 1, 1);
    vk->sky_hash = h;
    vk->sky_brdf = true;
    vk->sky_captures++;
    return OAK_OK; /* the readers' barriers come from their rows (vk_track.c) */
}

oak_result _oak_vk_sky_read(_oak_vk *vk, float *texels, size_t count, uint32_t *captures) {
    if (captures) *captures = vk->sky_captures;
    if (!texels) return OAK_OK;
    if (count < (size_t)OAK_GPU_SKY_TEXELS * 4)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: the sky maps need %u floats",
                         (unsigned)OAK_GPU_SKY_TEXELS * 4);
    if (!vk->sky.buffer) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: no sky captured");
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    memcpy(texels, vk->sky.mapped, OAK_VK_SKY_BYTES);
    return OAK_OK;
}
