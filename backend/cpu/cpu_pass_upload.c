/* The upload pass on the CPU backend: the sync contract (render syncs
 * itself): mirrors of assets whose version moved are refreshed unless sync()
 * already did it for this view, then the frame's per-view values are set. */
#include "cpu_internal.h"

oak_result _oak_cpu_run_upload(cpu_backend *b, const oak_render_view *v) {
    oak_result r = OAK_OK;
    if (b->synced_view != v || b->synced_frame != v->frame) r = _oak_cpu_sync(b, v);
    b->synced_view = NULL;
    if (r) return r;
    b->shadow_valid = false; /* until the shadow pass draws or keeps a map */
    return OAK_OK;
}
