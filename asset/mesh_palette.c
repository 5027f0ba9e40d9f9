/* Meshes posed by joint palettes (issue 15: skinning on the GPU): the mesh
 * keeps its rest pose (with its morph targets) and two generations of
 * 3 x 4 joint rows and morph weights; every
 * backend skins the vertices itself, so a new pose moves pose_version, not
 * version, and nothing is uploaded again. */
#include <math.h>
#include <string.h>

#include "pose_rows.h"
#include "registry.h"

static const char *label(const oak_mesh_data *m) {
    return m->name ? m->name : "(unnamed)";
}

/* The first update (or a new joint count): checks the skin and allocates
   the two palettes. */
static oak_result setup(oak_mesh_data *m, uint32_t joints) {
    size_t n = m->vertex_count;
    if (!m->joints || !m->weights)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "mesh '%s': a palette needs joints and weights", label(m));
    size_t v = _oak_pose_skin_check(m->joints, m->weights, m->joints1, m->weights1, n, joints);
    if (v < n) {
        float sum = 0;
        for (int k = 0; k < (m->joints1 ? 8 : 4); k++) {
            const uint16_t *js = k < 4 ? m->joints : m->joints1;
            float w = (k < 4 ? m->weights : m->weights1)[4 * v + k % 4];
            if (!(w >= 0) || js[4 * v + k % 4] >= joints)
                return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "mesh '%s': vertex %zu weighs joint %u by %g (the palette has %u "
                                 "joints; weights must be >= 0)",
                                 label(m), v, js[4 * v + k % 4], (double)w, joints);
            sum += w;
        }
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "mesh '%s': vertex %zu's weights sum to %g, not 1", label(m), v,
                         (double)sum);
    }
    float *pal = oak_alloc((size_t)joints * 24 * sizeof(float) + 1);
    float *mw = m->target_count ? oak_calloc((size_t)m->target_count * 2, sizeof(float)) : NULL;
    if (!pal || (m->target_count && !mw)) {
        oak_free(pal), oak_free(mw);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "mesh '%s': no memory for its palettes",
                         label(m));
    }
    oak_free(m->palette), oak_free(m->morph_weights);
    m->palette = pal;
    m->morph_weights = mw;
    m->joint_count = joints;
    return OAK_OK;
}

/* The bounds of the pose: each vertex's position posed by the arithmetic
   the backends use (asset/pose_rows.h _oak_pose_vertex: positions only,
   nothing written), so culling and framing see the figure as drawn. A box
   from the joints' rest boxes would skip this pass but is loose enough to
   move a framed camera (a bent limb's box swings wide); the pass is ~110
   flops a vertex for 4 joints (4 x 12 rows weighed, 3 dot products), 6
   more a morph target in play and 96 for a second set of joints; the
   posing of normals and tangents and every write stay with the backends.
   Slices of at least 1,024 vertices run on the job pool. */
#define BOUNDS_SLICES 64 /* at most; min and max are exact, so any split gives the same box */

typedef struct bounds_job {
    oak_mesh_data *m;
    uint32_t per; /* vertices a slice */
    float box[BOUNDS_SLICES][6];
} bounds_job;

static void bounds_slices(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    bounds_job *j = user;
    for (uint32_t s = begin; s < end; s++) {
        float *lo = j->box[s], *hi = j->box[s] + 3;
        lo[0] = lo[1] = lo[2] = INFINITY, hi[0] = hi[1] = hi[2] = -INFINITY;
        size_t last = (size_t)(s + 1) * j->per;
        if (last > j->m->vertex_count) last = j->m->vertex_count;
        for (size_t v = (size_t)s * j->per; v < last; v++) {
            float p[3];
            _oak_pose_vertex(j->m, false, v, p, NULL, NULL);
            for (int a = 0; a < 3; a++) {
                lo[a] = p[a] < lo[a] ? p[a] : lo[a];
                hi[a] = p[a] > hi[a] ? p[a] : hi[a];
            }
        }
    }
}

static void pose_bounds(oak_mesh_data *m) {
    bounds_job j = {.m = m, .per = 1024};
    while ((m->vertex_count + j.per - 1) / j.per > BOUNDS_SLICES) j.per *= 2;
    uint32_t slices = (uint32_t)((m->vertex_count + j.per - 1) / j.per);
    oak_parallel_for(slices, 1, bounds_slices, &j);
    oak_bounds_empty(&m->bounds);
    for (uint32_t s = 0; s < slices; s++)
        oak_bounds_add(&m->bounds, j.box[s]), oak_bounds_add(&m->bounds, j.box[s] + 3);
    oak_bounds_finish(&m->bounds);
}

oak_result oak_mesh_update_palette(oak_mesh mesh, uint32_t joint_count, const float *rows) {
    return oak_mesh_update_pose(mesh, joint_count, rows, 0, NULL);
}

oak_result oak_mesh_update_pose(oak_mesh mesh, uint32_t joint_count, const float *rows,
                                uint32_t weight_count, const float *weights) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return oak_error(OAK_ERROR_NOT_FOUND, "mesh palette: stale handle %#x", mesh.id);
    if (!joint_count || !rows)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "mesh '%s': a palette of no joints", label(m));
    for (size_t i = 0; i < (size_t)joint_count * 12; i++)
        if (!isfinite(rows[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "mesh '%s': joint %zu's rows are not finite", label(m), i / 12);
    if (weights && weight_count != m->target_count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "mesh '%s': %u morph weights for %u targets",
                         label(m), weight_count, m->target_count);
    for (uint32_t i = 0; weights && i < weight_count; i++)
        if (!isfinite(weights[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "mesh '%s': morph weight %u is not finite",
                             label(m), i);
    bool first = !m->palette || m->joint_count != joint_count;
    if (first) {
        oak_result r = setup(m, joint_count);
        if (r) return r;
    }
    size_t floats = (size_t)joint_count * 12;
    /* the latest becomes the previous; the first has no previous pose */
    memcpy(m->palette + floats, first ? rows : m->palette, floats * sizeof(float));
    memcpy(m->palette, rows, floats * sizeof(float));
    uint32_t tc = m->target_count;
    if (tc) { /* the morph weights likewise (none given: all 0) */
        memcpy(m->morph_weights + tc, m->morph_weights, tc * sizeof(float));
        for (uint32_t t = 0; t < tc; t++) m->morph_weights[t] = weights ? weights[t] : 0;
        if (first) memcpy(m->morph_weights + tc, m->morph_weights, tc * sizeof(float));
    }
    pose_bounds(m);
    m->prev_pose_version = first ? 0 : m->pose_version;
    m->pose_version = _oak_next_version();
    return OAK_OK;
}

uint32_t oak_mesh_posed_positions(oak_mesh mesh, bool prev, float *xyz, uint32_t capacity) {
    const oak_mesh_data *m = oak_mesh_get(mesh);
    if (!m || !xyz) return 0;
    uint32_t n = m->vertex_count < capacity ? m->vertex_count : capacity;
    if (!m->palette) {
        const float *src = prev && m->prev_positions ? m->prev_positions : m->positions;
        memcpy(xyz, src, (size_t)n * 12);
        return n;
    }
    for (uint32_t v = 0; v < n; v++) _oak_pose_vertex(m, prev, v, xyz + 3 * (size_t)v, NULL, NULL);
    return n;
}
