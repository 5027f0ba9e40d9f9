/* The shadow pass on Vulkan: per cascade, its static casters (plain, then
 * masked) into its tile of the cached static atlas only when the view's
 * static_key moved on (or only its dirty rectangles, scissored, when just
 * some casters changed), the tile copied into the sampled atlas when it must
 * be (vkCmdCopyImage), and the cascade's movers drawn over it; a cascade
 * whose map already equals its layer is not touched (docs/SHADING.md
 * "Cascade caching"). The natively drawn streams' small bands are
 * rasterized in compute first and merged into the tile in the same
 * rendering (vk_craster.c, docs/ARCHITECTURE.md "Compute rasterization").
 * Barriers come from the tracker, use by use. */
#include "vk_internal.h"

/* One tile (x, y, size) of a depth atlas as a rendering: cleared first, or
   drawn over. */
static void begin_tile(VkCommandBuffer cmd, const _oak_vk_image *img, VkRect2D area, bool clear) {
    _oak_vk_begin_rendering(cmd, NULL, false, img, clear, area);
    /* the whole atlas: shadow.vert places each cascade in its tile; positive
       height, so map row 0 is clip y = -1 as the contract reads it */
    VkViewport vp = {0, 0, (float)img->width, (float)img->height, 0, 1};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &area);
}

static VkRect2D tile_rect(uint32_t c, uint32_t size) {
    return (VkRect2D){{(int32_t)((c & 1) * size), (int32_t)((c >> 1) * size)}, {size, size}};
}

static void draw_pair(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t c, bool mover) {
    uint32_t g0 = OAK_VK_SHADOW_GROUP(c, mover ? 1 : 0, 0), g1 = g0 + 1;
    _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_SHADOW, vk->shadow_first[g0], vk->shadow_count[g0]);
    _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_SHADOW_MASKED, vk->shadow_first[g1],
                       vk->shadow_count[g1]);
    /* cluster-LOD casters: their cascade's cut (vk_meshcull.c) */
    _oak_vk_meshcull_shadow_draw(vk, cmd, f, g0, OAK_VK_PIPE_SHADOW);
    _oak_vk_meshcull_shadow_draw(vk, cmd, f, g1, OAK_VK_PIPE_SHADOW_MASKED);
}

/* Maps cut into a static layer and movers, as render/shadow_layer.h plans
   them: `count` tiles of `layer` and `map` (same size and format), tile i
   at rects[i], drawn by draw(i, mover). Static layers first (each tile
   cleared and drawn in a rendering of its own), then every copy in one
   vkCmdCopyImage, then the movers over the copies in one rendering. A lamp
   atlas's faces can go through the same steps. */
void _oak_vk_shadow_layered(_oak_vk *vk, _oak_vk_frame *f, oak_target_id layer_target,
                            oak_target_id map_target, uint32_t count, const VkRect2D *rects,
                            const oak_shadow_layer_plan *plans, oak_shadow_stats *stats,
                            void (*draw)(_oak_vk *vk, _oak_vk_frame *f, uint32_t i, bool mover)) {
    VkCommandBuffer cmd = f->cmd;
    _oak_vk_image *layer = _oak_vk_target_image(vk, layer_target);
    _oak_vk_image *map = _oak_vk_target_image(vk, map_target);
    if (!layer || !map) return;
    bool any_static = false, any_copy = false, any_movers = false;
    for (uint32_t i = 0; i < count; i++) {
        any_static |= plans[i].draw_static;
        any_copy |= plans[i].copy;
        any_movers |= plans[i].draw_movers;
    }
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    if (any_static) {
        _oak_vk_track_use(vk, cmd, layer_target, OAK_USE_DEPTH_DRAW);
        for (uint32_t i = 0; i < count; i++) {
            if (!plans[i].draw_static) continue;
            if (!plans[i].partial) {
                begin_tile(cmd, layer, rects[i], true);
                draw(vk, f, i, false);
                vkCmdEndRendering(cmd);
            } else if (plans[i].rect_count) {
                /* only the dirty rectangles (or their box): each cleared,
                   then every static caster drawn again through it as the
                   scissor (depth is the largest cast, so the texels
                   outside hold) */
                uint16_t sc[OAK_SHADOW_DIRTY_RECTS][4];
                uint32_t passes = _oak_shadow_plan_scissors(&plans[i], sc);
                begin_tile(cmd, layer, rects[i], false);
                for (uint32_t k = 0; k < passes; k++) {
                    const uint16_t *d = sc[k];
                    VkRect2D dr = {{rects[i].offset.x + d[0], rects[i].offset.y + d[1]},
                                   {(uint32_t)(d[2] - d[0]), (uint32_t)(d[3] - d[1])}};
                    VkClearAttachment ca = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, {.depthStencil = {0, 0}}};
                    VkClearRect cr = {dr, 0, 1};
                    vkCmdClearAttachments(cmd, 1, &ca, 1, &cr);
                    vkCmdSetScissor(cmd, 0, 1, &dr);
                    draw(vk, f, i, false);
                }
                vkCmdEndRendering(cmd);
                stats->dirty_texels += _oak_shadow_rects_texels((const uint16_t(*)[4])sc, passes);
            }
            if (plans[i].partial) stats->partial_layers++;
            stats->static_layers++;
            if (i < 32) stats->redrawn_mask |= 1u << i;
        }
    }
    if (any_copy) {
        _oak_vk_track_use(vk, cmd, layer_target, OAK_USE_COPY_READ);
        _oak_vk_track_use(vk, cmd, map_target, OAK_USE_COPY_WRITE);
        VkImageCopy regions[16]; /* copied in batches of this many tiles */
        uint32_t n = 0;
        for (uint32_t i = 0; i < count; i++) {
            if (plans[i].copy) {
                VkImageSubresourceLayers sub = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1};
                VkOffset3D at = {rects[i].offset.x, rects[i].offset.y, 0};
                regions[n++] = (VkImageCopy){
                    sub, at, sub, at, {rects[i].extent.width, rects[i].extent.height, 1}};
                stats->layer_copies++;
            }
            if (n && (n == 16 || i + 1 == count)) {
                vkCmdCopyImage(cmd, layer->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, map->image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, n, regions);
                n = 0;
            }
        }
    }
    if (any_movers) {
        _oak_vk_track_use(vk, cmd, map_target, OAK_USE_DEPTH_DRAW);
        VkRect2D all = {{0, 0}, {map->width, map->height}};
        begin_tile(cmd, map, all, false);
        for (uint32_t i = 0; i < count; i++)
            if (plans[i].draw_movers) draw(vk, f, i, true);
        vkCmdEndRendering(cmd);
    }
}

static void draw_cascade(_oak_vk *vk, _oak_vk_frame *f, uint32_t c, bool mover) {
    draw_pair(vk, f->cmd, f, c, mover);
    /* vk_pass_instcull.c: but the bands the compute raster drew ... */
    _oak_vk_draw_stream_casters(vk, f->cmd, f, c, mover);
    _oak_vk_craster_shadow_merge(vk, f->cmd, f, c, mover); /* ... whose texels go in here */
}

oak_result _oak_vk_run_shadow(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint32_t n = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
    uint32_t size = vk->shadow.width / 2;
    VkRect2D rects[OAK_MAX_CASCADES];
    oak_shadow_layer_plan plans[OAK_MAX_CASCADES];
    for (uint32_t c = 0; c < n; c++) {
        uint32_t stream_movers = _oak_vk_stream_movers(f, c);
        uint32_t movers = vk->shadow_count[OAK_VK_SHADOW_GROUP(c, 1, 0)] +
                          vk->shadow_count[OAK_VK_SHADOW_GROUP(c, 1, 1)] +
                          vk->mcs_count[OAK_VK_SHADOW_GROUP(c, 1, 0)] +
                          vk->mcs_count[OAK_VK_SHADOW_GROUP(c, 1, 1)] + stream_movers;
        const oak_shadow_cascade *cd = &v->cascades[c];
        plans[c] = _oak_shadow_layer_plan_dirty(&vk->shadow_layer[c], cd->static_key,
                                                cd->dirty_base, cd->dirty_count,
                                                (const uint16_t(*)[4])cd->dirty, movers, false);
        rects[c] = tile_rect(c, size);
        /* counted as casters, not as the instanced commands they became */
        if (movers) {
            const oak_shadow_cascade *cas = &v->cascades[c];
            /* a native stream that moved counts once (its cascade's multi-draw) */
            vk->shadow_stats.mover_draws += cas->caster_count - cas->static_count + stream_movers;
        }
    }
    /* small stream casters in compute first, for what the plans draw (vk_craster.c) */
    _oak_vk_craster_shadow_run(vk, f, v, plans, n);
    _oak_vk_shadow_layered(vk, f, OAK_TARGET_SHADOW_STATIC, OAK_TARGET_SHADOW_MAP, n, rects, plans,
                           &vk->shadow_stats, draw_cascade);
    return OAK_OK;
}
