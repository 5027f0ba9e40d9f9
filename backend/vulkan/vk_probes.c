/* Reflection probes on Vulkan: the OAK_B_PROBES buffer (records and maps,
 * render/probe_bake.c fills it), host-visible and rewritten only when the
 * view's probe_version moves (after the frames still reading it finish), an
 * empty head before any probe. Created and destroyed with the sky buffer. */
#include <string.h>

#include "vk_internal.h"

#define OAK_VK_PROBE_BYTES ((uint64_t)OAK_GPU_PROBE_TEXELS * 16)

oak_result _oak_vk_probes_create(_oak_vk *vk) {
    if (vk->probes.buffer) return OAK_OK;
    oak_result r = _oak_vk_buffer_create(vk, &vk->probes, OAK_VK_PROBE_BYTES,
                                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_UPLOAD);
    if (r) return r;
    memset(vk->probes.mapped, 0, 16); /* no probe until a view brings one */
    vk->probe_version = 0;
    return OAK_OK;
}

void _oak_vk_probes_destroy(_oak_vk *vk) {
    _oak_vk_buffer_destroy(vk, &vk->probes);
    vk->probe_version = 0;
}

oak_result _oak_vk_probes_upload(_oak_vk *vk, const oak_render_view *v) {
    if (v->probe_version == vk->probe_version) return OAK_OK;
    oak_result r = _oak_vk_wait_all(vk); /* frames in flight may read the old ones */
    if (r) return r;
    if (v->probe_data) {
        size_t texels = OAK_GPU_PROBE_MAPS_AT + (size_t)v->probe_count * OAK_GPU_PROBE_MAP_TEXELS;
        memcpy(vk->probes.mapped, v->probe_data, texels * 16);
    } else {
        memset(vk->probes.mapped, 0, 16);
    }
    vk->probe_version = v->probe_version;
    return OAK_OK;
}
