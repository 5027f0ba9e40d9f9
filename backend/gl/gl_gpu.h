/* The OpenGL backend's GPU-side data, mirrored from shaders/gl_common.glsl
 * (std430 / std140 layouts), and the frame object that owns the pools:
 * one vertex/index pool, texture arrays by size class, materials in a
 * storage buffer, per-frame draw, light and indirect-command buffers. */
#ifndef OAK_GL_GPU_H
#define OAK_GL_GPU_H

#include "gl_internal.h"

#define OAK_GL_TEX_CLASSES 12 /* OAK_TEX_CLASSES in gl_common.glsl */

typedef struct _oak_gpu_vertex {
    float p0[4], p1[4], tangent[4], uv1[4], color[4];
} _oak_gpu_vertex;

typedef struct _oak_gpu_draw {
    float world[16], normal[16];
    uint32_t info[4]; /* first index, base vertex, material slot, flags */
} _oak_gpu_draw;

typedef struct _oak_gpu_texref {
    int32_t img[4], mode[4];
    float xf[4], scale[4];
} _oak_gpu_texref;

typedef struct _oak_gpu_material {
    float base_color[4], emissive[4], pbr[4], mode[4];
    _oak_gpu_texref tex[5];
} _oak_gpu_material;

typedef struct _oak_gpu_light {
    float color_type[4], pos_range[4], dir_cos_outer[4], cos_inner[4];
} _oak_gpu_light;

typedef struct _oak_gpu_view {
    float view_proj[16], inv_view_proj[16], shadow_vp[16];
    float camera_pos[4], sky_zenith[4], sky_horizon[4], fog[4], ambient_sky[4], ambient_ground[4],
        shadow[4], post[4];
    int32_t counts[4];
} _oak_gpu_view;

typedef struct _oak_gl_command { /* DrawElementsIndirectCommand */
    uint32_t count, instance_count, first_index;
    int32_t base_vertex;
    uint32_t base_instance;
} _oak_gl_command;

typedef struct _oak_gl_mesh_slot {
    uint32_t id, version;
    uint32_t first_index, index_count, base_vertex, vertex_count;
} _oak_gl_mesh_slot;

typedef struct _oak_gl_tex_slot {
    uint32_t id, version;
    int32_t cls, layer;
} _oak_gl_tex_slot;

typedef struct _oak_gl_mat_slot {
    uint32_t id, version, epoch;
    bool double_sided, mask, blend;
} _oak_gl_mat_slot;

typedef struct _oak_gl_tex_class {
    GLuint tex;
    uint32_t width, height, mips, layers, capacity;
    bool is_float;
} _oak_gl_tex_class;

enum {
    OAK_GL_STAGE_SHADOW,
    OAK_GL_STAGE_VIS,
    OAK_GL_STAGE_RESOLVE,
    OAK_GL_STAGE_POST,
    OAK_GL_STAGE_COUNT
};

typedef struct _oak_gl_frame {
    GLuint prog_vis, prog_vis_mask, prog_shadow, prog_shadow_mask;
    GLuint prog_resolve, prog_post, prog_fxaa;
    GLuint vao;
    _oak_gl_buffer vertices, indices, draws, casters, materials, lights, view, draw_ids, commands;
    uint32_t vertex_fill, index_fill; /* pool use, in vertices and indices */
    uint32_t draw_id_count;

    _oak_gl_mesh_slot *meshes;
    uint32_t mesh_cap;
    _oak_gl_tex_slot *texs;
    uint32_t tex_cap;
    _oak_gl_mat_slot *mats;
    uint32_t mat_cap;
    _oak_gl_tex_class classes[OAK_GL_TEX_CLASSES];
    uint32_t class_count, epoch; /* epoch moves when a texture lands somewhere new */

    GLuint shadow_tex, shadow_fbo;
    uint32_t shadow_size;

    /* CPU staging with kept capacity: a warm frame allocates nothing */
    _oak_gpu_draw *draw_data;
    uint32_t draw_cap;
    _oak_gl_command *cmds;
    uint32_t cmd_cap;
    _oak_gpu_light *light_data;
    uint32_t light_cap;

    GLuint queries[OAK_GL_STAGE_COUNT + 1];
    bool queries_pending;
    double cpu_ms[OAK_GL_STAGE_COUNT], gpu_ms[OAK_GL_STAGE_COUNT];
} _oak_gl_frame;

/* gl_resources.c: brings every mesh, material and texture the view uses up
   to date on the GPU. */
oak_result _oak_gl_sync_view(_oak_gl_frame *f, const _oak_gl_context *ctx,
                             const oak_render_view *view);
void _oak_gl_resources_release(_oak_gl_frame *f);
/* The uploaded mesh and material for a draw, or NULL when it cannot draw. */
const _oak_gl_mesh_slot *_oak_gl_mesh_of(const _oak_gl_frame *f, oak_mesh mesh);
const _oak_gl_mat_slot *_oak_gl_mat_of(const _oak_gl_frame *f, oak_material material);

#endif
