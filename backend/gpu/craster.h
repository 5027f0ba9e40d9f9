/* Compute rasterization of small stream triangles (docs/ARCHITECTURE.md
 * "Compute rasterization"): which LOD bands of the natively drawn instance
 * streams a GPU backend rasterizes in compute, one rule for Vulkan and GL. */
#ifndef OAK_GPU_CRASTER_H
#define OAK_GPU_CRASTER_H

#include <oak/backend.h>

#include "render/shadow_layer.h"
#include "shaders/common/oak_gpu.h"

typedef enum _oak_craster_mode {
    OAK_CRASTER_MODE_OFF, /* the hardware raster draws every band */
    OAK_CRASTER_MODE_ON,  /* bands whose triangles are small (the default) */
    OAK_CRASTER_MODE_ALL, /* every band that may go (tests, measuring) */
} _oak_craster_mode;

/* OAK_CRASTER in the environment: off, on or all (unset: on; anything else
   warns once and reads as on). */
_oak_craster_mode _oak_craster_mode_get(void);
const char *_oak_craster_mode_name(_oak_craster_mode m);
/* OAK_CRASTER_MASK in the environment: whether MASK (cut-out) bands may
   go to compute (unset or on: yes; off: opaque bands only; anything else
   warns once and reads as on). */
bool _oak_craster_mask_get(void);
/* OAK_CRASTER_PIXELS in the environment (a positive number), else the
   config constant of that name. */
float _oak_craster_pixels(void);
/* OAK_CRASTER_INSTANCE_PIXELS in the environment (a positive number), else
   _oak_craster_pixels(): the per-instance split's threshold, apart from the
   band rule's so that each can be measured on its own. */
float _oak_craster_instance_pixels(void);
/* The most work groups of 64 one band gets: OAK_CRASTER_GROUPS from the
   environment (a positive number, at most 65535), else
   OAK_GPU_CRASTER_GROUPS; the shader's grid-stride loop covers the rest.
   The camera's plan on the GPU (craster_plan.comp) gives each band
   ceil(visible items / 64) up to it. */
uint32_t _oak_craster_group_cap(void);
/* Work groups of 64 across one row of the cascades' dispatch for `most`
   items: enough for them all, at most _oak_craster_group_cap(). Every row
   is as wide as the widest row's worst case (its stream's whole count), so
   the cap bounds the groups that find nothing to do. */
uint32_t _oak_craster_groups(uint64_t most);
/* OAK_CRASTER_INSTANCE in the environment: whether the per-instance split
   runs under OAK_CRASTER=on (unset or on: yes; off: per band only, for
   measuring; anything else warns once and reads on). */
bool _oak_craster_instance_get(void);
/* The band rule per instance: the distance from the eye (per unit of the
   instance's scale) from which a band's triangles (the sphere's diameter
   over sqrt(triangles)) are at most `pixels` across in view v; 0 for an
   orthographic view or an empty band. */
float _oak_craster_small_at(const oak_render_view *v, float radius, uint32_t triangles,
                            float pixels);
/* Whether stream rs's LOD band k (a mesh of `triangles` triangles in a
   sphere of `radius`) is small in view v under mode m: its triangles at
   most `pixels` across (the sphere's diameter over sqrt(triangles)) at the
   band's nearest distance, which lies clear of the near plane. Perspective
   views only; an instance's own scale is not looked at (taken as 1). */
bool _oak_craster_small(const oak_render_view *v, const oak_render_stream *rs, uint32_t k,
                        float radius, uint32_t triangles, float pixels, _oak_craster_mode m);
/* The same rule for a shadow cascade (orthographic, so no distance): a
   triangle of the band (the sphere's diameter over sqrt(triangles)) at
   most `pixels` of the cascade's texels (texel_world metres each) across.
   Every band of every cascade may go, the near one too. */
bool _oak_craster_shadow_small(const oak_shadow_cascade *c, float radius, uint32_t triangles,
                               float pixels, _oak_craster_mode m);
/* What a backend's instcull pass left that the plans read: the view, its
   instcull heads, each stream's group (bit 0 double-sided, bit 1 MASK,
   above 3: not drawn from the lists) and mover flag, the streams taken, and the backend's LOD
   meshes: mesh() gives a mesh's index count, first index and base vertex (false: none on the
   backend). */
typedef struct _oak_craster_streams {
    const oak_render_view *v;
    const oak_gpu_instcull *heads;
    const uint32_t *group;
    const bool *moved;
    uint32_t count;
    bool (*mesh)(void *user, oak_mesh mesh, uint32_t out[3]);
    void *user;
} _oak_craster_streams;
/* The per-instance split (OAK_CRASTER=on and OAK_CRASTER_INSTANCE on):
   for each band of a stream without two-pass Hi-Z that may go but that
   _oak_craster_small leaves on the hardware, heads[s].small_at[k] (the
   distance per unit of scale from which an instance is small, instcull's
   SMALL list), 0 elsewhere; run on the instcull pass's heads (`heads`, the
   same records as in->heads, written before the GPU reads them) once they
   are filled, before the plan. Returns the per-instance bands. */
uint32_t _oak_craster_split(const _oak_craster_streams *in, oak_gpu_instcull *heads);
/* The camera's plan (oak_gpu.h "Compute rasterization"): the bands of the
   opaque or MASK (_oak_craster_mask_get), rigid streams drawn from the
   lists, before a card, that
   _oak_craster_small takes, into table (1 + 2 bands rows, the first the
   count and the target's width x height), their LODs' bits in lods (set,
   never cleared); and per (stream, LOD) whose head has small_at > 0
   (_oak_craster_split, in the same order) a band of its SMALL list, no bit
   in lods, counted in *split. No band is left out for its item count: the
   GPU numbers the items and sizes the work from the visible counts
   (craster_plan.comp, oak_gpu.h OAK_GPU_CRASTER_PLAN). Returns the bands,
   both kinds. */
uint32_t _oak_craster_plan(const _oak_craster_streams *in, uint32_t width, uint32_t height,
                           uint32_t (*table)[4], uint8_t lods[OAK_STREAM_MAX_PER_VIEW],
                           uint32_t *split);
/* The cascades' plan: per cascade the bands the camera's rule would take
   that _oak_craster_shadow_small takes, of the kind (static or mover) its
   layer plan draws this frame, as (band, cascade) rows into table (the
   first row the count and a region's side, `size`); their LODs' bits in
   lods, their regions (cascade x 2 + mover) in *regions (both set, never
   cleared), the most items of one row by whole counts in *most (the
   shader draws a row's visible items, cut at OAK_GPU_CRASTER_ITEMS). */
uint32_t _oak_craster_shadow_plan(const _oak_craster_streams *in,
                                  const oak_shadow_layer_plan *plans, uint32_t cascades,
                                  uint32_t size, uint32_t (*table)[4],
                                  uint8_t lods[OAK_MAX_CASCADES][OAK_STREAM_MAX_PER_VIEW],
                                  uint32_t *regions, uint64_t *most);
/* `oak info`'s words for the kinds of band that may go: opaque and MASK,
   or opaque only (OAK_CRASTER_MASK=off). */
const char *_oak_craster_kinds(void);
/* `oak info`'s words for the per-instance split (`possible`: the backend
   has a compute raster). */
const char *_oak_craster_instance_words(bool possible);
/* `oak info`'s words for the cascades' compute raster: which bands go and
   why, or why none (`has_int64` false: the edge functions' 64-bit
   integers, named `what`). */
const char *_oak_craster_shadow_words(bool has_int64, const char *what);

#endif
