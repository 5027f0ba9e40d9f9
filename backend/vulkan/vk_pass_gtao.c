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
    return _oak_vk_target_buffer_fit(vk, &vk->ao, OAK_TARGET_AO, need);
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
