/* Private to render/: reflection probes' bakes and the view's probes
 * (render/probe_bake.c). */
#ifndef OAK_PROBE_BAKE_H
#define OAK_PROBE_BAKE_H

#include <oak/backend.h>

typedef struct oak_probe_cache oak_probe_cache;

/* After the main view is built, before it is drawn: checks the input's
   probes (one-line errors), bakes those new, moved or under a changed sky
   through the renderer's backend, and fills the view's probe fields. */
oak_result _oak_probes_update(oak_renderer *r, const oak_frame_input *in);
void _oak_probe_cache_release(oak_probe_cache *c);

#endif
