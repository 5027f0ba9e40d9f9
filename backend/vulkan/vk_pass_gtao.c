/* The gtao pass on Vulkan: four compute dispatches over the output
 * (shaders/gtao_*.comp), view depth and normals from the ids, the depth
 * mips, the horizon search, the denoise, into the ao buffer the resolve
 * reads. The barriers between them come from render/pass_gtao.h's rows. */
#include "backend/gpu/gpu_records.h"
#include "render/pass_gtao.h"
#include "vk_internal.h"

oak_result _oak_vk_gtao_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_GTAO], v, oak_backend_vulkan()->caps);
    uint64_t need = runs ? _oak_gpu_ao_floats(vk->width, vk->height) * sizeof(float) : 16;
    if (vk->ao.buffer && vk->ao.size >= need) return OAK_OK;
    /* earlier frames may still read the old one: it retires with this frame */
    oak_result r = _oak_vk_buffer_retire(vk, &vk->ao);
    if (r) return r;
    _oak_vk_track_reset(vk, OAK_TARGET_AO);
    return _oak_vk_buffer_create(vk, &vk->ao, need, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 OAK_VK_MEM_DEVICE);
}

oak_result _oak_vk_run_gtao(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    /* the table's row (its first step's uses) was applied before this */
    _oak_vk_dispatch(vk, f->cmd, OAK_VK_PIPE_GTAO_PREFILTER);
    for (uint32_t s = 0; s < OAK_GTAO_STEP_COUNT; s++) {
        _oak_vk_track_row(vk, f->cmd, &k_oak_gtao_steps[s]);
        _oak_vk_dispatch(vk, f->cmd, OAK_VK_PIPE_GTAO_MIPS + s);
    }
    return OAK_OK;
}
