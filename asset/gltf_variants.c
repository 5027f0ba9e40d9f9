/* KHR_materials_variants: the file's named variants and, per primitive, the
 * material each variant gives it (-1: the primitive's own). The scene side
 * swaps an instance's materials by variant (oak_gltf_instance_set_variant). */
#include <string.h>

#include "gltf_internal.h"

#define EXT "KHR_materials_variants"

oak_result _oak_gltf_load_variants(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *ext, *mv, *arr = NULL;
    oak_result r = _oak_gltf_object(c, c->root, "", "extensions", &ext);
    if (r) return r;
    if (!ext || (r = _oak_gltf_object(c, ext, "extensions", EXT, &mv)) || !mv) return r;
    if ((r = _oak_gltf_array(c, mv, "extensions." EXT, "variants", &arr, &g->variant_count)))
        return r;
    g->variant_names = _oak_gltf_alloc(c, sizeof(char *) * g->variant_count);
    if (!g->variant_names) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    char path[96];
    cJSON_ArrayForEach(o, arr) {
        snprintf(path, sizeof path, "extensions." EXT ".variants[%u]", i);
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        if (!name) return oak_error(OAK_ERROR_PARSE, "%s: %s.name is missing", c->file, path);
        if (!(g->variant_names[i++] = _oak_gltf_strdup(c, name))) return _oak_gltf_oom(c);
    }
    return OAK_OK;
}

oak_result _oak_gltf_primitive_variants(gltf_ctx *c, const cJSON *ext, const char *ppath,
                                        oak_gltf_primitive *p) {
    const oak_gltf *g = c->g;
    const cJSON *mv, *maps;
    char ep[192], mp[224], vp[256];
    snprintf(ep, sizeof ep, "%s.extensions", ppath);
    oak_result r = _oak_gltf_object(c, ext, ep, EXT, &mv);
    if (r || !mv) return r;
    snprintf(ep, sizeof ep, "%s.extensions." EXT, ppath);
    uint32_t n;
    if ((r = _oak_gltf_array(c, mv, ep, "mappings", &maps, &n))) return r;
    if (!g->variant_count) {
        _oak_gltf_warn(c, "%s: %s maps variants the file does not list; ignored", c->file, ep);
        return OAK_OK;
    }
    p->variant_material = _oak_gltf_alloc(c, sizeof(int32_t) * g->variant_count);
    if (!p->variant_material) return _oak_gltf_oom(c);
    for (uint32_t v = 0; v < g->variant_count; v++) p->variant_material[v] = -1;
    uint32_t k = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, maps) {
        snprintf(mp, sizeof mp, "%s.mappings[%u]", ep, k++);
        if (!cJSON_IsObject(m))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, mp);
        int32_t mat;
        const cJSON *vars, *v;
        uint32_t vn;
        if ((r = _oak_gltf_index(c, m, mp, "material", g->material_count, "materials", &mat)))
            return r;
        if (mat < 0) return oak_error(OAK_ERROR_PARSE, "%s: %s.material is missing", c->file, mp);
        if ((r = _oak_gltf_array(c, m, mp, "variants", &vars, &vn))) return r;
        uint32_t j = 0;
        cJSON_ArrayForEach(v, vars) {
            snprintf(vp, sizeof vp, "%s.variants[%u]", mp, j++);
            double d = cJSON_IsNumber(v) ? v->valuedouble : -1;
            if (!(d >= 0 && d < g->variant_count && d == (double)(uint32_t)d))
                return oak_error(OAK_ERROR_PARSE, "%s: %s is not one of the %u variants", c->file,
                                 vp, g->variant_count);
            /* a variant mapped twice: the spec forbids it; the first holds */
            if (p->variant_material[(uint32_t)d] >= 0)
                _oak_gltf_warn(c, "%s: %s maps variant %u again; the first mapping holds", c->file,
                               vp, (uint32_t)d);
            else
                p->variant_material[(uint32_t)d] = mat;
        }
    }
    return OAK_OK;
}
