/* Meshlets (docs/ARCHITECTURE.md "Meshlets"): meshoptimizer cuts a triangle
 * list into clusters of at most OAK_MESHLET_VERTICES vertices and
 * OAK_MESHLET_TRIANGLES triangles and gives each a bounding sphere and a
 * normal cone; a mesh keeps its own until it changes, and a model cache
 * (.oakm) carries them, checked on the way in like every other array. */
#include <float.h>
#include <meshoptimizer.h>
#include <string.h>

#include "registry.h"

void oak_meshlets_release(oak_meshlets *m) {
    if (!m) return;
    oak_free(m->meshlets);
    oak_free(m->vertices);
    oak_free(m->triangles);
    memset(m, 0, sizeof *m);
}

oak_result _oak_triangles_check(const char *who, void *out, size_t out_size, const float *positions,
                                uint32_t vertex_count, const uint32_t *indices,
                                uint32_t index_count, uint32_t *n) {
    *n = 0;
    if (!out || (!positions && vertex_count))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: no output or positions", who);
    memset(out, 0, out_size);
    uint32_t c = indices ? index_count : vertex_count;
    if (c % 3)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: %u indices, not whole triangles", who, c);
    for (uint32_t i = 0; indices && i < c; i++)
        if (indices[i] >= vertex_count)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: index %u = %u past %u vertices", who,
                             i, indices[i], vertex_count);
    *n = c;
    return OAK_OK;
}

oak_result oak_build_meshlets(oak_meshlets *out, const float *positions, uint32_t vertex_count,
                              const uint32_t *indices, uint32_t index_count) {
    uint32_t n;
    oak_result r = _oak_triangles_check("meshlets", out, sizeof *out, positions, vertex_count,
                                        indices, index_count, &n);
    if (r || !n) return r;
    uint32_t *seq = NULL; /* 0..n-1 for a mesh without indices */
    if (!indices) {
        if (!(seq = oak_alloc(sizeof *seq * n)))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "meshlets: out of memory");
        for (uint32_t i = 0; i < n; i++) seq[i] = i;
        indices = seq;
    }
    size_t cap = meshopt_buildMeshletsBound(n, OAK_MESHLET_VERTICES, OAK_MESHLET_TRIANGLES);
    struct meshopt_Meshlet *ml = oak_alloc(sizeof *ml * cap);
    uint32_t *verts = oak_alloc(sizeof *verts * cap * OAK_MESHLET_VERTICES);
    uint8_t *tris = oak_alloc(cap * OAK_MESHLET_TRIANGLES * 3);
    oak_meshlet *meta = NULL;
    size_t count = 0;
    if (ml && verts && tris) {
        count = meshopt_buildMeshlets(ml, verts, tris, indices, n, positions, vertex_count, 12,
                                      OAK_MESHLET_VERTICES, OAK_MESHLET_TRIANGLES,
                                      OAK_MESHLET_CONE_WEIGHT);
        meta = oak_alloc(sizeof *meta * (count ? count : 1));
    }
    if (!meta || !count) {
        oak_free(seq), oak_free(ml), oak_free(verts), oak_free(tris), oak_free(meta);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "meshlets: out of memory for %u triangles",
                         n / 3);
    }
    for (size_t i = 0; i < count; i++) {
        struct meshopt_Bounds b =
            meshopt_computeMeshletBounds(verts + ml[i].vertex_offset, tris + ml[i].triangle_offset,
                                         ml[i].triangle_count, positions, vertex_count, 12);
        oak_meshlet *o = &meta[i];
        *o = (oak_meshlet){.vertex_offset = ml[i].vertex_offset,
                           .triangle_offset = ml[i].triangle_offset,
                           .vertex_count = ml[i].vertex_count,
                           .triangle_count = ml[i].triangle_count,
                           .radius = b.radius,
                           .cone_cutoff = b.cone_cutoff};
        memcpy(o->center, b.center, sizeof o->center);
        memcpy(o->cone_apex, b.cone_apex, sizeof o->cone_apex);
        memcpy(o->cone_axis, b.cone_axis, sizeof o->cone_axis);
        /* a plain mesh's clusters: always in the cut */
        for (int k = 0; k < 3; k++) o->lod_sphere[k] = o->parent_sphere[k] = b.center[k];
        o->lod_sphere[3] = o->parent_sphere[3] = b.radius;
        o->lod_error = 0;
        o->parent_error = FLT_MAX;
    }
    /* the arrays cut to what the last meshlet reaches (its triangles padded
       to 4 bytes, as meshoptimizer lays them) */
    const struct meshopt_Meshlet *last = &ml[count - 1];
    out->count = (uint32_t)count;
    out->vertex_total = last->vertex_offset + last->vertex_count;
    out->triangle_bytes = last->triangle_offset + ((last->triangle_count * 3 + 3) & ~3u);
    out->meshlets = meta;
    out->vertices = oak_realloc(verts, sizeof *verts * out->vertex_total);
    out->triangles = oak_realloc(tris, out->triangle_bytes);
    if (!out->vertices) out->vertices = verts; /* a shrink that failed keeps the block */
    if (!out->triangles) out->triangles = tris;
    oak_free(ml);
    oak_free(seq);
    return OAK_OK;
}

const char *oak_meshlets_problem(const oak_meshlets *m, uint32_t vertex_count,
                                 uint32_t index_count) {
    if (!m) return "no meshlets";
    if (!m->count) return m->vertex_total || m->triangle_bytes ? "sizes without meshlets" : NULL;
    if (!m->meshlets || !m->vertices || !m->triangles) return "an array is missing";
    uint64_t triangles = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const oak_meshlet *o = &m->meshlets[i];
        if (!o->vertex_count || o->vertex_count > OAK_MESHLET_VERTICES || !o->triangle_count ||
            o->triangle_count > OAK_MESHLET_TRIANGLES)
            return "a meshlet's vertex or triangle count is out of range";
        if ((uint64_t)o->vertex_offset + o->vertex_count > m->vertex_total ||
            (uint64_t)o->triangle_offset + 3ull * o->triangle_count > m->triangle_bytes)
            return "a meshlet reaches past its arrays";
        for (uint32_t v = 0; v < o->vertex_count; v++)
            if (m->vertices[o->vertex_offset + v] >= vertex_count)
                return "a meshlet vertex is past the mesh's vertices";
        for (uint32_t t = 0; t < 3 * o->triangle_count; t++)
            if (m->triangles[o->triangle_offset + t] >= o->vertex_count)
                return "a meshlet triangle is past the meshlet's vertices";
        /* NaN fails too: a cut needs ordered, finite errors and radii */
        if (!(o->lod_error >= 0 && o->lod_error <= o->parent_error && o->lod_sphere[3] >= 0 &&
              o->parent_sphere[3] >= 0))
            return "a meshlet's LOD errors or spheres are out of order";
        triangles += o->triangle_count;
    }
    return 3 * triangles == index_count ? NULL : "the meshlets' triangles are not the mesh's";
}

oak_result oak_mesh_meshlets(oak_mesh mesh, const oak_meshlets **out) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_mesh_meshlets: no output");
    *out = NULL;
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return oak_error(OAK_ERROR_NOT_FOUND, "oak_mesh_meshlets: stale handle %#x", mesh.id);
    if (m->meshlets && m->meshlets_version == m->version) {
        *out = m->meshlets;
        return OAK_OK;
    }
    oak_meshlets *ml = oak_calloc(1, sizeof *ml);
    if (!ml) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_mesh_meshlets: out of memory");
    oak_result r =
        oak_build_meshlets(ml, m->positions, m->vertex_count, m->indices, m->index_count);
    if (r) {
        oak_free(ml);
        return r;
    }
    _oak_mesh_drop_meshlets(m);
    m->meshlets = ml;
    m->meshlets_version = m->version;
    *out = ml;
    return OAK_OK;
}

void _oak_mesh_drop_meshlets(oak_mesh_data *m) {
    if (!m->meshlets) return;
    oak_meshlets_release(m->meshlets);
    oak_free(m->meshlets);
    m->meshlets = NULL;
}

oak_result _oak_mesh_adopt_meshlets(oak_mesh mesh, const oak_meshlets *src) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m || !src || !src->count) return OAK_OK;
    oak_meshlets *ml = oak_calloc(1, sizeof *ml);
    if (ml) {
        *ml = (oak_meshlets){.count = src->count,
                             .vertex_total = src->vertex_total,
                             .triangle_bytes = src->triangle_bytes,
                             .meshlets = oak_alloc(sizeof *ml->meshlets * src->count),
                             .vertices = oak_alloc(sizeof *ml->vertices * src->vertex_total),
                             .triangles = oak_alloc(src->triangle_bytes)};
    }
    if (!ml || !ml->meshlets || !ml->vertices || !ml->triangles) {
        oak_meshlets_release(ml);
        oak_free(ml);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "meshlets: out of memory");
    }
    memcpy(ml->meshlets, src->meshlets, sizeof *ml->meshlets * src->count);
    memcpy(ml->vertices, src->vertices, sizeof *ml->vertices * src->vertex_total);
    memcpy(ml->triangles, src->triangles, src->triangle_bytes);
    _oak_mesh_drop_meshlets(m);
    m->meshlets = ml;
    m->meshlets_version = m->version;
    return OAK_OK;
}
