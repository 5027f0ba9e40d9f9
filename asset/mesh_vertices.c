/* In-place vertex updates for meshes posed every frame (skinned and morphed
 * glTF primitives): the streams are copied into the arrays the mesh already
 * has, so a frame makes no heap calls; bounds and version follow. The
 * positions replaced are kept as the mesh's previous pose (motion vectors). */
#include <math.h>
#include <string.h>

#include "registry.h"

oak_result oak_mesh_update_vertices(oak_mesh mesh, uint32_t vertex_count, const float *positions,
                                    const float *normals, const float *tangents) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return oak_error(OAK_ERROR_NOT_FOUND, "mesh vertex update: stale handle %#x", mesh.id);
    if (vertex_count != m->vertex_count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "mesh '%s': vertex update has %u vertices, the mesh %u",
                         m->name ? m->name : "(unnamed)", vertex_count, m->vertex_count);
    size_t n = vertex_count;
    /* the previous pose, made on the first update (the only heap call) */
    if (!m->prev_positions && n && !(m->prev_positions = oak_alloc(n * 12)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "mesh '%s': no memory for its previous pose",
                         m->name ? m->name : "(unnamed)");
    if (positions) {
        /* one sweep checks and bounds (min/max inline, as oak_bounds_add) */
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        bool finite = true;
        for (size_t v = 0; v < n; v++)
            for (int a = 0; a < 3; a++) {
                float p = positions[3 * v + a];
                finite &= isfinite(p);
                lo[a] = p < lo[a] ? p : lo[a];
                hi[a] = p > hi[a] ? p : hi[a];
            }
        if (!finite)
            for (size_t i = 0; i < 3 * n; i++)
                if (!isfinite(positions[i]))
                    return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                     "mesh '%s': vertex %zu has a non-finite position",
                                     m->name ? m->name : "(unnamed)", i / 3);
        /* swap: the current positions become the previous pose */
        float *prev = m->prev_positions;
        m->prev_positions = m->positions;
        m->positions = prev;
        memcpy(m->positions, positions, n * 12);
        oak_bounds_empty(&m->bounds);
        if (n) oak_bounds_add(&m->bounds, lo), oak_bounds_add(&m->bounds, hi);
        oak_bounds_finish(&m->bounds);
    } else if (n) {
        memcpy(m->prev_positions, m->positions, n * 12); /* the shape did not move */
    }
    if (normals) memcpy(m->normals, normals, n * 12);
    if (tangents) memcpy(m->tangents, tangents, n * 16);
    m->prev_version = m->version;
    m->version = _oak_next_version();
    /* new normals or tangents change what the backends hold beside the
       positions: they must send the mesh whole */
    if ((normals || tangents) && n) m->shape_version = m->version;
    return OAK_OK;
}
