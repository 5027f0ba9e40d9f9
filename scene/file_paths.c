/* Scene file naming: enum names as written in files, and asset paths turned
 * relative to the scene file on save (oak_path_confine resolves them on
 * load), so a scene folder can move as a whole. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scene_file.h"

const char *const _oak_shape_names[] = {"default",  "plane",   "box",         "sphere",
                                        "cylinder", "capsule", "heightfield", NULL};
const char *const _oak_alpha_names[] = {"default", "opaque", "mask", "blend", NULL};
const char *const _oak_wrap_names[] = {"default", "repeat", "clamp", "mirror", NULL};
const char *const _oak_tone_names[] = {"default", "aces", "neutral", NULL};
const char *const _oak_bloom_names[] = {"default", "on", "off", NULL};
/* oak_preset, in its order (oak_preset_name) */
const char *const _oak_preset_names[] = {"default", "low", "medium", "high", "ultra", NULL};
const char *const _oak_filter_names[] = {"default", "nearest", "linear", NULL};
const char *const _oak_format_names[] = {"default", "rgba8_srgb", "rgba8", "rgba32f", NULL};
const char *const _oak_light_names[] = {"default", "directional", "point", "spot", NULL};
/* oak_lobe_tex, in its order: the keys of a material's lobes' "textures" */
const char *const _oak_lobe_tex_names[] = {"clearcoat",
                                           "clearcoat_roughness",
                                           "sheen_color",
                                           "sheen_roughness",
                                           "transmission",
                                           "thickness",
                                           "diffuse_transmission",
                                           "diffuse_transmission_color",
                                           "iridescence",
                                           "iridescence_thickness",
                                           "specular",
                                           "specular_color",
                                           "anisotropy",
                                           "clearcoat_normal",
                                           NULL};
_Static_assert(sizeof _oak_lobe_tex_names / sizeof *_oak_lobe_tex_names == OAK_LOBE_TEX_COUNT + 1,
               "a name for every oak_lobe_tex");

#define MAX_PARTS 256

/* Splits an absolute form of path into components with "." and ".."
 * folded away. Parts point into buf. */
static int split_absolute(char *buf, size_t size, const char *path, char **parts) {
    buf[0] = 0;
    if (path[0] != '/') {
        if (!getcwd(buf, size)) return -1;
    }
    size_t len = strlen(buf);
    if (snprintf(buf + len, size - len, "/%s", path) >= (int)(size - len)) return -1;
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (!strcmp(tok, ".")) continue;
        if (!strcmp(tok, "..")) {
            if (n) n--;
            continue;
        }
        if (n == MAX_PARTS) return -1;
        parts[n++] = tok;
    }
    return n;
}

bool _oak_scene_relative_path(char *out, size_t size, const char *scene_path,
                              const char *asset_path) {
    if (!strncmp(asset_path, "oak://", 6)) return snprintf(out, size, "%s", asset_path) < (int)size;
    char abuf[4096], sbuf[4096];
    char *ap[MAX_PARTS], *sp[MAX_PARTS];
    int an = split_absolute(abuf, sizeof abuf, asset_path, ap);
    int sn = split_absolute(sbuf, sizeof sbuf, scene_path, sp);
    if (an < 1 || sn < 1) return false;
    sn--; /* the scene file's folder */
    int common = 0;
    while (common < sn && common < an - 1 && !strcmp(ap[common], sp[common])) common++;
    size_t len = 0;
    out[0] = 0;
    for (int i = common; i < sn; i++) {
        int w = snprintf(out + len, size - len, "../");
        if (w < 0 || (size_t)w >= size - len) return false;
        len += (size_t)w;
    }
    for (int i = common; i < an; i++) {
        int w = snprintf(out + len, size - len, "%s%s", ap[i], i + 1 < an ? "/" : "");
        if (w < 0 || (size_t)w >= size - len) return false;
        len += (size_t)w;
    }
    return true;
}
