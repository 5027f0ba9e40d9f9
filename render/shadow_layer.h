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
} oak_shadow_layer_plan;

/* The plan for this frame, and the state after it. key: the view's key for
   the layer (0: unknown, always redrawn); movers: movers to draw over it;
   sample_layer: the backend can sample the layer itself when no mover is
   drawn (the CPU's per-cascade pointer), so it never copies for nothing. */
static inline oak_shadow_layer_plan _oak_shadow_layer_plan(oak_shadow_layer *s, uint64_t key,
                                                           uint32_t movers, bool sample_layer) {
    oak_shadow_layer_plan p;
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

/* Forget the layer (a new map size, a lost image). */
static inline void _oak_shadow_layer_reset(oak_shadow_layer *s) {
    s->key = 0;
    s->map_differs = true;
}

#endif
