/* glTF meshes: each primitive's attributes, joint/weight sets and morph
 * targets read through the checked accessors, strips and fans turned into
 * triangle lists, and primitives without normals un-indexed with flat
 * normals as the spec asks. Points and lines are kept but not drawn. */
#include <string.h>

#include "gltf_internal.h"

/* Reads attribute key as floats; a count other than vcount (when non-zero)
 * is an error; *count_out gets the count. */
static oak_result read_attr_n(gltf_ctx *c, const cJSON *attrs, const char *ppath, const char *key,
                              uint32_t comps_allowed, uint32_t vcount, float **out, uint32_t *comps,
                              uint32_t *count_out) {
    *out = NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(attrs, key);
    if (!v) return OAK_OK;
    char where[160];
    snprintf(where, sizeof where, "%s.%s", ppath, key);
    uint32_t acc;
    oak_result r = _oak_gltf_uint(c, attrs, ppath, key, true, 0, &acc);
    if (r) return r;
    uint32_t count, k;
    if ((r = _oak_gltf_read_floats(c, acc, where, comps_allowed, out, &count, comps ? comps : &k)))
        return r;
    if (vcount && count != vcount)
        return oak_error(OAK_ERROR_PARSE, "%s: %s count %u differs from POSITION's %u", c->file,
                         where, count, vcount);
    if (count_out) *count_out = count;
    return OAK_OK;
}

static oak_result read_attr(gltf_ctx *c, const cJSON *attrs, const char *ppath, const char *key,
                            uint32_t comps_allowed, uint32_t vcount, float **out, uint32_t *comps) {
    return read_attr_n(c, attrs, ppath, key, comps_allowed, vcount, out, comps, NULL);
}

/* Triangle list indices for the primitive's mode; 0 triangles for points/lines. */
static oak_result triangulate(gltf_ctx *c, oak_gltf_primitive *p, const uint32_t *src, uint32_t n) {
    uint32_t tris = 0;
    if (p->mode == 4)
        tris = n / 3;
    else if (p->mode == 5 || p->mode == 6)
        tris = n >= 3 ? n - 2 : 0;
    uint32_t *out = _oak_gltf_alloc(c, (size_t)tris * 3 * sizeof(uint32_t));
    if (!out) return _oak_gltf_oom(c);
    for (uint32_t t = 0; t < tris; t++) {
        uint32_t a, b, d;
        if (p->mode == 4) {
            a = 3 * t, b = 3 * t + 1, d = 3 * t + 2;
        } else if (p->mode == 5) { /* keeps the first triangle's winding */
            a = t, b = t + 1 + (t & 1), d = t + 2 - (t & 1);
        } else {
            a = t + 1, b = t + 2, d = 0;
        }
        out[3 * t] = src ? src[a] : a;
        out[3 * t + 1] = src ? src[b] : b;
        out[3 * t + 2] = src ? src[d] : d;
    }
    p->indices = out;
    p->index_count = tris * 3;
    return OAK_OK;
}

/* Gathers a per-vertex stream through the index list. */
static void *gather(gltf_ctx *c, const void *src, size_t elem, const uint32_t *idx, uint32_t n) {
    if (!src) return NULL;
    uint8_t *out = _oak_gltf_alloc(c, elem * n);
    if (!out) return NULL;
    for (uint32_t i = 0; i < n; i++)
        memcpy(out + elem * i, (const uint8_t *)src + elem * idx[i], elem);
    return out;
}

/* One vertex per corner, every corner of a triangle given its face normal. */
static oak_result flatten(gltf_ctx *c, oak_gltf_primitive *p) {
    uint32_t n = p->index_count;
    const uint32_t *idx = p->indices;
    bool oom = false;
#define GATHER(field, elem)                                                                        \
    do {                                                                                           \
        if (p->field) {                                                                            \
            p->field = gather(c, p->field, (elem), idx, n);                                        \
            oom |= !p->field;                                                                      \
        }                                                                                          \
    } while (0)
    GATHER(positions, 12);
    GATHER(tangents, 16);
    GATHER(uv0, 8);
    GATHER(uv1, 8);
    GATHER(colors, 16);
    GATHER(joints, sizeof(uint16_t) * p->influence_count);
    GATHER(weights, sizeof(float) * p->influence_count);
    for (uint32_t t = 0; t < p->target_count; t++) {
        GATHER(targets[t].positions, 12);
        GATHER(targets[t].tangents, 12);
        p->targets[t].normals = NULL; /* flat normals follow the face, not a delta */
    }
#undef GATHER
    if (oom) return _oak_gltf_oom(c);
    float *nrm = _oak_gltf_alloc(c, (size_t)n * 12);
    uint32_t *seq = _oak_gltf_alloc(c, (size_t)n * 4);
    if (!nrm || !seq) return _oak_gltf_oom(c);
    for (uint32_t t = 0; t + 2 < n; t += 3) {
        const float *a = p->positions + 3 * t, *b = a + 3, *d = a + 6;
        vec3 e1 = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        vec3 e2 = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        vec3 fn;
        glm_vec3_cross(e1, e2, fn);
        float len = glm_vec3_norm(fn);
        if (len > 0)
            glm_vec3_scale(fn, 1.0f / len, fn);
        else
            glm_vec3_copy((vec3){0, 1, 0}, fn);
        for (int k = 0; k < 3; k++) memcpy(nrm + 3 * (t + k), fn, 12);
    }
    for (uint32_t i = 0; i < n; i++) seq[i] = i;
    p->normals = nrm;
    p->indices = seq;
    p->vertex_count = n;
    return OAK_OK;
}

static oak_result load_targets(gltf_ctx *c, const cJSON *prim, const char *ppath,
                               oak_gltf_primitive *p) {
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, prim, ppath, "targets", &arr, &p->target_count);
    if (r || !p->target_count) return r;
    p->targets = _oak_gltf_alloc(c, sizeof(oak_gltf_target) * p->target_count);
    if (!p->targets) return _oak_gltf_oom(c);
    uint32_t t = 0;
    const cJSON *o;
    char tpath[192];
    cJSON_ArrayForEach(o, arr) {
        snprintf(tpath, sizeof tpath, "%s.targets[%u]", ppath, t);
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, tpath);
        oak_gltf_target *tg = &p->targets[t++];
        if ((r = read_attr(c, o, tpath, "POSITION", GLTF_COMPS(3), p->vertex_count, &tg->positions,
                           NULL)))
            return r;
        if ((r = read_attr(c, o, tpath, "NORMAL", GLTF_COMPS(3), p->vertex_count, &tg->normals,
                           NULL)))
            return r;
        if ((r = read_attr(c, o, tpath, "TANGENT", GLTF_COMPS(3), p->vertex_count, &tg->tangents,
                           NULL)))
            return r;
    }
    return OAK_OK;
}

static oak_result load_skin_sets(gltf_ctx *c, const cJSON *attrs, const char *ppath,
                                 oak_gltf_primitive *p) {
    uint32_t sets = 0;
    char key[32];
    for (;;) {
        snprintf(key, sizeof key, "JOINTS_%u", sets);
        bool j = cJSON_GetObjectItemCaseSensitive(attrs, key) != NULL;
        snprintf(key, sizeof key, "WEIGHTS_%u", sets);
        bool w = cJSON_GetObjectItemCaseSensitive(attrs, key) != NULL;
        if (j != w)
            return oak_error(OAK_ERROR_PARSE,
                             "%s: %s.attributes has JOINTS_%u or WEIGHTS_%u without the other",
                             c->file, ppath, sets, sets);
        if (!j) break;
        sets++;
        if (sets > 64)
            return oak_error(OAK_ERROR_LIMIT, "%s: %s.attributes has more than 64 joint sets",
                             c->file, ppath);
    }
    if (!sets) return OAK_OK;
    uint32_t n = p->vertex_count, inf = sets * 4;
    p->influence_count = inf;
    p->joints = _oak_gltf_alloc(c, (size_t)n * inf * sizeof(uint16_t));
    p->weights = _oak_gltf_alloc(c, (size_t)n * inf * sizeof(float));
    if (!p->joints || !p->weights) return _oak_gltf_oom(c);
    char apath[192];
    snprintf(apath, sizeof apath, "%s.attributes", ppath);
    for (uint32_t s = 0; s < sets; s++) {
        uint32_t acc, count, comps;
        uint32_t *j;
        float *w;
        char where[224];
        oak_result r;
        snprintf(key, sizeof key, "JOINTS_%u", s);
        snprintf(where, sizeof where, "%s.%s", apath, key);
        if ((r = _oak_gltf_uint(c, attrs, apath, key, true, 0, &acc))) return r;
        if ((r = _oak_gltf_read_uints(c, acc, where, GLTF_COMPS(4), &j, &count, &comps))) return r;
        if (count != n)
            return oak_error(OAK_ERROR_PARSE, "%s: %s count %u differs from POSITION's %u", c->file,
                             where, count, n);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t k = 0; k < 4; k++) {
                uint32_t joint = j[4 * v + k];
                if (joint > 65535)
                    return oak_error(OAK_ERROR_PARSE, "%s: %s[%u] joint %u is past 65535", c->file,
                                     where, v, joint);
                p->joints[(size_t)v * inf + 4 * s + k] = (uint16_t)joint;
            }
        snprintf(key, sizeof key, "WEIGHTS_%u", s);
        if ((r = read_attr(c, attrs, apath, key, GLTF_COMPS(4), n, &w, NULL))) return r;
        for (uint32_t v = 0; v < n; v++)
            memcpy(p->weights + (size_t)v * inf + 4 * s, w + 4 * v, 16);
    }
    /* Only influences with weight count toward the joint range a skin must cover. */
    for (size_t i = 0; i < (size_t)n * inf; i++)
        if (p->weights[i] != 0 && p->joints[i] > p->max_joint) p->max_joint = p->joints[i];
    return OAK_OK;
}

static oak_result load_primitive(gltf_ctx *c, const cJSON *prim, const char *ppath,
                                 oak_gltf_primitive *p) {
    if (!cJSON_IsObject(prim))
        return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, ppath);
    oak_result r;
    const cJSON *attrs;
    if ((r = _oak_gltf_object(c, prim, ppath, "attributes", &attrs))) return r;
    if (!attrs) return oak_error(OAK_ERROR_PARSE, "%s: %s.attributes is missing", c->file, ppath);
    if ((r = _oak_gltf_uint(c, prim, ppath, "mode", false, 4, &p->mode))) return r;
    if (p->mode > 6)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.mode %u is not a glTF mode", c->file, ppath,
                         p->mode);
    if ((r = _oak_gltf_index(c, prim, ppath, "material", c->g->material_count, "materials",
                             &p->material)))
        return r;
    const cJSON *ext, *dr = NULL;
    if ((r = _oak_gltf_object(c, prim, ppath, "extensions", &ext))) return r;
    if (ext && (r = _oak_gltf_object(c, ext, ppath, "KHR_draco_mesh_compression", &dr))) return r;
    if (ext && (r = _oak_gltf_primitive_variants(c, ext, ppath, p))) return r;
    if (dr && (r = _oak_gltf_draco_primitive(c, prim, ppath, dr))) return r;
    char apath[192];
    snprintf(apath, sizeof apath, "%s.attributes", ppath);
    uint32_t comps;
    if ((r = read_attr_n(c, attrs, apath, "POSITION", GLTF_COMPS(3), 0, &p->positions, NULL,
                         &p->vertex_count)))
        return r;
    if (!p->positions) {
        oak_log_info("%s: %s has no POSITION; skipped", c->file, ppath);
        return OAK_OK;
    }
    uint32_t n = p->vertex_count;
    if ((r = read_attr(c, attrs, apath, "NORMAL", GLTF_COMPS(3), n, &p->normals, NULL))) return r;
    if ((r = read_attr(c, attrs, apath, "TANGENT", GLTF_COMPS(4), n, &p->tangents, NULL))) return r;
    if ((r = read_attr(c, attrs, apath, "TEXCOORD_0", GLTF_COMPS(2), n, &p->uv0, NULL))) return r;
    if ((r = read_attr(c, attrs, apath, "TEXCOORD_1", GLTF_COMPS(2), n, &p->uv1, NULL))) return r;
    float *col;
    if ((r = read_attr(c, attrs, apath, "COLOR_0", GLTF_COMPS(3) | GLTF_COMPS(4), n, &col, &comps)))
        return r;
    if (col && comps == 3) {
        p->colors = _oak_gltf_alloc(c, (size_t)n * 16);
        if (!p->colors) return _oak_gltf_oom(c);
        for (uint32_t v = 0; v < n; v++) {
            memcpy(p->colors + 4 * v, col + 3 * v, 12);
            p->colors[4 * v + 3] = 1;
        }
    } else {
        p->colors = col;
    }
    if ((r = load_skin_sets(c, attrs, ppath, p))) return r;
    if ((r = load_targets(c, prim, ppath, p))) return r;

    uint32_t *idx = NULL, icount = n;
    if (cJSON_GetObjectItemCaseSensitive(prim, "indices")) {
        uint32_t acc;
        char where[192];
        snprintf(where, sizeof where, "%s.indices", ppath);
        if ((r = _oak_gltf_uint(c, prim, ppath, "indices", true, 0, &acc))) return r;
        if ((r = _oak_gltf_read_uints(c, acc, where, GLTF_COMPS(1), &idx, &icount, &comps)))
            return r;
        for (uint32_t i = 0; i < icount; i++)
            if (idx[i] >= n)
                return oak_error(OAK_ERROR_PARSE, "%s: %s[%u] = %u is past POSITION's count %u",
                                 c->file, where, i, idx[i], n);
    }
    if (p->mode < 4) {
        oak_log_info("%s: %s is %s; oak keeps it but does not draw it", c->file, ppath,
                     p->mode == 0 ? "points" : "lines");
        p->index_count = 0;
    } else if ((r = triangulate(c, p, idx, icount))) {
        return r;
    }
    if (p->mode >= 4 && !p->normals && p->index_count && (r = flatten(c, p))) return r;
    oak_bounds_empty(&p->bounds);
    for (uint32_t v = 0; v < p->vertex_count; v++) oak_bounds_add(&p->bounds, p->positions + 3 * v);
    oak_bounds_finish(&p->bounds);
    return OAK_OK;
}

oak_result _oak_gltf_load_meshes(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "meshes", &arr, &g->mesh_count);
    if (r) return r;
    g->meshes = _oak_gltf_alloc(c, sizeof(oak_gltf_mesh) * g->mesh_count);
    if (!g->meshes) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *m;
    char path[64], ppath[128];
    cJSON_ArrayForEach(m, arr) {
        snprintf(path, sizeof path, "meshes[%u]", i);
        oak_gltf_mesh *gm = &g->meshes[i++];
        if (!cJSON_IsObject(m))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name;
        const cJSON *prims;
        if ((r = _oak_gltf_string(c, m, path, "name", &name))) return r;
        gm->name = _oak_gltf_strdup(c, name);
        if ((r = _oak_gltf_array(c, m, path, "primitives", &prims, &gm->primitive_count))) return r;
        if (!gm->primitive_count)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.primitives is missing or empty", c->file,
                             path);
        gm->primitives = _oak_gltf_alloc(c, sizeof(oak_gltf_primitive) * gm->primitive_count);
        if (!gm->name || !gm->primitives) return _oak_gltf_oom(c);
        uint32_t k = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, prims) {
            snprintf(ppath, sizeof ppath, "%s.primitives[%u]", path, k);
            if ((r = load_primitive(c, p, ppath, &gm->primitives[k]))) return r;
            if (gm->primitives[k].target_count != gm->primitives[0].target_count)
                return oak_error(OAK_ERROR_PARSE, "%s: %s has %u morph targets, primitives[0] %u",
                                 c->file, ppath, gm->primitives[k].target_count,
                                 gm->primitives[0].target_count);
            k++;
        }
        if (gm->primitive_count > UINT32_MAX - g->primitive_count) /* a sum must not wrap */
            return oak_error(OAK_ERROR_LIMIT, "%s: %s: more than %u primitives in all", c->file,
                             path, UINT32_MAX);
        g->primitive_count += gm->primitive_count;
        uint32_t targets = gm->primitives[0].target_count;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(m, "weights");
        if (targets || w) {
            gm->weight_count = targets;
            gm->weights = _oak_gltf_alloc(c, sizeof(float) * (targets ? targets : 1));
            if (!gm->weights) return _oak_gltf_oom(c);
            if (w && (r = _oak_gltf_floats(c, m, path, "weights", targets, gm->weights))) return r;
        }
    }
    return OAK_OK;
}
