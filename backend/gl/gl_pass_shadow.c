/* The shadow pass on OpenGL: per cascade, its static casters into its tile
 * of the cached static atlas only when the view's static_key moved on (or
 * only its dirty rectangles, scissored, when just some casters changed), the
 * tile copied into the sampled atlas when it must be (glCopyImageSubData),
 * and the cascade's movers drawn over it (docs/SHADING.md "Cascade
 * caching"). Casters are multi-draw indirect, each clipped to its cascade's
 * tile by the vertex shader, with the lower-left origin so that row 0 is
 * clip y = -1 (docs/SHADING.md). The natively drawn streams' small bands
 * are rasterized in compute first and merged into the tile after the
 * casters (gl_craster.c, docs/ARCHITECTURE.md "Compute rasterization"). */
#include "gl_gpu.h"

void _oak_gl_shadow_layered(_oak_gl_frame *f, GLuint layer_tex, GLuint layer_fbo, GLuint map_tex,
                            GLuint map_fbo, uint32_t atlas, uint32_t count,
                            const _oak_gl_rect *rects, const oak_shadow_layer_plan *plans,
                            oak_shadow_stats *stats,
                            void (*draw)(_oak_gl_frame *f, uint32_t i, bool mover, void *user),
                            void *user) {
    float zero = 0;
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    glViewport(0, 0, (GLsizei)atlas, (GLsizei)atlas); /* the whole atlas */
    glDepthMask(GL_TRUE);
    for (int k = 0; k < 4; k++) glEnable(GL_CLIP_DISTANCE0 + k);
    /* static layers: each tile cleared (the scissor bounds the clear) and drawn */
    glBindFramebuffer(GL_FRAMEBUFFER, layer_fbo);
    glEnable(GL_SCISSOR_TEST);
    for (uint32_t i = 0; i < count; i++) {
        if (!plans[i].draw_static) continue;
        if (!plans[i].partial) {
            glScissor(rects[i].x, rects[i].y, (GLsizei)rects[i].size, (GLsizei)rects[i].size);
            glClearNamedFramebufferfv(layer_fbo, GL_DEPTH, 0, &zero);
            draw(f, i, false, user);
        } else {
            /* only the dirty rectangles (or their box): each cleared, then
               every static caster drawn again through it as the scissor
               (depth is the largest cast, so the texels outside hold); the
               lower-left origin puts map row 0 at window row 0 */
            uint16_t sc[OAK_SHADOW_DIRTY_RECTS][4];
            uint32_t passes = _oak_shadow_plan_scissors(&plans[i], sc);
            for (uint32_t k = 0; k < passes; k++) {
                const uint16_t *d = sc[k];
                glScissor(rects[i].x + d[0], rects[i].y + d[1], (GLsizei)(d[2] - d[0]),
                          (GLsizei)(d[3] - d[1]));
                glClearNamedFramebufferfv(layer_fbo, GL_DEPTH, 0, &zero);
                draw(f, i, false, user);
            }
            stats->partial_layers++;
            stats->dirty_texels += _oak_shadow_rects_texels((const uint16_t(*)[4])sc, passes);
        }
        stats->static_layers++;
        if (i < 32) stats->redrawn_mask |= 1u << i;
    }
    glDisable(GL_SCISSOR_TEST);
    for (uint32_t i = 0; i < count; i++) {
        if (!plans[i].copy) continue;
        glCopyImageSubData(layer_tex, GL_TEXTURE_2D, 0, rects[i].x, rects[i].y, 0, map_tex,
                           GL_TEXTURE_2D, 0, rects[i].x, rects[i].y, 0, (GLsizei)rects[i].size,
                           (GLsizei)rects[i].size, 1);
        stats->layer_copies++;
    }
    glBindFramebuffer(GL_FRAMEBUFFER, map_fbo);
    for (uint32_t i = 0; i < count; i++)
        if (plans[i].draw_movers) draw(f, i, true, user);
    for (int k = 0; k < 4; k++) glDisable(GL_CLIP_DISTANCE0 + k);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

/* First command at or after caster `at` in f->cmds[lo, hi), which holds one
   group's commands in caster order. */
static uint32_t command_at(const _oak_gl_frame *f, uint32_t lo, uint32_t hi, uint32_t at) {
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (f->cmds[mid].base_instance < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Casters [begin, end) of the view (one cascade's static ones or its movers). */
static void draw_casters(_oak_gl_frame *f, uint32_t begin, uint32_t end) {
    const uint32_t *g = f->shadow_groups;
    for (int k = 0; k < 4; k++) { /* groups 0-3: casters are never BLEND */
        uint32_t lo = command_at(f, g[k], g[k + 1], begin), hi = command_at(f, g[k], g[k + 1], end);
        if (hi <= lo) continue;
        glUseProgram(k >= 2 ? f->prog_shadow_mask : f->prog_shadow);
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                    (const void *)(uintptr_t)(lo * sizeof(_oak_gl_command)),
                                    (GLsizei)(hi - lo), 0);
    }
}

static void draw_cascade(_oak_gl_frame *f, uint32_t c, bool mover, void *user) {
    const oak_shadow_cascade *cas = &((const oak_render_view *)user)->cascades[c];
    uint32_t split = cas->first_caster + cas->static_count;
    if (mover)
        draw_casters(f, split, cas->first_caster + cas->caster_count);
    else
        draw_casters(f, cas->first_caster, split);
    _oak_gl_meshcull_shadow_draw(f, c, mover); /* cluster-LOD casters' cuts (gl_meshcull.c) */
    /* gl_pass_instcull.c: but the bands the compute raster drew ... */
    _oak_gl_draw_stream_casters(f, c, mover);
    _oak_gl_craster_shadow_merge(f, c, mover); /* ... whose texels go in here */
}

oak_result _oak_gl_run_shadow(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    uint32_t n = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
    uint32_t size = f->shadow_size / 2;
    _oak_gl_rect rects[OAK_MAX_CASCADES];
    oak_shadow_layer_plan plans[OAK_MAX_CASCADES];
    for (uint32_t c = 0; c < n; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        /* movers that draw: those with a command (not NO_SHADOW, not empty) */
        uint32_t movers = 0, split = cas->first_caster + cas->static_count;
        for (int k = 0; k < 4; k++) {
            const uint32_t *g = f->shadow_groups;
            movers += command_at(f, g[k], g[k + 1], cas->first_caster + cas->caster_count) -
                      command_at(f, g[k], g[k + 1], split);
            movers += f->mcs_count[c * 8 + 4 + (uint32_t)k]; /* cut casters (gl_meshcull.c) */
        }
        uint32_t stream_movers = _oak_gl_stream_movers(f, c);
        plans[c] = _oak_shadow_layer_plan_dirty(
            &f->shadow_layer[c], cas->static_key, cas->dirty_base, cas->dirty_count,
            (const uint16_t(*)[4])cas->dirty, movers + stream_movers, false);
        rects[c] = (_oak_gl_rect){(int32_t)((c & 1) * size), (int32_t)((c >> 1) * size), size};
        /* a native stream that moved counts once (its cascade's multi-draw) */
        if (plans[c].draw_movers) f->shadow_stats.mover_draws += movers + stream_movers;
    }
    _oak_gl_bind_common(f, &f->casters);
    /* small stream casters in compute first, for what the plans draw (gl_craster.c) */
    oak_result r = _oak_gl_craster_shadow_run(b, v, plans, n);
    if (r) return r;
    glBindVertexArray(f->vao);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    glDisable(GL_CULL_FACE); /* casters draw both faces */
    _oak_gl_shadow_layered(f, f->static_tex, f->static_fbo, f->shadow_tex, f->shadow_fbo,
                           f->shadow_size, n, rects, plans, &f->shadow_stats, draw_cascade,
                           (void *)v);
    return OAK_OK;
}
