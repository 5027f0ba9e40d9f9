/* A raster pass's target and draw list on the CPU backend: the shadow map,
 * the visibility buffer and the BLEND draws all go through these. Filling a
 * list runs on the job pool; the order of the list is the raster order. */
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "cpu_internal.h"

/* Asks the kernel to back [ptr, ptr + bytes) with huge pages (Linux with
   transparent huge pages set to "madvise" or "always"; elsewhere, or
   under $OAK_CPU_NO_HUGE, nothing), for the arrays of tens of MB that a
   frame walks out of the caches: the vertex stage's clip positions and
   snapped points (32 bytes a vertex, read back through the indices), the
   textures' texels and the shadow maps. On 4 KiB pages most of the vertex
   stage's time was TLB misses on the development machine, a virtual
   machine (docs/PERFORMANCE.md, grass44). Only the mapping changes: no
   value read or written. */
void _oak_cpu_huge_pages(const cpu_backend *b, void *ptr, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t page = 4096, huge = (uintptr_t)2 << 20;
    uintptr_t a = ((uintptr_t)ptr + page - 1) & ~(page - 1);
    uintptr_t e = ((uintptr_t)ptr + bytes) & ~(page - 1);
    if (!b->no_huge && ptr && e > a && e - a >= huge)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* a hint: refused is as before */
#else
    (void)b, (void)ptr, (void)bytes;
#endif
}

size_t _oak_cpu_tiled_pixels(uint32_t w, uint32_t h) {
    return (size_t)((w + CPU_TILE - 1) / CPU_TILE) * ((h + CPU_TILE - 1) / CPU_TILE) *
           CPU_TILE_PIXELS;
}

void _oak_cpu_pass_target(cpu_pass *p, uint32_t w, uint32_t h, bool flip, const float jitter[2],
                          float *depth, uint32_t *ids) {
    p->width = w;
    p->height = h;
    p->tiles_x = (w + CPU_TILE - 1) / CPU_TILE;
    p->tiles_y = (h + CPU_TILE - 1) / CPU_TILE;
    p->cx = (int32_t)(w / 2);
    p->cy = (int32_t)(h / 2);
    p->flip_y = flip;
    p->jitter[0] = jitter ? jitter[0] : 0;
    p->jitter[1] = jitter ? jitter[1] : 0;
    p->depth = depth;
    p->ids = ids;
    p->keep = false;
}

bool _oak_cpu_pass_add(cpu_pass *p, uint32_t src) {
    if (!OAK_GROW(p->draws, p->draw_cap, p->draw_count + 1)) return false;
    p->draws[p->draw_count++].src = src;
    return true;
}

typedef struct fill_ctx {
    cpu_backend *b;
    cpu_pass *p;
    const oak_draw_list *l;
    bool cull_ok;
} fill_ctx;

/* Resolves mirrors and matrices of a pass's draws, on the job pool: with a
   hundred thousand draws this is too much for one thread. */
static void fill_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    fill_ctx *f = user;
    cpu_backend *b = f->b;
    const oak_draw_list *l = f->l;
    const float *cam = b->view->camera_pos;
    for (uint32_t i = begin; i < end; i++) {
        cpu_draw *d = &f->p->draws[i];
        uint32_t src = d->src;
        d->mesh = (uint32_t)_oak_cpu_mesh_index(b, l->mesh[src]);
        d->material = (uint32_t)_oak_cpu_material_index(b, l->material[src]);
        d->flags = l->flags ? l->flags[src] : 0;
        for (int k = 0; k < 4; k++) d->color[k] = l->color ? l->color[src][k] : 1.0f;
        /* posed only where the mirror has the skin (else the rest pose) */
        const cpu_mesh *cm = &b->meshes[d->mesh];
        d->pose = l->pose && cm->joints ? l->pose[src] : NULL;
        d->pose_floats = d->pose ? (uint32_t)d->pose[-1] * 12 : 0;
        if (!d->pose && cm->palette && cm->joints) {
            /* a mesh posed by its palette: last frame's pose is the one
               before only where the frontend says it moved since
               (OAK_DRAW_PREV_POSE), else this one (offset 0) */
            d->pose = cm->palette + 1;
            d->pose_floats = d->flags & OAK_DRAW_PREV_POSE ? (uint32_t)cm->palette[0] * 12 : 0;
        }
        d->uv_offset = d->pose && (d->flags & OAK_DRAW_IMPOSTOR) ? d->pose + 12 : NULL;
        const oak_material_desc *md = &b->materials[d->material].desc;
        d->cull = f->cull_ok && !md->double_sided;
        d->mask = md->alpha_mode == OAK_ALPHA_MASK;
        glm_mat4_copy(l->world[src], d->world);
        glm_mat4_mul(f->p->view_proj, d->world, d->mvp);
        mat3 m3, inv;
        glm_mat4_pick3(d->world, m3);
        glm_mat3_inv(m3, inv);
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) d->nmat[k * 3 + j] = inv[k][j];
        const oak_bounds *bb = &b->meshes[d->mesh].bounds;
        vec4 c = {bb->center[0], bb->center[1], bb->center[2], 1}, wc;
        glm_mat4_mulv(d->world, c, wc);
        d->sort_key = (wc[0] - cam[0]) * (wc[0] - cam[0]) + (wc[1] - cam[1]) * (wc[1] - cam[1]) +
                      (wc[2] - cam[2]) * (wc[2] - cam[2]);
    }
}

void _oak_cpu_pass_fill(cpu_backend *b, cpu_pass *p, const oak_draw_list *l, bool cull_ok) {
    fill_ctx f = {b, p, l, cull_ok};
    oak_parallel_for(p->draw_count, 256, fill_job, &f);
}
