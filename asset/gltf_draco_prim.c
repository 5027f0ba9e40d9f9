/* KHR_draco_mesh_compression on a glTF primitive: its stream decoded once
 * (asset/gltf_draco.cc), then each attribute the extension names and the
 * primitive's indices read from the decoded mesh in place of their
 * accessors' (absent) views. Counts are held to the accessors' own. */
#include "draco_decode.h"
#include "gltf_internal.h"

/* A mesh larger than an accessor may be (2^28 elements) is refused. */
#define DRACO_MAX_ELEMENTS (1u << 28)

static oak_result set_values(gltf_ctx *c, const char *path, const char *what, uint32_t accessor,
                             uint32_t count, uint32_t comps, double **out) {
    const cJSON *o = cJSON_GetArrayItem(c->accessors, (int)accessor);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "count");
    if (!cJSON_IsNumber(n) || n->valuedouble != (double)count)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s: accessors[%u] (%s) counts %g, the Draco mesh has %u", c->file,
                         path, accessor, what, cJSON_IsNumber(n) ? n->valuedouble : -1.0, count);
    double *v = _oak_gltf_scratch(c, (size_t)count * comps * sizeof(double) + 8);
    if (!v) return _oak_gltf_oom(c);
    c->draco[accessor] = (struct gltf_decoded){v, count, comps};
    *out = v;
    return OAK_OK;
}

oak_result _oak_gltf_draco_primitive(gltf_ctx *c, const cJSON *prim, const char *ppath,
                                     const cJSON *dr) {
    char path[192];
    snprintf(path, sizeof path, "%s.extensions.KHR_draco_mesh_compression", ppath);
    int32_t view;
    const cJSON *attrs, *names;
    oak_result r;
    if ((r = _oak_gltf_index(c, dr, path, "bufferView", c->view_count, "bufferViews", &view)) ||
        (r = _oak_gltf_object(c, dr, path, "attributes", &attrs)) ||
        (r = _oak_gltf_object(c, prim, ppath, "attributes", &names)))
        return r;
    if (view < 0 || !attrs)
        return oak_error(OAK_ERROR_PARSE, "%s: %s needs bufferView and attributes", c->file, path);
    const uint8_t *bytes;
    size_t size;
    if ((r = _oak_gltf_view_bytes(c, (uint32_t)view, path, &bytes, &size))) return r;
    if (!c->draco) {
        c->draco = _oak_gltf_scratch(c, sizeof(*c->draco) * (c->accessor_count + 1));
        if (!c->draco) return _oak_gltf_oom(c);
    }
    _oak_draco_mesh *mesh = NULL;
    uint32_t points = 0, faces = 0;
    char why[256];
    if (_oak_draco_decode(&mesh, bytes, size, &points, &faces, why, sizeof why))
        return oak_error(OAK_ERROR_PARSE, "%s: %s: the Draco stream does not decode (%s)", c->file,
                         path, why);
    if (points > DRACO_MAX_ELEMENTS || faces > DRACO_MAX_ELEMENTS / 3) {
        r = oak_error(OAK_ERROR_LIMIT, "%s: %s: %u points and %u faces, more than oak takes (2^28)",
                      c->file, path, points, faces);
        goto out;
    }
    const cJSON *a;
    cJSON_ArrayForEach(a, attrs) {
        const cJSON *acc = cJSON_GetObjectItemCaseSensitive(names, a->string);
        if (!cJSON_IsNumber(a) || !cJSON_IsNumber(acc) || acc->valuedouble < 0 ||
            acc->valuedouble >= c->accessor_count || a->valuedouble < 0 ||
            a->valuedouble > 0xffffffffu) {
            r = oak_error(OAK_ERROR_PARSE,
                          "%s: %s.attributes.%.32s names no attribute of the primitive or no id",
                          c->file, path, a->string);
            goto out;
        }
        uint32_t ai = (uint32_t)acc->valuedouble, comps = _oak_gltf_accessor_comps(c, ai);
        double *v;
        if (!comps) {
            r = oak_error(OAK_ERROR_PARSE, "%s: accessors[%u] has no valid type", c->file, ai);
            goto out;
        }
        if ((r = set_values(c, path, a->string, ai, points, comps, &v))) goto out;
        int rc = _oak_draco_attribute(mesh, (uint32_t)a->valuedouble, comps, v);
        if (rc) {
            r = oak_error(OAK_ERROR_PARSE, "%s: %s.attributes.%.32s = %u %s", c->file, path,
                          a->string, (uint32_t)a->valuedouble,
                          rc == 1 ? "is not in the Draco mesh"
                                  : "has another component count than its accessor");
            c->draco[ai].v = NULL;
            goto out;
        }
    }
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(prim, "indices");
    if (cJSON_IsNumber(ind) && ind->valuedouble >= 0 && ind->valuedouble < c->accessor_count) {
        double *v;
        if ((r = set_values(c, path, "indices", (uint32_t)ind->valuedouble, faces * 3, 1, &v)))
            goto out;
        _oak_draco_indices(mesh, v);
    }
out:
    _oak_draco_free(mesh);
    return r;
}
