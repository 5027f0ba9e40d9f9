/* Meshes in the registry: copies a desc's streams, checks them, generates the
 * missing ones (area-weighted normals, uv0 tangents, white colours, zero UVs)
 * and the bounds. Tangent w follows glTF: bitangent = cross(n, t) * w points
 * towards decreasing v (up in the image), as normal maps expect. */
#include <math.h>
#include <string.h>

#include "registry.h"

void _oak_mesh_data_free(oak_mesh_data *m) {
    if (!m) return;
    oak_free(m->positions);
    oak_free(m->prev_positions);
    oak_free(m->palette);
    oak_free(m->normals);
    oak_free(m->tangents);
    oak_free(m->uv0);
    oak_free(m->uv1);
    oak_free(m->colors);
    oak_free(m->joints);
    oak_free(m->weights);
    oak_free(m->joints1);
    oak_free(m->weights1);
    oak_free(m->targets);
    oak_free(m->morph_weights);
    oak_free(m->indices);
    oak_free(m->name);
    oak_free(m->source_path);
    _oak_mesh_drop_meshlets(m);
    memset(m, 0, sizeof *m);
}

static const char *label(const oak_mesh_desc *d) {
    return d->name ? d->name : "(unnamed)";
}

static void *copy_or_alloc(const void *src, size_t bytes) {
    void *p = oak_alloc(bytes ? bytes : 1);
    if (p && src) memcpy(p, src, bytes);
    return p;
}

static void generate_normals(oak_mesh_data *m) {
    float *n = m->normals;
    memset(n, 0, sizeof(float) * 3 * m->vertex_count);
    const float *p = m->positions;
    for (uint32_t t = 0; t + 2 < m->index_count; t += 3) {
        uint32_t a = m->indices[t], b = m->indices[t + 1], c = m->indices[t + 2];
        vec3 e1, e2, f;
        glm_vec3_sub((float *)(p + 3 * b), (float *)(p + 3 * a), e1);
        glm_vec3_sub((float *)(p + 3 * c), (float *)(p + 3 * a), e2);
        glm_vec3_cross(e1, e2, f); /* length is twice the area: the weight */
        for (int k = 0; k < 3; k++) {
            uint32_t v = m->indices[t + k];
            glm_vec3_add(n + 3 * v, f, n + 3 * v);
        }
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float len = glm_vec3_norm(n + 3 * v);
        if (len > 1e-20f) {
            glm_vec3_scale(n + 3 * v, 1.0f / len, n + 3 * v);
        } else {
            n[3 * v] = 0, n[3 * v + 1] = 1, n[3 * v + 2] = 0;
        }
    }
}

/* Any unit vector perpendicular to n, for vertices whose UVs give none. */
static void any_perpendicular(const float *n, float *t) {
    vec3 axis = {1, 0, 0};
    if (fabsf(n[0]) > 0.9f) axis[0] = 0, axis[1] = 1;
    float d = glm_vec3_dot((float *)n, axis);
    for (int k = 0; k < 3; k++) t[k] = axis[k] - n[k] * d;
    glm_vec3_normalize(t);
}

/* Per-triangle dP/du and dP/dv (weighted by the triangle's UV area) summed
   per vertex, then made orthogonal to the normal (Gram-Schmidt). */
static oak_result generate_tangents(oak_mesh_data *m, bool have_uv) {
    float *out = m->tangents;
    if (!have_uv) {
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            any_perpendicular(m->normals + 3 * v, out + 4 * v);
            out[4 * v + 3] = 1;
        }
        return OAK_OK;
    }
    float *tan = oak_calloc((size_t)m->vertex_count * 6, sizeof(float));
    if (!tan) return OAK_ERROR_OUT_OF_MEMORY;
    float *bit = tan + (size_t)m->vertex_count * 3;
    const float *p = m->positions, *uv = m->uv0;
    for (uint32_t t = 0; t + 2 < m->index_count; t += 3) {
        uint32_t a = m->indices[t], b = m->indices[t + 1], c = m->indices[t + 2];
        vec3 e1, e2;
        glm_vec3_sub((float *)(p + 3 * b), (float *)(p + 3 * a), e1);
        glm_vec3_sub((float *)(p + 3 * c), (float *)(p + 3 * a), e2);
        float du1 = uv[2 * b] - uv[2 * a], dv1 = uv[2 * b + 1] - uv[2 * a + 1];
        float du2 = uv[2 * c] - uv[2 * a], dv2 = uv[2 * c + 1] - uv[2 * a + 1];
        float r = du1 * dv2 - du2 * dv1;
        if (r == 0 || !isfinite(r)) continue;
        float s = r > 0 ? 1.0f : -1.0f;
        vec3 du, dv;
        for (int k = 0; k < 3; k++) {
            du[k] = (e1[k] * dv2 - e2[k] * dv1) * s;
            dv[k] = (e2[k] * du1 - e1[k] * du2) * s;
        }
        for (int k = 0; k < 3; k++) {
            uint32_t v = m->indices[t + k];
            glm_vec3_add(tan + 3 * v, du, tan + 3 * v);
            glm_vec3_add(bit + 3 * v, dv, bit + 3 * v);
        }
    }
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        const float *n = m->normals + 3 * v;
        float *t = tan + 3 * v, *o = out + 4 * v;
        float d = glm_vec3_dot((float *)n, t);
        for (int k = 0; k < 3; k++) o[k] = t[k] - n[k] * d;
        float len = glm_vec3_norm(o);
        if (len > 1e-12f && isfinite(len)) {
            glm_vec3_scale(o, 1.0f / len, o);
        } else {
            any_perpendicular(n, o);
        }
        vec3 c;
        glm_vec3_cross((float *)n, o, c);
        o[3] = glm_vec3_dot(c, bit + 3 * v) > 0 ? -1.0f : 1.0f;
    }
    oak_free(tan);
    return OAK_OK;
}

oak_result _oak_mesh_data_build(oak_mesh_data *m, const oak_mesh_desc *d) {
    memset(m, 0, sizeof *m);
    if (!d) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "mesh: no desc given");
    if (!d->positions || !d->vertex_count)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "mesh '%s': no positions", label(d));
    if (d->vertex_count > (1u << 30))
        return oak_error(OAK_ERROR_LIMIT, "mesh '%s': %u vertices is too many", label(d),
                         d->vertex_count);
    uint32_t vc = d->vertex_count;
    uint32_t ic = d->indices ? d->index_count : vc;
    if (d->indices && !ic)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "mesh '%s': indices given but index_count is 0", label(d));
    if (ic % 3)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "mesh '%s': index count %u is not a multiple of 3", label(d), ic);
    for (uint32_t i = 0; i < 3 * vc; i++)
        if (!isfinite(d->positions[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "mesh '%s': vertex %u has a non-finite position", label(d), i / 3);
    if (d->indices)
        for (uint32_t i = 0; i < ic; i++)
            if (d->indices[i] >= vc)
                return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "mesh '%s': index %u is %u, past vertex count %u", label(d), i,
                                 d->indices[i], vc);

    m->vertex_count = vc;
    m->index_count = ic;
    size_t n = vc;
    m->positions = copy_or_alloc(d->positions, n * 3 * sizeof(float));
    m->normals = copy_or_alloc(d->normals, n * 3 * sizeof(float));
    m->tangents = copy_or_alloc(d->tangents, n * 4 * sizeof(float));
    m->uv0 = oak_calloc(n * 2, sizeof(float));
    m->uv1 = oak_calloc(n * 2, sizeof(float));
    m->colors = copy_or_alloc(d->colors, n * 4 * sizeof(float));
    m->indices = oak_alloc((size_t)ic * sizeof(uint32_t));
    bool skinned = d->joints || d->weights;
    if (skinned) {
        m->joints = oak_calloc(n * 4, sizeof(uint16_t));
        m->weights = oak_calloc(n * 4, sizeof(float));
    }
    bool second = skinned && d->joints1 && d->weights1;
    if (second) {
        m->joints1 = copy_or_alloc(d->joints1, n * 4 * sizeof(uint16_t));
        m->weights1 = copy_or_alloc(d->weights1, n * 4 * sizeof(float));
    }
    size_t deltas = d->targets ? (size_t)d->target_count * n * 9 : 0;
    if (deltas) {
        m->targets = copy_or_alloc(d->targets, deltas * sizeof(float));
        m->target_count = d->target_count;
    }
    if (d->name) m->name = oak_strdup(d->name);
    if ((second && (!m->joints1 || !m->weights1)) || (deltas && !m->targets)) {
        _oak_mesh_data_free(m);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "mesh '%s': out of memory for its skin",
                         label(d));
    }
    if (!m->positions || !m->normals || !m->tangents || !m->uv0 || !m->uv1 || !m->colors ||
        !m->indices || (skinned && (!m->joints || !m->weights)) || (d->name && !m->name)) {
        _oak_mesh_data_free(m);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "mesh '%s': out of memory for %u vertices",
                         label(d), vc);
    }
    if (d->uv0) memcpy(m->uv0, d->uv0, n * 2 * sizeof(float));
    if (d->uv1) memcpy(m->uv1, d->uv1, n * 2 * sizeof(float));
    if (!d->colors)
        for (size_t i = 0; i < n * 4; i++) m->colors[i] = 1.0f;
    if (d->indices) {
        memcpy(m->indices, d->indices, (size_t)ic * sizeof(uint32_t));
    } else {
        for (uint32_t i = 0; i < ic; i++) m->indices[i] = i;
    }
    if (skinned) {
        if (d->joints) memcpy(m->joints, d->joints, n * 4 * sizeof(uint16_t));
        if (d->weights) {
            memcpy(m->weights, d->weights, n * 4 * sizeof(float));
        } else {
            for (size_t v = 0; v < n; v++) m->weights[4 * v] = 1.0f; /* all on the first joint */
        }
    }
    if (!d->normals) generate_normals(m);
    if (!d->tangents) {
        oak_result r = generate_tangents(m, d->uv0 != NULL);
        if (r) {
            _oak_mesh_data_free(m);
            return oak_error(r, "mesh '%s': out of memory generating tangents", label(d));
        }
    }
    oak_bounds_empty(&m->bounds);
    for (uint32_t v = 0; v < vc; v++) oak_bounds_add(&m->bounds, m->positions + 3 * v);
    oak_bounds_finish(&m->bounds);
    m->version = m->shape_version = _oak_next_version();
    return OAK_OK;
}

oak_result oak_make_mesh(oak_mesh *out, const oak_mesh_desc *desc) {
    out->id = 0;
    _oak_registry *reg = _oak_registry_get();
    if (!reg) return OAK_ERROR_OUT_OF_MEMORY;
    oak_mesh_data built;
    oak_result r = _oak_mesh_data_build(&built, desc);
    if (r) return r;
    uint32_t id = oak_pool_alloc(&reg->meshes);
    if (!id) {
        _oak_mesh_data_free(&built);
        return oak_error(OAK_ERROR_LIMIT, "mesh '%s': the registry is full", label(desc));
    }
    *(oak_mesh_data *)oak_pool_get(&reg->meshes, id) = built;
    out->id = id;
    return OAK_OK;
}

oak_result oak_mesh_update(oak_mesh mesh, const oak_mesh_desc *desc) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return oak_error(OAK_ERROR_NOT_FOUND, "mesh update: stale handle %#x", mesh.id);
    oak_mesh_data built;
    oak_result r = _oak_mesh_data_build(&built, desc);
    if (r) return r;
    /* new contents are no longer what the recipe or file says, but the name
       stays when the update gives none */
    if (!built.name && m->name) {
        built.name = m->name;
        m->name = NULL;
    }
    _oak_mesh_data_free(m);
    *m = built;
    return OAK_OK;
}

void oak_destroy_mesh(oak_mesh mesh) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return;
    _oak_mesh_data_free(m);
    oak_pool_free(&reg->meshes, mesh.id);
}

const oak_mesh_data *oak_mesh_get(oak_mesh mesh) {
    _oak_registry *reg = _oak_registry_peek();
    return reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
}

void oak_mesh_set_source(oak_mesh mesh, const char *path, uint32_t index) {
    _oak_registry *reg = _oak_registry_peek();
    oak_mesh_data *m = reg ? oak_pool_get(&reg->meshes, mesh.id) : NULL;
    if (!m) return;
    char *copy = path ? oak_strdup(path) : NULL;
    oak_free(m->source_path);
    m->source_path = copy;
    m->source_index = index;
}
