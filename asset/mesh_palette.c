/* Meshes posed by joint palettes (issue 15: skinning on the GPU): the mesh
 * keeps its rest pose and two generations of 3 x 4 joint rows; every
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
    size_t v = _oak_pose_skin_check(m->joints, m->weights, n, joints);
    if (v < n) {
        float sum = 0;
        for (int k = 0; k < 4; k++) {
            float w = m->weights[4 * v + k];
            if (!(w >= 0) || m->joints[4 * v + k] >= joints)
                return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "mesh '%s': vertex %zu weighs joint %u by %g (the palette has %u "
                                 "joints; weights must be >= 0)",
                                 label(m), v, m->joints[4 * v + k], (double)w, joints);
            sum += w;
        }
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "mesh '%s': vertex %zu's weights sum to %g, not 1", label(m), v,
                         (double)sum);
    }
    float *pal = oak_alloc((size_t)joints * 24 * sizeof(float) + 1);
    if (!pal)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "mesh '%s': no memory for its palettes",
                         label(m));
    oak_free(m->palette);
    m->palette = pal;
    m->joint_count = joints;
    return OAK_OK;
}

/* The bounds of the pose: each vertex's position skinned by the rows the
   backends use (positions only, nothing written), so culling and framing
   see the figure as drawn. A box from the joints' rest boxes would skip
   this pass but is loose enough to move a framed camera (a bent limb's
   box swings wide); the pass is ~110 flops a vertex (4 x 12 rows weighed, 3 dot products), the
   posing of normals and tangents and every write stay on the GPU. */
static void pose_bounds(oak_mesh_data *m) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < m->vertex_count; v++) {
        float rows[12], p[3];
        _oak_pose_skin(m->palette, m->joints + 4 * v, m->weights + 4 * v, rows);
        _oak_pose_apply(rows, m->positions + 3 * v, 1, p);
        for (int a = 0; a < 3; a++) {
            lo[a] = p[a] < lo[a] ? p[a] : lo[a];
            hi[a] = p[a] > hi[a] ? p[a] : hi[a];
        }
    }
    oak_bounds_empty(&m->bounds);
    if (m->vertex_count) oak_bounds_add(&m->bounds, lo), oak_bounds_add(&m->bounds, hi);
    oak_bounds_finish(&m->bounds);
}

oak_result oak_mesh_update_palette(oak_mesh mesh, uint32_t joint_count, const float *rows) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return oak_error(OAK_ERROR_NOT_FOUND, "mesh palette: stale handle %#x", mesh.id);
    if (!joint_count || !rows)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "mesh '%s': a palette of no joints", label(m));
    for (size_t i = 0; i < (size_t)joint_count * 12; i++)
        if (!isfinite(rows[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "mesh '%s': joint %zu's rows are not finite", label(m), i / 12);
    bool first = !m->palette || m->joint_count != joint_count;
    if (first) {
        oak_result r = setup(m, joint_count);
        if (r) return r;
    }
    size_t floats = (size_t)joint_count * 12;
    /* the latest becomes the previous; the first has no previous pose */
    memcpy(m->palette + floats, first ? rows : m->palette, floats * sizeof(float));
    memcpy(m->palette, rows, floats * sizeof(float));
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
    const float *pal = m->palette + (prev ? (size_t)m->joint_count * 12 : 0);
    for (uint32_t v = 0; v < n; v++) {
        float rows[12];
        _oak_pose_skin(pal, m->joints + 4 * (size_t)v, m->weights + 4 * (size_t)v, rows);
        _oak_pose_apply(rows, m->positions + 3 * (size_t)v, 1, xyz + 3 * (size_t)v);
    }
    return n;
}
