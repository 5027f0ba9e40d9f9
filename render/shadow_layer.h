/* Shadow caching, shared by every backend and by any map cut into a static
 * layer and movers (the sun's cascades, a lamp's faces): what to redraw,
 * copy and draw over this frame, from the layer's key and its movers. */
#ifndef OAK_SHADOW_LAYER_H
#define OAK_SHADOW_LAYER_H

#include <oak/config.h>
#include <stdbool.h>
#include <stdint.h>

/* The PCF taps a side a view asks for (oak_post.shadow_filter, filled by
   the preset): 1 .. OAK_SHADOW_PCF_SIZE; 0 (a view built by hand) and
   anything larger read as the widest. */
static inline uint32_t _oak_shadow_pcf(uint32_t filter) {
    return filter >= 1 && filter <= OAK_SHADOW_PCF_SIZE ? filter : OAK_SHADOW_PCF_SIZE;
}

/* One map's cache state on a backend: what its static layer holds and
   whether the map the shaders sample still equals it. Zero: nothing held. */
typedef struct oak_shadow_layer {
    uint64_t key;     /* the static_key it was drawn for; 0: none */
    bool map_differs; /* the sampled map is not a copy of the layer (movers, or never copied) */
} oak_shadow_layer;

typedef struct oak_shadow_layer_plan {
    bool draw_static; /* clear the static layer and draw the static casters into it */
    bool copy;        /* copy the layer into the sampled map */
    bool draw_movers; /* draw the movers over the sampled map */
    /* with draw_static: redraw only rects[0 .. rect_count) of the layer
       (oak_shadow_cascade.dirty: clear each, draw the static casters over
       it scissored), the rest of the layer holds */
    bool partial;
    uint32_t rect_count;
    uint16_t rects[OAK_SHADOW_DIRTY_RECTS][4];
} oak_shadow_layer_plan;

/* The plan for this frame, and the state after it. key: the view's key for
   the layer (0: unknown, always redrawn); movers: movers to draw over it;
   sample_layer: the backend can sample the layer itself when no mover is
   drawn (the CPU's per-cascade pointer), so it never copies for nothing. */
static inline oak_shadow_layer_plan _oak_shadow_layer_plan(oak_shadow_layer *s, uint64_t key,
                                                           uint32_t movers, bool sample_layer) {
    oak_shadow_layer_plan p = {0};
    p.draw_static = key == 0 || key != s->key;
    p.draw_movers = movers > 0;
    if (sample_layer)
        p.copy = p.draw_movers;
    else /* the sampled map must end up as layer + movers */
        p.copy = p.draw_movers || p.draw_static || s->map_differs;
    s->key = key;
    s->map_differs = sample_layer ? false : p.draw_movers;
    return p;
}

/* _oak_shadow_layer_plan for a cascade: a layer that holds the cascade's
   dirty_base is brought to its key by its dirty rectangles alone. */
static inline oak_shadow_layer_plan
_oak_shadow_layer_plan_dirty(oak_shadow_layer *s, uint64_t key, uint64_t dirty_base,
                             uint32_t dirty_count, const uint16_t (*dirty)[4], uint32_t movers,
                             bool sample_layer) {
    bool partial = key != 0 && dirty_base != 0 && s->key == dirty_base && key != dirty_base &&
                   dirty_count <= OAK_SHADOW_DIRTY_RECTS;
    oak_shadow_layer_plan p = _oak_shadow_layer_plan(s, key, movers, sample_layer);
    if (partial && p.draw_static) {
        p.partial = true;
        p.rect_count = dirty_count;
        for (uint32_t i = 0; i < dirty_count; i++)
            for (int k = 0; k < 4; k++) p.rects[i][k] = dirty[i][k];
    }
    return p;
}

/* Texels of rects[0 .. count) summed. */
static inline uint32_t _oak_shadow_rects_texels(const uint16_t (*rects)[4], uint32_t count) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++)
        n += (uint32_t)(rects[i][2] - rects[i][0]) * (uint32_t)(rects[i][3] - rects[i][1]);
    return n;
}

/* The scissors a GPU backend clears and draws a partial plan's static
   casters through: the rectangles' bounding box as one (one pass over the
   casters) while it holds at most twice their texels, else each rectangle
   (a pass each). Returns how many it wrote to out. */
static inline uint32_t _oak_shadow_plan_scissors(const oak_shadow_layer_plan *p,
                                                 uint16_t out[OAK_SHADOW_DIRTY_RECTS][4]) {
    if (!p->rect_count) return 0;
    uint16_t box[4] = {p->rects[0][0], p->rects[0][1], p->rects[0][2], p->rects[0][3]};
    for (uint32_t i = 1; i < p->rect_count; i++)
        for (int k = 0; k < 4; k++)
            box[k] = k < 2 ? (p->rects[i][k] < box[k] ? p->rects[i][k] : box[k])
                           : (p->rects[i][k] > box[k] ? p->rects[i][k] : box[k]);
    const uint16_t(*rects)[4] = (const uint16_t(*)[4])p->rects;
    if (_oak_shadow_rects_texels((const uint16_t(*)[4]) & box, 1) <=
        2 * _oak_shadow_rects_texels(rects, p->rect_count)) {
        for (int k = 0; k < 4; k++) out[0][k] = box[k];
        return 1;
    }
    for (uint32_t i = 0; i < p->rect_count; i++)
        for (int k = 0; k < 4; k++) out[i][k] = p->rects[i][k];
    return p->rect_count;
}

/* Forget the layer (a new map size, a lost image). */
static inline void _oak_shadow_layer_reset(oak_shadow_layer *s) {
    s->key = 0;
    s->map_differs = true;
}

#endif
