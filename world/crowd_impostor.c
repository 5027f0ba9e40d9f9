/* The crowd's far tier baked at load (world/crowd_impostor.h): the figure
 * posed through its pose bank at each walk frame, rasterized in software
 * from each view angle by the trees' baker (world/impostor_bake.c) into a
 * cell of one atlas, and the card that shows a cell. */
#include "world/crowd_impostor.h"

#include <math.h>
#include <string.h>

#include "world/impostor_bake.h"
#include "world/internal.h"

#define CELLS (OAK_IMPOSTOR_VIEWS * OAK_IMPOSTOR_FRAMES)

typedef struct bake_job {
    const oak_pose_bank *bank;
    const oak_mesh_data *md;
    uint32_t clip, joints;
    _oak_bake_tex tex;
    const float *uv; /* the mesh's, or zeros (every vertex at texel 0, 0) */
    float texel, bottom;
    /* per worker: a palette, posed positions and normals, sample buffers */
    float **palette, **pos, **nrm;
    _oak_bake_target *target;
    uint8_t *albedo, *normal;
} bake_job;

/* The mesh posed at walk frame f into pos and nrm (mesh units). */
static void pose_frame(const bake_job *j, uint32_t f, float *palette, float *pos, float *nrm) {
    float t = (float)f / OAK_IMPOSTOR_FRAMES * oak_pose_bank_duration(j->bank, j->clip);
    oak_pose_bank_sample(j->bank, j->clip, t, palette);
    const oak_mesh_data *md = j->md;
    for (uint32_t v = 0; v < md->vertex_count; v++) {
        float m[12] = {0};
        for (int k = 0; k < 4; k++) {
            const float *jm = palette + (size_t)md->joints[4 * (size_t)v + k] * 12;
            float w = md->weights[4 * (size_t)v + k];
            for (int e = 0; e < 12; e++) m[e] += w * jm[e];
        }
        const float *p = md->positions + 3 * (size_t)v;
        const float *n = md->normals ? md->normals + 3 * (size_t)v : (const float[3]){0, 1, 0};
        for (int r = 0; r < 3; r++) {
            pos[3 * v + r] =
                m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
            nrm[3 * v + r] = m[4 * r] * n[0] + m[4 * r + 1] * n[1] + m[4 * r + 2] * n[2];
        }
    }
}

static void bake_cells(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    bake_job *j = user;
    for (uint32_t c = begin; c < end; c++) {
        uint32_t view = c % OAK_IMPOSTOR_VIEWS, frame = c / OAK_IMPOSTOR_VIEWS;
        pose_frame(j, frame, j->palette[worker], j->pos[worker], j->nrm[worker]);
        float a = 2.0f * OAK_PI * (float)view / OAK_IMPOSTOR_VIEWS;
        _oak_bake_view v = {.V = {sinf(a), 0, cosf(a)},
                            .s = j->texel,
                            .bottom = j->bottom,
                            .slot_w = OAK_IMPOSTOR_CELL_W,
                            .slot_h = OAK_IMPOSTOR_CELL_H};
        _oak_bake_tris tris = {j->pos[worker], j->nrm[worker], j->uv, j->md->indices,
                               j->md->index_count};
        _oak_bake_clear(&j->target[worker]);
        _oak_bake_raster(&j->target[worker], &v, &tris, &j->tex);
        _oak_bake_resolve(&j->target[worker], &v, j->albedo, j->normal, OAK_IMPOSTOR_ATLAS_W,
                          view * OAK_IMPOSTOR_CELL_W, frame * OAK_IMPOSTOR_CELL_H);
    }
}

/* The card's frame: a cell holds the figure in every frame, turned any way
   about the vertical axis (its reach from the axis and its height), less a
   gutter each side. */
static void card_frame(bake_job *j, float *palette, float *pos, float *nrm,
                       _oak_crowd_impostor *o) {
    float reach = 0, lo = INFINITY, hi = -INFINITY;
    for (uint32_t f = 0; f < OAK_IMPOSTOR_FRAMES; f++) {
        pose_frame(j, f, palette, pos, nrm);
        for (uint32_t v = 0; v < j->md->vertex_count; v++) {
            const float *p = pos + 3 * (size_t)v;
            reach = fmaxf(reach, sqrtf(p[0] * p[0] + p[2] * p[2]));
            lo = fminf(lo, p[1]), hi = fmaxf(hi, p[1]);
        }
    }
    if (!(hi > lo)) lo = 0, hi = 1;
    float s = fmaxf(2.0f * reach / (OAK_IMPOSTOR_CELL_W - 2 * OAK_IMPOSTOR_GUTTER),
                    (hi - lo) / (OAK_IMPOSTOR_CELL_H - 2 * OAK_IMPOSTOR_GUTTER));
    j->texel = o->texel = s;
    j->bottom = o->bottom = lo - OAK_IMPOSTOR_GUTTER * s;
    o->half_width = 0.5f * OAK_IMPOSTOR_CELL_W * s;
    o->height = OAK_IMPOSTOR_CELL_H * s;
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static oak_result make_assets(_oak_crowd_impostor *o, const oak_material_data *fig) {
    oak_texture_desc td = {.width = OAK_IMPOSTOR_ATLAS_W,
                           .height = OAK_IMPOSTOR_ATLAS_H,
                           .format = OAK_FORMAT_RGBA8_SRGB,
                           .pixels = o->albedo,
                           .name = "oak://crowd_impostor/albedo",
                           .coverage_cutoff = 0.5f,
                           /* each cell keeps its own coverage down the mips */
                           .coverage_cells = {OAK_IMPOSTOR_VIEWS, OAK_IMPOSTOR_FRAMES}};
    oak_result r = oak_make_texture(&o->albedo_tex, &td);
    if (r) return r;
    oak_texture_desc nd = {.width = OAK_IMPOSTOR_ATLAS_W,
                           .height = OAK_IMPOSTOR_ATLAS_H,
                           .format = OAK_FORMAT_RGBA8,
                           .pixels = o->normal,
                           .name = "oak://crowd_impostor/normal"};
    if ((r = oak_make_texture(&o->normal_tex, &nd))) return r;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = fig ? fig->desc.metallic : 0;
    md.roughness = fig ? fig->desc.roughness : 1;
    md.alpha_mode = OAK_ALPHA_MASK;
    md.alpha_cutoff = 0.5f;
    md.base_color_tex.texture = o->albedo_tex;
    md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
    md.normal_tex.texture = o->normal_tex;
    md.normal_tex.sampler = md.base_color_tex.sampler;
    md.name = "crowd impostor";
    if ((r = oak_make_material(&o->material, &md))) return r;
    /* the card: x across, y up, facing +z (the view's V when turned), cell
       (0, 0)'s uvs (the stream adds the chosen cell's offset) */
    float x0 = -o->half_width, x1 = o->half_width, y0 = o->bottom, y1 = o->bottom + o->height;
    const float du = 1.0f / OAK_IMPOSTOR_VIEWS, dv = 1.0f / OAK_IMPOSTOR_FRAMES;
    float pos[12] = {x0, y0, 0, x1, y0, 0, x1, y1, 0, x0, y1, 0};
    float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    float tan[16] = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
    float uv[8] = {0, dv, du, dv, du, 0, 0, 0};
    uint16_t joints[16] = {0};
    float weights[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc cd = {.vertex_count = 4,
                        .index_count = 6,
                        .positions = pos,
                        .normals = nrm,
                        .tangents = tan,
                        .uv0 = uv,
                        .joints = joints,
                        .weights = weights,
                        .indices = idx,
                        .name = "crowd impostor card"};
    return oak_make_mesh(&o->card, &cd);
}

oak_result _oak_crowd_impostor_bake(_oak_crowd_impostor *out, const oak_pose_bank *bank,
                                    uint32_t clip, oak_mesh mesh, oak_material material,
                                    bool assets) {
    memset(out, 0, sizeof *out);
    uint64_t start = oak_time_ns();
    const oak_mesh_data *md = oak_mesh_get(mesh);
    if (!bank || !md || !md->joints || !md->weights || clip >= oak_pose_bank_clips(bank))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "crowd impostor: needs a skinned mesh and a clip of its bank");
    const oak_material_data *fig = oak_material_get(material);
    bake_job j = {.bank = bank, .md = md, .clip = clip, .joints = oak_pose_bank_joints(bank)};
    j.tex.factor[0] = fig ? fig->desc.base_color[0] : 1;
    j.tex.factor[1] = fig ? fig->desc.base_color[1] : 1;
    j.tex.factor[2] = fig ? fig->desc.base_color[2] : 1;
    const oak_texture_data *td = fig ? oak_texture_get(fig->desc.base_color_tex.texture) : NULL;
    if (td && td->bytes_per_pixel == 4 && td->mips[0] &&
        (td->format == OAK_FORMAT_RGBA8_SRGB || td->format == OAK_FORMAT_RGBA8))
        j.tex.rgba = td->mips[0], j.tex.w = td->width, j.tex.h = td->height;
    uint32_t workers = oak_job_threads();
    if (workers < 1) workers = 1;
    size_t atlas = (size_t)OAK_IMPOSTOR_ATLAS_W * OAK_IMPOSTOR_ATLAS_H * 4;
    out->albedo = oak_calloc(atlas, 1);
    out->normal = oak_calloc(atlas, 1);
    j.palette = oak_calloc(workers, sizeof(float *));
    j.pos = oak_calloc(workers, sizeof(float *));
    j.nrm = oak_calloc(workers, sizeof(float *));
    j.target = oak_calloc(workers, sizeof(_oak_bake_target));
    float *uvz = md->uv0 ? NULL : oak_calloc((size_t)md->vertex_count * 2, sizeof(float));
    j.uv = md->uv0 ? md->uv0 : uvz;
    oak_result r = out->albedo && out->normal && j.palette && j.pos && j.nrm && j.target && j.uv
                       ? OAK_OK
                       : oak_error(OAK_ERROR_OUT_OF_MEMORY, "crowd impostor: no memory");
    for (uint32_t w = 0; w < workers && !r; w++) {
        j.palette[w] = oak_alloc(sizeof(float) * 12 * j.joints);
        j.pos[w] = oak_alloc(sizeof(float) * 3 * md->vertex_count);
        j.nrm[w] = oak_alloc(sizeof(float) * 3 * md->vertex_count);
        if (!j.palette[w] || !j.pos[w] || !j.nrm[w])
            r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "crowd impostor: no memory");
        else
            r = _oak_bake_target_make(&j.target[w], OAK_IMPOSTOR_CELL_W, OAK_IMPOSTOR_CELL_H);
    }
    if (!r) {
        /* empty texels: a flat normal, no coverage */
        for (size_t i = 0; i < atlas; i += 4)
            out->normal[i] = out->normal[i + 1] = 128,
            out->normal[i + 2] = out->normal[i + 3] = 255;
        card_frame(&j, j.palette[0], j.pos[0], j.nrm[0], out);
        j.albedo = out->albedo, j.normal = out->normal;
        oak_parallel_for(CELLS, 1, bake_cells, &j);
        out->hash = fnv(fnv(1469598103934665603ull, out->albedo, atlas), out->normal, atlas);
        out->bake_ms = oak_ms_since(start);
    }
    for (uint32_t w = 0; w < workers; w++) {
        if (j.palette) oak_free(j.palette[w]);
        if (j.pos) oak_free(j.pos[w]);
        if (j.nrm) oak_free(j.nrm[w]);
        if (j.target) _oak_bake_target_free(&j.target[w]);
    }
    oak_free(j.palette), oak_free(j.pos), oak_free(j.nrm), oak_free(j.target), oak_free(uvz);
    if (!r && assets) r = make_assets(out, fig);
    if (r) _oak_crowd_impostor_free(out);
    return r;
}

void _oak_crowd_impostor_free(_oak_crowd_impostor *o) {
    if (!o) return;
    if (o->card.id) oak_destroy_mesh(o->card);
    if (o->material.id) oak_destroy_material(o->material);
    if (o->albedo_tex.id) oak_destroy_texture(o->albedo_tex);
    if (o->normal_tex.id) oak_destroy_texture(o->normal_tex);
    oak_free(o->albedo), oak_free(o->normal);
    memset(o, 0, sizeof *o);
}
