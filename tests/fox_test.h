/* The Fox (tests/data/models/animated/Fox.glb; CC0 model, CC-BY 4.0 rig and
 * animation) as the crowd tests use it: its skinned mesh, a pose bank of
 * its Survey, Walk and Run, its scale to a given height, the orange coat
 * and grey ground they draw it with, and the depth comparison that holds a
 * posed figure against a reference drawn the CPU's way. */
#ifndef OAK_TEST_FOX_H
#define OAK_TEST_FOX_H

#include <math.h>
#include <oak/anim.h>

#include "gltf_test_assets.h"
#include "oak_test.h"

typedef struct oak_test_fox {
    oak_gltf *gltf;
    int32_t clips[3];    /* Survey, Walk, Run: the bank's clips 0, 1, 2 */
    uint32_t node, skin; /* the skinned mesh's node and its skin */
    const oak_gltf_primitive *prim;
    oak_mesh mesh;
    oak_material material; /* the glTF's */
    float scale;           /* model units to metres at the height asked */
    oak_pose_bank *bank;
} oak_test_fox;

/* Loads the Fox scaled to `metres` tall and its bank; false (with the
   failure counted) when either did not come. */
static inline bool oak_test_fox_load(oak_test_fox *f, float metres) {
    memset(f, 0, sizeof *f);
    char path[256];
    CHECK_OK(oak_gltf_load(&f->gltf, gltf_asset(path, sizeof path, "animated/Fox.glb"), NULL));
    if (!f->gltf) return false;
    const char *names[3] = {"Survey", "Walk", "Run"};
    for (int k = 0; k < 3; k++) f->clips[k] = oak_gltf_find_clip(f->gltf, names[k]);
    for (uint32_t n = 0; n < f->gltf->node_count; n++)
        if (f->gltf->nodes[n].skin >= 0 && f->gltf->nodes[n].mesh >= 0)
            f->node = n, f->skin = (uint32_t)f->gltf->nodes[n].skin;
    f->prim = &f->gltf->meshes[f->gltf->nodes[f->node].mesh].primitives[0];
    f->mesh = f->prim->mesh;
    f->material = f->prim->material >= 0 ? f->gltf->material_handles[f->prim->material]
                                         : f->gltf->default_material;
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t v = 0; v < f->prim->vertex_count; v++)
        lo = fminf(lo, f->prim->positions[3 * v + 1]),
        hi = fmaxf(hi, f->prim->positions[3 * v + 1]);
    f->scale = metres / (hi - lo);
    oak_pose_bank_desc bd = {.gltf = f->gltf, .skin = f->skin, .clip_count = 3, .clips = f->clips};
    CHECK_OK(oak_make_pose_bank(&f->bank, &bd));
    return f->bank != NULL;
}

static inline void oak_test_fox_free(oak_test_fox *f) {
    oak_destroy_pose_bank(f->bank);
    oak_gltf_free(f->gltf);
    memset(f, 0, sizeof *f);
}

/* The coat (orange, rough), the ground's material (grey) and a 24 m
   ground plane the tests draw the Fox with. */
static inline void oak_test_fox_props(oak_material *coat, oak_material *ground_mat,
                                      oak_mesh *ground) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 0.8f, md.base_color[1] = 0.35f, md.base_color[2] = 0.1f;
    md.roughness = 0.7f;
    CHECK_OK(oak_make_material(coat, &md));
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.45f;
    md.roughness = 0.9f;
    CHECK_OK(oak_make_material(ground_mat, &md));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {24, 0, 24}};
    CHECK_OK(oak_make_shape(ground, &gd));
}

/* Depth channels (4 floats a pixel, depth first) of the figure under test
   (d[0]), a figure it must not match (d[1]), the reference (d[2]) and the
   ground alone (d[3]): the figure's pixels (off the ground's depth in d[0]
   or d[2]), those where d[0] is within 1 mm of the reference, and those
   where d[1] is. */
static inline void oak_test_depth_agree(float *const d[4], size_t px, uint32_t *figure,
                                        uint32_t *agree, uint32_t *other) {
    *figure = *agree = *other = 0;
    for (size_t i = 0; i < px; i++) {
        float a = d[0][4 * i], b = d[1][4 * i], c = d[2][4 * i], g = d[3][4 * i];
        if (fabsf(a - g) <= 1e-4f && fabsf(c - g) <= 1e-4f) continue;
        (*figure)++;
        *agree += fabsf(a - c) <= 1e-3f;
        *other += fabsf(b - c) <= 1e-3f;
    }
}

#endif
