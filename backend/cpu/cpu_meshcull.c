/* Per-meshlet culling on the CPU backend (docs/ARCHITECTURE.md "Meshlet
 * culling"): each plain draw's meshlets tested against the frustum and their
 * normal cones on the job pool before the camera pass's set-up, which then
 * skips the triangles of the meshlets culled. The kept triangles are set up
 * in the order they had, so the picture is the same byte for byte. */
#include <math.h>
#include <string.h>

#include "backend/gpu/meshcull.h"
#include "cpu_internal.h"

static oak_result mesh_meshlets(cpu_mesh *m, oak_mesh h, const oak_mesh_data *d) {
    m->ml_count = 0;
    uint32_t tris = m->index_count / 3;
    if (!_oak_meshcull_enabled() || !_oak_meshcull_mesh_ok(d) || !tris ||
        !_oak_meshcull_cut_ready(d))
        return OAK_OK;
    const oak_meshlets *ml = NULL;
    if (oak_mesh_meshlets(h, &ml) != OAK_OK || !_oak_meshcull_worth(ml) || ml->count > UINT16_MAX)
        return OAK_OK; /* drawn uncut */
    uint32_t *tri_of = oak_alloc((size_t)tris * sizeof(uint32_t));
    if (!tri_of) return OAK_ERROR_OUT_OF_MEMORY;
    oak_result r = OAK_OK;
    /* a cluster-LOD mesh's index list is its meshlets' triangles in order
       (asset/clod.c), and a triangle left whole by a level's simplification
       is listed once per level: mapped as laid out */
    bool mapped = d->finest_index_count && ml->count && 3ull * tris == d->index_count;
    for (uint32_t k = 0; mapped && k < tris; k++) tri_of[k] = k;
    if (mapped || _oak_meshcull_triangle_map(tri_of, ml, m->indices, tris)) {
        if (!OAK_GROW(m->ml, m->ml_cap, ml->count) || !OAK_GROW(m->tri_ml, m->tri_ml_cap, tris) ||
            !OAK_GROW(m->ml_verts, m->ml_verts_cap, ml->vertex_total + 1)) {
            r = OAK_ERROR_OUT_OF_MEMORY;
        } else {
            memcpy(m->ml, ml->meshlets, ml->count * sizeof(oak_meshlet));
            memcpy(m->ml_verts, ml->vertices, ml->vertex_total * sizeof(uint32_t));
            uint32_t k = 0;
            for (uint32_t i = 0; i < ml->count; i++)
                for (uint32_t j = 0; j < ml->meshlets[i].triangle_count; j++)
                    m->tri_ml[tri_of[k++]] = (uint16_t)i;
            m->ml_count = ml->count;
        }
    }
    oak_free(tri_of);
    return r;
}

oak_result _oak_cpu_mesh_meshlets(cpu_mesh *m, oak_mesh h, const oak_mesh_data *d) {
    oak_result r = mesh_meshlets(m, h, d);
    m->ml_finest = m->ml_count;
    m->ml_runs = false;
    if (!r && m->ml_count && d->finest_index_count) {
        /* its triangles are its meshlets' in order (the map was the identity) */
        if (!OAK_GROW(m->ml_end, m->ml_end_cap, m->ml_count)) return OAK_ERROR_OUT_OF_MEMORY;
        uint32_t t = 0;
        for (uint32_t i = 0; i < m->ml_count; i++) m->ml_end[i] = t += m->ml[i].triangle_count;
        m->ml_runs = t == m->index_count / 3;
    }
    if (r || !d->finest_index_count || d->finest_index_count > m->index_count) return r;
    if (!m->ml_count) {
        /* a cluster-LOD mesh drawn uncut (culling off, too many meshlets):
           its finest level only, never two levels over each other */
        m->index_count = d->finest_index_count;
        return OAK_OK;
    }
    uint32_t t = 0, i = 0;
    while (i < m->ml_count && t < d->finest_index_count / 3) t += m->ml[i++].triangle_count;
    m->ml_finest = i;
    return OAK_OK;
}

typedef struct cull_ctx {
    cpu_backend *b;
    cpu_pass *p;
    _oak_meshcull_view cv;
    /* occlusion on: the frontend's grid (render/occlusion.c), else NULL */
    bool (*occ)(const void *grid, const float center[3], float radius);
    const void *grid;
    /* the test each meshlet is put to: OAK_MESHCULL_KEEP or why it is cut */
    int (*test)(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc, const oak_meshlet *ml);
    /* plain meshes' draws tested too (the camera's), else cluster-LOD ones only */
    bool plain;
} cull_ctx;

/* A shadow map's test: cluster LOD's cut, no frustum or cone. */
static int lod_test(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                    const oak_meshlet *ml) {
    return _oak_clod_keep(cv, dc, ml) ? OAK_MESHCULL_KEEP : OAK_MESHCULL_LOD;
}

/* Whether a meshlet the frustum and cone kept stands behind the occlusion
   grid: its sphere through the draw's world (radius by the largest axis),
   the test the frontend puts whole draws to, so what it hides makes no
   pixel (the grid's depth is never nearer than what is drawn there). */
static bool occluded(const cull_ctx *c, const _oak_meshcull_draw *dc, const oak_meshlet *ml) {
    if (!c->occ || !isfinite(dc->scale)) return false;
    const float *w = dc->world, *s = ml->center;
    float p[3];
    for (int r = 0; r < 3; r++) p[r] = w[r] * s[0] + w[4 + r] * s[1] + w[8 + r] * s[2] + w[12 + r];
    return !c->occ(c->grid, p, ml->radius * dc->scale);
}

static void cull_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cull_ctx *c = user;
    cpu_pass *p = c->p;
    for (uint32_t d = begin; d < end; d++) {
        uint32_t base = p->ml_base[d];
        memset(p->ml_cut[d], 0, sizeof p->ml_cut[d]);
        if (base == UINT32_MAX) continue;
        const cpu_draw *dr = &p->draws[d];
        const cpu_mesh *m = &c->b->meshes[dr->mesh];
        _oak_meshcull_draw dc;
        bool posed = dr->pose || m->palette || m->posed_here;
        if (posed || !_oak_meshcull_draw_make(&dc, &c->cv, (const float *)dr->world, dr->cull)) {
            /* no cut without a world to project by or rest-pose bounds to
               trust (a posed cluster-LOD mesh): the finest level */
            memset(p->ml_keep + base, 1, m->ml_finest);
            memset(p->ml_keep + base + m->ml_finest, 0, m->ml_count - m->ml_finest);
            for (uint32_t i = 0; i < m->ml_finest; i++) p->ml_cut[d][2] += m->ml[i].triangle_count;
            p->ml_cut[d][3] = m->ml_count - m->ml_finest;
            continue;
        }
        for (uint32_t i = 0; i < m->ml_count; i++) {
            int t = c->test(&c->cv, &dc, &m->ml[i]);
            if (t == OAK_MESHCULL_KEEP && occluded(c, &dc, &m->ml[i])) {
                p->ml_keep[base + i] = 0;
                p->ml_cut[d][4]++;
                continue;
            }
            p->ml_keep[base + i] = t == OAK_MESHCULL_KEEP;
            if (t == OAK_MESHCULL_KEEP)
                p->ml_cut[d][2] += m->ml[i].triangle_count;
            else if (t == OAK_MESHCULL_LOD)
                p->ml_cut[d][3]++;
            else
                p->ml_cut[d][t - 1]++;
        }
    }
}

/* Which of a pass's draws have their meshlets tested (each draw's first in
   p->ml_keep at p->ml_base, UINT32_MAX for none), then c->test on the job
   pool. *tested: the meshlets tested, 0 where none were (p->ml_on false). */
static oak_result cull_plan(cpu_backend *b, cpu_pass *p, cull_ctx *c, uint32_t *tested) {
    *tested = 0;
    p->ml_on = false;
    if (!b->meshcull || !p->draw_count) return OAK_OK;
    if (!OAK_GROW(p->ml_base, p->ml_base_cap, p->draw_count) ||
        !OAK_GROW(p->ml_cut, p->ml_cut_cap, p->draw_count))
        return OAK_ERROR_OUT_OF_MEMORY;
    uint64_t total = 0;
    for (uint32_t d = 0; d < p->draw_count; d++) {
        const cpu_draw *dr = &p->draws[d];
        const cpu_mesh *m = &b->meshes[dr->mesh];
        /* a cluster-LOD mesh has more meshlets than its finest level's; the
           camera tests plain meshes too but posed draws (a bank's palette)
           move their vertices off the cut: a cluster-LOD mesh's still keep
           its finest level only (cull_job); a shadow map draws plain meshes
           whole, as before */
        bool clod = m->ml_finest < m->ml_count;
        bool posed = dr->pose || m->palette || m->posed_here;
        bool ok = m->ml_count && (clod || (c->plain && !posed));
        p->ml_base[d] = ok ? (uint32_t)total : UINT32_MAX;
        if (ok) total += m->ml_count;
    }
    if (!total) return OAK_OK;
    if (total >= UINT32_MAX || !OAK_GROW(p->ml_keep, p->ml_keep_cap, (uint32_t)total))
        return OAK_ERROR_OUT_OF_MEMORY;
    c->b = b;
    c->p = p;
    oak_parallel_for(p->draw_count, 16, cull_job, c);
    *tested = (uint32_t)total;
    p->ml_on = true;
    return OAK_OK;
}

oak_result _oak_cpu_meshcull(cpu_backend *b, cpu_pass *p, const oak_render_view *v) {
    b->ml_stats = (oak_meshlet_stats){0};
    cull_ctx c = {.test = _oak_meshcull_test, .plain = true};
    if (v->occ_grid) {
        c.occ = v->occ_sphere_visible;
        c.grid = v->occ_grid;
    }
    _oak_meshcull_view_make(&c.cv, v, p->width, p->height);
    uint32_t tested;
    oak_result r = cull_plan(b, p, &c, &tested);
    if (r || !tested) return r;
    oak_meshlet_stats *s = &b->ml_stats;
    s->on = true;
    s->tested = tested;
    for (uint32_t d = 0; d < p->draw_count; d++) {
        s->culled_frustum += p->ml_cut[d][0];
        s->culled_cone += p->ml_cut[d][1];
        s->triangles_kept += p->ml_cut[d][2];
        s->culled_lod += p->ml_cut[d][3];
        s->culled_occluded += p->ml_cut[d][4];
    }
    return OAK_OK;
}

oak_result _oak_cpu_meshcull_lod(cpu_backend *b, cpu_pass *p, const struct _oak_meshcull_view *cv) {
    cull_ctx c = {.cv = *cv, .test = lod_test};
    uint32_t tested;
    oak_result r = cull_plan(b, p, &c, &tested);
    if (r || !tested) return r;
    for (uint32_t d = 0; d < p->draw_count; d++) {
        if (p->ml_base[d] == UINT32_MAX) continue;
        b->shadow_lod.triangles_kept += p->ml_cut[d][2];
        b->shadow_lod.culled_lod += p->ml_cut[d][3];
    }
    b->shadow_lod.tested += tested;
    return OAK_OK;
}

static void need_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cull_ctx *c = user;
    cpu_pass *p = c->p;
    for (uint32_t d = begin; d < end; d++) {
        uint8_t *need = p->vneed + p->vtx_base[d];
        uint32_t n = p->vtx_base[d + 1] - p->vtx_base[d], base = p->ml_base[d];
        const cpu_mesh *m = &c->b->meshes[p->draws[d].mesh];
        if (base == UINT32_MAX) continue; /* the vertex stage does not look */
        memset(need, 0, n);
        for (uint32_t i = 0; i < m->ml_count; i++) {
            if (!p->ml_keep[base + i]) continue;
            const uint32_t *vs = m->ml_verts + m->ml[i].vertex_offset;
            for (uint32_t k = 0; k < m->ml[i].vertex_count; k++) need[vs[k]] = 1;
        }
    }
}

oak_result _oak_cpu_meshcull_vertices(cpu_backend *b, cpu_pass *p) {
    if (!p->ml_on) return OAK_OK;
    if (!OAK_GROW(p->vneed, p->vneed_cap, p->vertex_count + 1)) return OAK_ERROR_OUT_OF_MEMORY;
    cull_ctx c = {.b = b, .p = p};
    oak_parallel_for(p->draw_count, 16, need_job, &c);
    return OAK_OK;
}

void _oak_cpu_meshcull_release(cpu_pass *p) {
    oak_free(p->ml_base);
    oak_free(p->ml_keep);
    oak_free(p->ml_cut);
    oak_free(p->vneed);
}
