/* Private to the OBJ loader: Wavefront MTL materials as read from the file,
 * before they are turned into registry materials and textures. */
#ifndef OAK_ASSET_MTL_H
#define OAK_ASSET_MTL_H

#include <oak/asset.h>

typedef struct _oak_mtl {
    char *name;
    float kd[3], ks[3], ke[3];
    float ns, d, ni, pr, pm, bump_scale;
    bool has_ns, has_pr, has_pm;
    /* texture paths, already joined with the MTL's folder; NULL if none */
    char *map_kd, *map_ke, *map_bump, *map_d, *map_pr, *map_pm;
} _oak_mtl;

typedef struct _oak_mtl_list {
    _oak_mtl *items;
    uint32_t count, capacity;
} _oak_mtl_list;

/* Appends the materials of one MTL file, which the caller found inside its
   asset root (a missing one is its warning). OAK_ERROR_IO when the file
   cannot be read (a directory, a FIFO); OAK_ERROR_PARSE names file:line. */
oak_result _oak_mtl_parse(_oak_mtl_list *list, const char *path);
void _oak_mtl_list_release(_oak_mtl_list *list);

/* Shared with the OBJ parser: whitespace-separated tokens and strict numbers. */
const char *_oak_obj_skip_space(const char *s);
const char *_oak_obj_token_end(const char *s);
/* Parses one number token at *s; false if it is not a finite number. */
bool _oak_obj_float(const char **s, float *out);

#endif
