/* A small shadowed scene of boxes on a plane for the Vulkan robustness tests,
 * drawn through the real frontend, and helpers that compare the backend's
 * live-object counters. */
#ifndef OAK_VULKAN_RSCENE_H
#define OAK_VULKAN_RSCENE_H

#include "vulkan_test.h"

#define RW 96
#define RH 64

typedef struct rscene {
    oak_frame_input in;
    oak_mesh meshes[64];
    oak_material mats[64];
    mat4 worlds[64];
    oak_render_light sun;
    oak_post post;
    vkt_frontend fe;
    void *vk;
} rscene;

static inline rscene *rscene_new(void) {
    rscene *s = oak_calloc(1, sizeof *s);
    if (!s) return NULL;
    oak_backend_desc d = {.width = RW, .height = RH, .shadow_map_size = 256};
    CHECK_OK(oak_backend_vulkan()->create(&s->vk, &d));
    if (!s->vk) {
        oak_free(s);
        return NULL;
    }
    vkt_look(s->in.camera_world, 0, 3, 6, 0, 0, 0);
    s->sun = (oak_render_light){.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL),
                                .direction = {-0.3f, -0.9f, -0.3f}};
    s->sun.light.cast_shadows = true;
    s->in.lights = &s->sun;
    s->in.light_count = 1;
    s->post = (oak_post){.exposure = 1};
    s->in.post = &s->post;
    s->in.meshes = s->meshes;
    s->in.materials = s->mats;
    s->in.transforms = (const mat4 *)s->worlds;
    return s;
}

static inline void rscene_free(rscene *s) {
    if (!s) return;
    oak_backend_vulkan()->destroy(s->vk);
    vkt_frontend_release(&s->fe);
    oak_free(s);
}

static inline void rscene_add(rscene *s, oak_mesh m, oak_material mat, float x, float z) {
    uint32_t i = s->in.draw_count++;
    s->meshes[i] = m;
    s->mats[i] = mat;
    glm_mat4_identity(s->worlds[i]);
    s->worlds[i][3][0] = x;
    s->worlds[i][3][2] = z;
}

static inline oak_result rscene_frame(rscene *s, uint8_t *px, uint32_t w, uint32_t h) {
    const oak_render_view *v = vkt_view(&s->fe, w, h, &s->in);
    if (!v) return OAK_ERROR_INVALID_ARGUMENT;
    return vkt_draw(s->vk, v, px);
}

static inline void populate(rscene *s) {
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {0.4f, 0.4f, 0.4f}};
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {8, 0, 8}};
    oak_mesh box, plane;
    CHECK_OK(oak_make_shape(&box, &bd));
    CHECK_OK(oak_make_shape(&plane, &pd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    oak_material mat;
    CHECK_OK(oak_make_material(&mat, &md));
    rscene_add(s, plane, mat, 0, 0);
    for (int i = 0; i < 40; i++) rscene_add(s, box, mat, -2 + (i % 8) * 0.6f, -2 + (i / 8) * 0.8f);
}

static inline bool same_counts(const oak_vk_stats *a, const oak_vk_stats *b) {
    return a->buffers == b->buffers && a->images == b->images && a->views == b->views &&
           a->suballocations == b->suballocations && a->device_bytes == b->device_bytes &&
           a->blocks == b->blocks && a->vertex_pool_used == b->vertex_pool_used &&
           a->index_pool_used == b->index_pool_used;
}

static inline void print_stats(const char *when, const oak_vk_stats *s) {
    fprintf(stderr,
            "  %s: %lld buffers, %lld images, %lld views, %lld sub-allocations, %u blocks, "
            "%llu MiB device memory, pools %llu vertices / %llu indices\n",
            when, (long long)s->buffers, (long long)s->images, (long long)s->views,
            (long long)s->suballocations, s->blocks, (unsigned long long)(s->device_bytes >> 20),
            (unsigned long long)s->vertex_pool_used, (unsigned long long)s->index_pool_used);
}

#endif
