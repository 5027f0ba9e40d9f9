/* MSFT_lod on nodes, with MSFT_screencoverage: a node names the nodes that
 * stand for it at lower detail and, in its extras, the screen coverage down
 * to which each level is drawn. The LOD nodes are not part of the scene on
 * their own; the scene side places them beside the node and draws one level
 * at a time (scene/gltf_scene.c). Material-level MSFT_lod is not read (the
 * highest level is drawn, as a client without the extension would). */
#include <math.h>
#include <string.h>

#include "gltf_internal.h"

#define EXT "MSFT_lod"

/* the node's levels after checking them; false (with a warning) drops the
   extension and leaves the highest level alone */
static bool check_levels(gltf_ctx *c, uint32_t i, const char *path, const uint32_t *ids, uint32_t n,
                         uint8_t *used) {
    const oak_gltf *g = c->g;
    for (uint32_t k = 0; k < n; k++) {
        const oak_gltf_node *l = &g->nodes[ids[k]];
        const char *why = ids[k] == i      ? "is the node itself"
                          : l->parent >= 0 ? "has a parent"
                          : used[ids[k]]   ? "stands for another node too"
                          : l->lod_count   ? "has levels of its own"
                                           : NULL;
        for (uint32_t r = 0; !why && r < g->root_count; r++)
            if (g->roots[r] == ids[k]) why = "is in the scene on its own";
        if (why) {
            _oak_gltf_warn(c,
                           "%s: %s.extensions." EXT ".ids[%u] = %u %s; the node is drawn "
                           "at its own level only",
                           c->file, path, k, ids[k], why);
            return false;
        }
    }
    for (uint32_t k = 0; k < n; k++) used[ids[k]] = 1;
    return true;
}

/* extras.MSFT_screencoverage: one value per level (the node's first), each
   the smallest coverage that level is drawn at, falling; below the last
   nothing is drawn. Anything else: none, with a warning. */
static void read_coverage(gltf_ctx *c, const cJSON *node, const char *path, oak_gltf_node *n) {
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(node, "extras");
    const cJSON *sc =
        cJSON_IsObject(ex) ? cJSON_GetObjectItemCaseSensitive(ex, "MSFT_screencoverage") : NULL;
    if (!sc) return;
    uint32_t want = n->lod_count + 1, have = (uint32_t)cJSON_GetArraySize(sc);
    bool ok = cJSON_IsArray(sc) && have == want;
    float v[OAK_GLTF_LOD_MAX + 1];
    uint32_t k = 0;
    const cJSON *e;
    if (ok) cJSON_ArrayForEach(e, sc) {
            double d = cJSON_IsNumber(e) ? e->valuedouble : NAN;
            if (!(d >= 0 && d <= 1) || (k && d > v[k - 1])) ok = false;
            if (k < OAK_GLTF_LOD_MAX + 1) v[k++] = (float)d;
        }
    if (!ok) {
        _oak_gltf_warn(c,
                       "%s: %s.extras.MSFT_screencoverage is not %u falling values in [0, 1]; "
                       "the node is drawn at its own level only",
                       c->file, path, want);
        return;
    }
    n->lod_coverage = _oak_gltf_alloc(c, sizeof(float) * have);
    if (!n->lod_coverage) return;
    memcpy(n->lod_coverage, v, sizeof(float) * have);
    n->lod_coverage_count = have;
}

oak_result _oak_gltf_load_lods(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    uint32_t count;
    oak_result r = _oak_gltf_array(c, c->root, "", "nodes", &arr, &count);
    if (r || !count) return r;
    uint8_t *used = _oak_gltf_scratch(c, count);
    if (!used) return _oak_gltf_oom(c);
    memset(used, 0, count);
    uint32_t i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        char path[64], ep[96];
        snprintf(path, sizeof path, "nodes[%u]", i);
        snprintf(ep, sizeof ep, "%s.extensions", path);
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(o, "extensions"), *lod, *ids;
        oak_gltf_node *n = &g->nodes[i];
        if (!cJSON_IsObject(ext) || (r = _oak_gltf_object(c, ext, ep, EXT, &lod)) || !lod) {
            if (r) return r;
            i++;
            continue;
        }
        snprintf(ep, sizeof ep, "%s.extensions." EXT, path);
        uint32_t n_ids;
        if ((r = _oak_gltf_array(c, lod, ep, "ids", &ids, &n_ids))) return r;
        if (n_ids > OAK_GLTF_LOD_MAX)
            return oak_error(OAK_ERROR_LIMIT, "%s: %s.ids has %u levels, OAK_GLTF_LOD_MAX is %u",
                             c->file, ep, n_ids, OAK_GLTF_LOD_MAX);
        uint32_t list[OAK_GLTF_LOD_MAX], k = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, ids) {
            double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (d < 0 || d >= g->node_count || d != floor(d))
                return oak_error(OAK_ERROR_PARSE, "%s: %s.ids[%u] is not a node index", c->file, ep,
                                 k);
            list[k++] = (uint32_t)d;
        }
        if (n_ids && check_levels(c, i, path, list, n_ids, used)) {
            n->lod_nodes = _oak_gltf_alloc(c, sizeof(uint32_t) * n_ids);
            if (!n->lod_nodes) return _oak_gltf_oom(c);
            memcpy(n->lod_nodes, list, sizeof(uint32_t) * n_ids);
            n->lod_count = n_ids;
            read_coverage(c, o, path, n);
        }
        i++;
    }
    return OAK_OK;
}
