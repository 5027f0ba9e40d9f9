/* Private to render/: the renderer object and backend lookup. */
#ifndef OAK_RENDERER_INTERNAL_H
#define OAK_RENDERER_INTERNAL_H

#include "frontend.h"
#include "probe_bake.h"

#define OAK_MAX_STAGES 64 /* frontend, the passes and their parts, the CPU's busy.tN */

struct oak_renderer {
    const oak_backend *backend;
    void *self;
    oak_backend_desc desc;
    oak_frontend frontend;
    oak_stage_timing timings[OAK_MAX_STAGES];
    uint32_t timing_count;
    char fallback[512];
    uint64_t frame;
    bool drawn;
    bool upsampled; /* the last frame's picture is output-sized (scale 1, or TAA upsampled) */
    oak_probe_cache *probes; /* NULL until a frame lists a probe */
    uint64_t probe_bakes;    /* reflection probe bakes so far */
    bool probes_warned;      /* said once that the backend cannot bake them */
    bool adapting;           /* the last frame drawn ran eye adaptation */
    /* render scale: desc holds the backend's (render) size, these the output's */
    uint32_t out_width, out_height;
    float scale;         /* the last frame's adopted render scale */
    oak_channel channel; /* the last frame's capture channel */
    oak_occlusion_mode occlusion;
    uint8_t *scaled; /* the render-size picture before its stretch, then column taps */
    size_t scaled_size;
    oak_window_hooks window; /* oak_renderer_attach_window's (desc.window points here) */
};

const oak_backend *_oak_backend_find(const char *name);
/* The cascades' size a renderer desc asks for: its own, else its
   preset's (render/quality.c). */
uint32_t _oak_quality_shadow_map_size(const oak_renderer_desc *desc);
const oak_backend *_oak_backend_at(uint32_t index);

#endif
