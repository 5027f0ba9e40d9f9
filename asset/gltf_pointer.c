/* KHR_animation_pointer: the JSON pointers oak animates (the glTF Asset
 * Object Model's mutable node, material, light and camera properties), what
 * each path indexes and how wide its keys are, and the pointer parser the
 * loader calls. A pointer oak does not animate is skipped with a warning. */
#include <string.h>

#include "gltf_internal.h"

typedef struct path_info {
    oak_anim_target target;
    uint32_t width;
    const char *tail; /* after "/nodes/N/", "/materials/N/", ... */
} path_info;

static const path_info k_paths[OAK_ANIM_PATH_COUNT] = {
    [OAK_ANIM_PATH_TRANSLATION] = {OAK_ANIM_TARGET_NODE, 3, "translation"},
    [OAK_ANIM_PATH_ROTATION] = {OAK_ANIM_TARGET_NODE, 4, "rotation"},
    [OAK_ANIM_PATH_SCALE] = {OAK_ANIM_TARGET_NODE, 3, "scale"},
    [OAK_ANIM_PATH_WEIGHTS] = {OAK_ANIM_TARGET_NODE, 0, "weights"},
    [OAK_ANIM_PATH_VISIBLE] = {OAK_ANIM_TARGET_NODE, 1, "extensions/KHR_node_visibility/visible"},
    [OAK_ANIM_PATH_BASE_COLOR] = {OAK_ANIM_TARGET_MATERIAL, 4,
                                  "pbrMetallicRoughness/baseColorFactor"},
    [OAK_ANIM_PATH_METALLIC] = {OAK_ANIM_TARGET_MATERIAL, 1, "pbrMetallicRoughness/metallicFactor"},
    [OAK_ANIM_PATH_ROUGHNESS] = {OAK_ANIM_TARGET_MATERIAL, 1,
                                 "pbrMetallicRoughness/roughnessFactor"},
    [OAK_ANIM_PATH_EMISSIVE] = {OAK_ANIM_TARGET_MATERIAL, 3, "emissiveFactor"},
    [OAK_ANIM_PATH_EMISSIVE_STRENGTH] = {OAK_ANIM_TARGET_MATERIAL, 1,
                                         "extensions/KHR_materials_emissive_strength/"
                                         "emissiveStrength"},
    [OAK_ANIM_PATH_ALPHA_CUTOFF] = {OAK_ANIM_TARGET_MATERIAL, 1, "alphaCutoff"},
    [OAK_ANIM_PATH_NORMAL_SCALE] = {OAK_ANIM_TARGET_MATERIAL, 1, "normalTexture/scale"},
    [OAK_ANIM_PATH_OCCLUSION_STRENGTH] = {OAK_ANIM_TARGET_MATERIAL, 1, "occlusionTexture/strength"},
    [OAK_ANIM_PATH_LIGHT_COLOR] = {OAK_ANIM_TARGET_LIGHT, 3, "color"},
    [OAK_ANIM_PATH_LIGHT_INTENSITY] = {OAK_ANIM_TARGET_LIGHT, 1, "intensity"},
    [OAK_ANIM_PATH_LIGHT_RANGE] = {OAK_ANIM_TARGET_LIGHT, 1, "range"},
    [OAK_ANIM_PATH_LIGHT_INNER_CONE] = {OAK_ANIM_TARGET_LIGHT, 1, "spot/innerConeAngle"},
    [OAK_ANIM_PATH_LIGHT_OUTER_CONE] = {OAK_ANIM_TARGET_LIGHT, 1, "spot/outerConeAngle"},
    [OAK_ANIM_PATH_CAMERA_YFOV] = {OAK_ANIM_TARGET_CAMERA, 1, "perspective/yfov"},
    [OAK_ANIM_PATH_CAMERA_ASPECT] = {OAK_ANIM_TARGET_CAMERA, 1, "perspective/aspectRatio"},
    [OAK_ANIM_PATH_CAMERA_XMAG] = {OAK_ANIM_TARGET_CAMERA, 1, "orthographic/xmag"},
    [OAK_ANIM_PATH_CAMERA_YMAG] = {OAK_ANIM_TARGET_CAMERA, 1, "orthographic/ymag"},
    /* znear and zfar sit under the camera's own projection object */
    [OAK_ANIM_PATH_CAMERA_ZNEAR] = {OAK_ANIM_TARGET_CAMERA, 1, "znear"},
    [OAK_ANIM_PATH_CAMERA_ZFAR] = {OAK_ANIM_TARGET_CAMERA, 1, "zfar"},
};

oak_anim_target oak_anim_path_target(oak_anim_path path, uint32_t *width) {
    bool known = path > OAK_ANIM_PATH_DEFAULT && path < OAK_ANIM_PATH_COUNT;
    if (width) *width = known ? k_paths[path].width : 0;
    return known ? k_paths[path].target : OAK_ANIM_TARGET_NODE;
}

const char *oak_anim_path_name(oak_anim_path path) {
    return path > OAK_ANIM_PATH_DEFAULT && path < OAK_ANIM_PATH_COUNT ? k_paths[path].tail : "";
}

/* An RFC 6901 array index: "0" or digits without a leading zero. */
static bool read_index(const char **s, uint32_t *out) {
    const char *p = *s;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9')) return false;
    uint64_t v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (uint64_t)(*p++ - '0');
        if (v > UINT32_MAX) return false;
    }
    if (*p != '/') return false;
    *s = p + 1;
    *out = (uint32_t)v;
    return true;
}

bool _oak_gltf_pointer(const char *ptr, const oak_gltf *g, oak_anim_path *path, uint32_t *index,
                       uint32_t *count) {
    static const struct {
        const char *prefix;
        oak_anim_target target;
    } roots[] = {
        {"/nodes/", OAK_ANIM_TARGET_NODE},
        {"/materials/", OAK_ANIM_TARGET_MATERIAL},
        {"/extensions/KHR_lights_punctual/lights/", OAK_ANIM_TARGET_LIGHT},
        {"/cameras/", OAK_ANIM_TARGET_CAMERA},
    };
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        size_t n = strlen(roots[r].prefix);
        if (strncmp(ptr, roots[r].prefix, n) != 0) continue;
        const char *s = ptr + n;
        if (!read_index(&s, index)) return false;
        oak_anim_target t = roots[r].target;
        *count = t == OAK_ANIM_TARGET_NODE       ? g->node_count
                 : t == OAK_ANIM_TARGET_MATERIAL ? g->material_count
                 : t == OAK_ANIM_TARGET_LIGHT    ? g->light_count
                                                 : g->camera_count;
        if (t == OAK_ANIM_TARGET_CAMERA &&
            (strcmp(s, "perspective/znear") == 0 || strcmp(s, "orthographic/znear") == 0)) {
            *path = OAK_ANIM_PATH_CAMERA_ZNEAR;
            return true;
        }
        if (t == OAK_ANIM_TARGET_CAMERA &&
            (strcmp(s, "perspective/zfar") == 0 || strcmp(s, "orthographic/zfar") == 0)) {
            *path = OAK_ANIM_PATH_CAMERA_ZFAR;
            return true;
        }
        for (int p = OAK_ANIM_PATH_TRANSLATION; p < OAK_ANIM_PATH_COUNT; p++)
            if (k_paths[p].target == t && strcmp(s, k_paths[p].tail) == 0 &&
                p != OAK_ANIM_PATH_CAMERA_ZNEAR && p != OAK_ANIM_PATH_CAMERA_ZFAR) {
                *path = (oak_anim_path)p;
                return true;
            }
        return false;
    }
    return false;
}
