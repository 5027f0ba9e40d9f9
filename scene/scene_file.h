/* What the scene file's writer and reader share: the names enums are written
 * as, and asset paths made relative to the file that mentions them. */
#ifndef OAK_SCENE_FILE_H
#define OAK_SCENE_FILE_H

#include "scene_internal.h"

#define _OAK_SCENE_FILE_VERSION 1

/* NULL-terminated name lists indexed by the enum's value. */
extern const char *const _oak_shape_names[];
extern const char *const _oak_alpha_names[];
extern const char *const _oak_wrap_names[];
extern const char *const _oak_filter_names[];
extern const char *const _oak_format_names[];
extern const char *const _oak_light_names[];
extern const char *const _oak_lobe_tex_names[]; /* oak_lobe_tex */
extern const char *const _oak_tone_names[];     /* oak_tone_curve */
extern const char *const _oak_bloom_names[];    /* oak_bloom_mode */
extern const char *const _oak_preset_names[];   /* oak_preset */

/* asset_path as the scene file at scene_path should write it: oak:// names
 * as they are, files relative to the scene file's folder. False if it does
 * not fit. */
bool _oak_scene_relative_path(char *out, size_t size, const char *scene_path,
                              const char *asset_path);

#endif
