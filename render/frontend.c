/* The frontend: one oak_render_view per frame from an oak_frame_input.
 * Passes, in order: camera, frustum culling (job pool), batching by
 * (material, mesh), lights and the key light, shadow fitting, environment. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dof.h"
#include "aerial.h"
#include "fog.h"
#include "frontend.h"
#include "render_scale.h"
#include "taa.h"

#define CULL_CHUNK 1024

void _oak_frontend_release(oak_frontend *fe) {
    oak_draw_list *lists[2] = {&fe->view.draws, &fe->view.casters};
    for (int i = 0; i < 2; i++) {
        oak_free(lists[i]->mesh);
        oak_free(lists[i]->material);
        oak_free(lists[i]->world);
        oak_free(lists[i]->prev_world);
        oak_free(lists[i]->flags);
        oak_free(lists[i]->color);
        oak_free(lists[i]->pose);
        oak_free(lists[i]->key);
        oak_free(lists[i]->unit);
    }
    oak_free(fe->view.batches);
    oak_free(fe->view.lights);
    oak_free(fe->sort_keys);
    oak_free(fe->sort_tmp_keys);
    oak_free(fe->sort_index);
    oak_free(fe->sort_tmp_index);
    oak_free(fe->visible);
    oak_free(fe->sphere);
    oak_free(fe->casting);
    oak_free(fe->caster_slots);
    oak_free(fe->key_chunks);
    oak_free(fe->caster_hash);
    oak_free(fe->caster_base);
    oak_free(fe->dirty_come);
    oak_free(fe->dirty_gone);
    oak_free(fe->caster_rect);
    oak_free(fe->held_tmp);
    for (uint32_t c = 0; c < OAK_MAX_CASCADES; c++) oak_free(fe->held[c].casters);
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t s = 0; s < OAK_STREAM_MAX_PER_VIEW; s++) oak_free(fe->picks[k][s].band);
    oak_free(fe->pick_moved);
    oak_free(fe->last_world);
    oak_free(fe->last_mesh);
    oak_free(fe->last_version);
    oak_free(fe->aerial);
    _oak_lamp_shadows_release(fe);
    _oak_streams_release(fe);
    _oak_occ_release(&fe->occ);
    memset(fe, 0, sizeof *fe);
}

static bool draw_list_reserve(oak_draw_list *l, uint32_t *cap, uint32_t need) {
    if (need <= *cap) return true;
    uint32_t c = *cap;
    uint32_t c2 = c, c3 = c, c4 = c, c5 = c;
    return OAK_GROW(l->mesh, c, need) && OAK_GROW(l->material, c2, need) &&
           OAK_GROW(l->world, c3, need) && OAK_GROW(l->prev_world, c4, need) &&
           OAK_GROW(l->flags, c5, need) && (*cap = c, true);
}

/* ---- camera ------------------------------------------------------------ */

static void build_camera(oak_frontend *fe, const oak_frame_input *in, uint32_t w, uint32_t h) {
    oak_render_view *v = &fe->view;
    oak_camera cam = in->camera;
    if (cam.fov_y <= 0) cam.fov_y = 60.0f * OAK_PI / 180.0f;
    if (cam.znear <= 0) cam.znear = 0.1f;
    if (cam.zfar <= cam.znear) cam.zfar = cam.znear > 1000.0f ? cam.znear * 2 : 2000.0f;
    float aspect = cam.aspect > 0 ? cam.aspect : (float)w / (float)h;
    mat4 world;
    memcpy(world, in->camera_world, sizeof(mat4));
    glm_mat4_inv(world, v->view);
    v->ortho = cam.ortho_height > 0;
    if (v->ortho) {
        float hh = cam.ortho_height * 0.5f, hw = hh * aspect;
        oak_ortho_rz(-hw, hw, -hh, hh, cam.znear, cam.zfar, v->proj);
    } else {
        oak_perspective_rz(cam.fov_y, aspect, cam.znear, cam.zfar, v->proj);
    }
    glm_mat4_mul(v->proj, v->view, v->view_proj);
    glm_mat4_inv(v->view_proj, v->inv_view_proj);
    if (fe->has_last)
        memcpy(v->prev_view_proj, fe->last_view_proj, sizeof(mat4));
    else
        memcpy(v->prev_view_proj, v->view_proj, sizeof(mat4));
    memcpy(fe->last_view_proj, v->view_proj, sizeof(mat4));
    fe->has_last = true;
    v->camera_pos[0] = world[3][0];
    v->camera_pos[1] = world[3][1];
    v->camera_pos[2] = world[3][2];
    v->znear = cam.znear;
    v->zfar = cam.zfar;
    /* LOD by projected size (config.h OAK_LOD_REFERENCE_HEIGHT): a smaller
       render or a wider field of view moves every stream's LOD switches
       nearer, as its instances cover fewer pixels */
    float ls = 1.0f;
    if (cam.lod_scale > 0) {
        ls = cam.lod_scale > (float)OAK_LOD_SCALE_PIN_MAX ? (float)OAK_LOD_SCALE_PIN_MAX
                                                          : cam.lod_scale;
        ls = ls < (float)OAK_LOD_SCALE_MIN ? (float)OAK_LOD_SCALE_MIN : ls;
    } else if (!v->ortho) {
        double ref = OAK_LOD_REFERENCE_HEIGHT / tan(OAK_LOD_REFERENCE_FOV_Y * OAK_PI / 360.0);
        double k = (double)h * (double)v->proj[1][1] / ref;
        ls = k < OAK_LOD_SCALE_MIN ? (float)OAK_LOD_SCALE_MIN : (k > 1.0 ? 1.0f : (float)k);
    }
    v->lod_scale = ls;
    v->jitter[0] = v->jitter[1] = 0;
}

/* ---- culling ------------------------------------------------------------ */

/* The mesh sphere through the matrix, radius scaled by the largest axis scale. */
bool _oak_draw_sphere(oak_mesh mesh, mat4 m, float center[3], float *radius) {
    const oak_mesh_data *md = oak_mesh_get(mesh);
    if (!md) return false;
    vec4 c = {md->bounds.center[0], md->bounds.center[1], md->bounds.center[2], 1};
    vec4 wc;
    glm_mat4_mulv(m, c, wc);
    float s = 0;
    for (int i = 0; i < 3; i++) {
        float l = sqrtf(m[i][0] * m[i][0] + m[i][1] * m[i][1] + m[i][2] * m[i][2]);
        if (l > s) s = l;
    }
    center[0] = wc[0], center[1] = wc[1], center[2] = wc[2];
    *radius = md->bounds.radius * s;
    return true;
}

bool _oak_caster_sphere(const oak_frame_input *in, const float (*spheres)[4], uint32_t i,
                        float center[3], float *radius) {
    uint32_t flags = in->flags ? in->flags[i] : 0;
    const oak_material_data *mat = oak_material_get(in->materials[i]);
    if ((flags & (OAK_DRAW_NO_SHADOW | OAK_DRAW_HIDDEN)) || !mat ||
        mat->desc.alpha_mode == OAK_ALPHA_BLEND)
        return false;
    /* the culling's sphere: the same function of the same mesh and matrix
       (the stress world's 100,000 draws computed each twice a frame) */
    if (spheres && !isnan(spheres[i][3])) {
        memcpy(center, spheres[i], 3 * sizeof(float));
        *radius = spheres[i][3];
        return true;
    }
    mat4 m;
    memcpy(m, in->transforms[i], sizeof(mat4));
    return _oak_draw_sphere(in->meshes[i], m, center, radius);
}

typedef struct cull_job {
    const oak_frame_input *in;
    float (*sphere)[4]; /* oak_frontend.sphere: the input draws' own (not the streams') */
    vec4 planes[6];
    const oak_occ_grid *occ; /* tested after the frustum when on */
    uint8_t *visible;        /* per draw: 0 culled, 1 drawn, 2 hidden by occlusion */
    /* draws from streams_from on are stream instances the kernel already
       culled against these planes: its answers per draw */
    uint32_t streams_from;
    const uint8_t *stream_lod;
} cull_job;

static void cull_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cull_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        if (i >= j->streams_from) {
            j->visible[i] = j->stream_lod[i] < OAK_STREAM_LODS;
            continue;
        }
        float c[3], r;
        mat4 m;
        memcpy(m, j->in->transforms[i], sizeof(mat4));
        bool hidden = j->in->flags && (j->in->flags[i] & OAK_DRAW_HIDDEN);
        bool sphere = _oak_draw_sphere(j->in->meshes[i], m, c, &r);
        float *s = j->sphere[i]; /* hidden ones too: they may not cast, the fits decide */
        s[0] = c[0], s[1] = c[1], s[2] = c[2], s[3] = sphere ? r : NAN;
        j->visible[i] = !hidden && sphere && oak_material_get(j->in->materials[i]) &&
                        oak_frustum_sphere((const vec4 *)j->planes, c, r);
        if (j->visible[i] && j->occ && !_oak_occ_sphere_visible(j->occ, c, r)) j->visible[i] = 2;
    }
}

/* ---- batching: stable LSD radix sort on (material slot, mesh slot) ------ */

static void radix_sort(oak_frontend *fe, uint32_t n) {
    uint64_t *k = fe->sort_keys, *tk = fe->sort_tmp_keys;
    uint32_t *ix = fe->sort_index, *ti = fe->sort_tmp_index;
    for (int shift = 0; shift < 48; shift += 16) {
        uint32_t *count = fe->radix_count;
        memset(count, 0, sizeof fe->radix_count);
        bool all_same = true;
        for (uint32_t i = 0; i < n; i++) {
            count[(k[i] >> shift) & 0xffff]++;
            all_same &= ((k[i] >> shift) & 0xffff) == ((k[0] >> shift) & 0xffff);
        }
        if (all_same) continue;
        uint32_t sum = 0;
        for (uint32_t b = 0; b < 65536; b++) {
            uint32_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t d = count[(k[i] >> shift) & 0xffff]++;
            tk[d] = k[i];
            ti[d] = ix[i];
        }
        uint64_t *sk = k;
        k = tk, tk = sk;
        uint32_t *si = ix;
        ix = ti, ti = si;
    }
    fe->sort_keys = k, fe->sort_tmp_keys = tk;
    fe->sort_index = ix, fe->sort_tmp_index = ti;
}

/* This frame's input matrices, next frame's prev_world (last_version was
   written in place by build_draws). */
static oak_result keep_last(oak_frontend *fe, const oak_frame_input *in) {
    uint32_t n = in->draw_count;
    uint32_t c2 = fe->last_cap2;
    if (!OAK_GROW(fe->last_world, fe->last_cap, n) || !OAK_GROW(fe->last_mesh, c2, n))
        return OAK_ERROR_OUT_OF_MEMORY;
    fe->last_cap2 = c2;
    memcpy(fe->last_world, in->transforms, (size_t)n * sizeof(mat4));
    memcpy(fe->last_mesh, in->meshes, (size_t)n * sizeof(oak_mesh));
    fe->last_count = n;
    return OAK_OK;
}

/* The stream + 1 of input draw i, a BLEND one's instance (oak_draw_list.unit),
   or 0. Draws come in stream order, so the last stream found (*hint) is
   tried first. */
static uint32_t blend_unit(const oak_frontend *fe, uint32_t i, uint32_t *hint) {
    const oak_render_view *v = &fe->view;
    if (!v->stream_count || i < fe->stream_draws_from) return 0;
    for (uint32_t k = 0; k < v->stream_count; k++) {
        uint32_t s = (*hint + k) % v->stream_count;
        const oak_render_stream *rs = &v->streams[s];
        /* a device-drawn BLEND stream is one input draw, whatever its count */
        uint32_t inputs = rs->device_blend ? 1 : rs->count;
        if (rs->native || i < rs->first_input || i - rs->first_input >= inputs) continue;
        *hint = s;
        return s + 1;
    }
    return 0;
}

/* The sorted draws' columns, on the job pool: each sorted slot d reads its
   input index alone and each input index comes once, so chunks share
   nothing (the look-up caches are per chunk). */
#define FILL_CHUNK 2048
typedef struct fill_job {
    oak_frontend *fe;
    const oak_frame_input *in;
    bool same_shape;
} fill_job;

static void fill_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    fill_job *j = user;
    oak_frontend *fe = j->fe;
    const oak_frame_input *in = j->in;
    oak_render_view *v = &fe->view;
    uint32_t n = in->draw_count;
    const oak_mesh_data *md = NULL;
    uint32_t md_id = 0, unit_hint = 0, unit_mat = 0;
    bool unit_blend = false;
    for (uint32_t d = begin; d < end; d++) {
        uint32_t i = fe->sort_index[d];
        v->draws.mesh[d] = in->meshes[i];
        v->draws.material[d] = in->materials[i];
        v->draws.key[d] = i;
        if (in->materials[i].id != unit_mat) { /* batched: a run looks up once */
            const oak_material_data *um = oak_material_get(in->materials[i]);
            unit_mat = in->materials[i].id;
            unit_blend = um && um->desc.alpha_mode == OAK_ALPHA_BLEND;
        }
        v->draws.unit[d] = unit_blend ? blend_unit(fe, i, &unit_hint) : 0;
        memcpy(v->draws.world[d], in->transforms[i], sizeof(mat4));
        /* last frame's matrix: a draw is matched by its input index while
           the input keeps its shape (the same count, the same mesh at that
           index); a draw seen for the first time has not moved */
        bool seen = fe->last_count == n && fe->last_mesh[i].id == in->meshes[i].id;
        memcpy(v->draws.prev_world[d], seen ? fe->last_world[i] : in->transforms[i], sizeof(mat4));
        v->draws.flags[d] = in->flags ? in->flags[i] : 0;
        /* a posed mesh (prev_positions, or a palette) whose version moved since this
           draw was drawn last frame: its previous pose is last frame's
           (several updates between two frames: the last one's step). Not
           drawn last frame (first seen, placed mid-sequence, culled): still.
           The version is kept in place for next frame (each input index
           comes once; the culled ones are zeroed below). */
        if (in->meshes[i].id != md_id) /* batched: a run of draws shares its mesh */
            md = oak_mesh_get(in->meshes[i]), md_id = in->meshes[i].id;
        uint32_t last = j->same_shape ? fe->last_version[i] : 0;
        /* a mesh posed by its palette moves pose_version instead (both
           come from one counter, so the larger is the latest change) */
        uint32_t ver = md ? (md->pose_version > md->version ? md->pose_version : md->version) : 0;
        fe->last_version[i] = ver;
        if (seen && md && (md->prev_positions || md->palette) && last && last != ver)
            v->draws.flags[d] |= OAK_DRAW_PREV_POSE;
        else
            v->draws.flags[d] &= ~(uint32_t)OAK_DRAW_PREV_POSE;
        for (int k = 0; k < 4; k++) v->draws.color[d][k] = in->colors ? in->colors[i * 4 + k] : 1;
        v->draws.pose[d] = _oak_fe_pose(fe, in, i);
    }
}

static oak_result build_draws(oak_frontend *fe, const oak_frame_input *in) {
    oak_render_view *v = &fe->view;
    uint32_t n = in->draw_count;
    v->draws.count = 0;
    v->batch_count = 0;
    v->opaque_copy = false;
    if (!n) {
        fe->last_count = 0;
        return OAK_OK;
    }
    if (!in->meshes || !in->materials || !in->transforms)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "frame input: %u draws but no columns", n);
    if (!OAK_GROW(fe->visible, fe->visible_cap, n) || !OAK_GROW(fe->sphere, fe->sphere_cap, n))
        return OAK_ERROR_OUT_OF_MEMORY;

    /* under two-pass Hi-Z the draws are the GPU's to cull (the grid, when
       built, is the native streams') */
    cull_job job = {.in = in,
                    .sphere = fe->sphere,
                    .occ = v->occ_gpu ? NULL : &fe->occ,
                    .visible = fe->visible,
                    .streams_from = v->stream_count ? fe->stream_draws_from : n,
                    .stream_lod = fe->sx_lod};
    oak_frustum_planes(v->view_proj, job.planes);
    oak_parallel_for(n, CULL_CHUNK, cull_range, &job);

    uint32_t visible = 0, occluded = 0;
    for (uint32_t i = 0; i < n; i++) {
        visible += fe->visible[i] == 1;
        occluded += fe->visible[i] == 2;
    }
    oak_occlusion_stats *os = &fe->occ_stats;
    os->draws_tested = job.streams_from;
    os->draws_occluded = occluded;
    for (uint32_t i = 0; i < job.streams_from; i++) os->draws_frustum += fe->visible[i] == 0;
    uint32_t cap = fe->sort_cap, c2 = fe->sort_cap, c3 = fe->sort_cap, c4 = fe->sort_cap;
    if (!OAK_GROW(fe->sort_keys, cap, visible) || !OAK_GROW(fe->sort_tmp_keys, c2, visible) ||
        !OAK_GROW(fe->sort_index, c3, visible) || !OAK_GROW(fe->sort_tmp_index, c4, visible))
        return OAK_ERROR_OUT_OF_MEMORY;
    fe->sort_cap = cap;
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (fe->visible[i] != 1) continue;
        uint64_t mat = oak_handle_index(in->materials[i].id) & 0xffffff;
        uint64_t mesh = oak_handle_index(in->meshes[i].id) & 0xffffff;
        fe->sort_keys[at] = (mat << 24) | mesh;
        fe->sort_index[at] = i;
        at++;
    }
    radix_sort(fe, visible);

    uint32_t color_cap = fe->draw_cap;
    if (!OAK_GROW(v->draws.color, color_cap, visible) ||
        !OAK_GROW(v->draws.pose, fe->draw_pose_cap, visible) ||
        !OAK_GROW(v->draws.key, fe->key_cap, visible) ||
        !OAK_GROW(v->draws.unit, fe->unit_cap, visible) ||
        !draw_list_reserve(&v->draws, &fe->draw_cap, visible) ||
        !OAK_GROW(fe->last_version, fe->last_cap3, n))
        return OAK_ERROR_OUT_OF_MEMORY;
    fill_job fj = {.fe = fe, .in = in, .same_shape = fe->last_count == n};
    oak_parallel_for(visible, FILL_CHUNK, fill_range, &fj);
    /* the batches: runs of one (mesh, material) in the sorted list */
    for (uint32_t d = 0; d < visible; d++) {
        if (d == 0 || v->draws.mesh[d].id != v->draws.mesh[d - 1].id ||
            v->draws.material[d].id != v->draws.material[d - 1].id) {
            if (!OAK_GROW(v->batches, fe->batch_cap, v->batch_count + 1))
                return OAK_ERROR_OUT_OF_MEMORY;
            v->batches[v->batch_count++] =
                (oak_render_batch){d, 0, v->draws.mesh[d], v->draws.material[d]};
            /* once a batch: does its material read the frame behind it (or,
               soft, the depth behind it: the copy's level 0 w)? */
            const oak_material_data *mat = oak_material_get(v->draws.material[d]);
            if (mat && (mat->desc.water || mat->desc.lobes.transmission > 0 ||
                        (mat->desc.alpha_mode == OAK_ALPHA_BLEND && mat->desc.softness > 0)))
                v->opaque_copy = true;
        }
        v->batches[v->batch_count - 1].count++;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!fe->visible[i]) fe->last_version[i] = 0;
    v->draws.count = visible;
    os->drawn_pass1 = visible;
    return keep_last(fe, in);
}

/* ---- lights ------------------------------------------------------------ */

/* A lamp's reach (docs/SHADING.md "Lamp reach"): its range when given, else
   the distance where its brightest channel's irradiance, through the
   camera's exposure, falls to OAK_LAMP_FLOOR (so candela reach as far as
   they show). */
float _oak_lamp_reach(const oak_light *l, float exposure) {
    if (l->range > 0) return l->range;
    float c = l->color[0] > l->color[1] ? l->color[0] : l->color[1];
    c = c > l->color[2] ? c : l->color[2];
    float e = c * l->intensity;
    e *= exposure > 0 ? exposure : 1.0f;
    return e > 0 ? sqrtf(e / (float)OAK_LAMP_FLOOR) : 0.0f;
}

static void resolve_light(oak_render_light *l) {
    if (l->light.type == OAK_LIGHT_DEFAULT) l->light.type = OAK_LIGHT_DIRECTIONAL;
    if (l->light.type == OAK_LIGHT_SPOT && l->light.outer_cone <= 0)
        l->light.outer_cone = OAK_PI / 4.0f;
    float len = glm_vec3_norm(l->direction);
    if (len > 0)
        glm_vec3_scale(l->direction, 1.0f / len, l->direction);
    else
        l->direction[0] = 0, l->direction[1] = -1, l->direction[2] = 0;
}

/* Directional lights first, then the lamps whose sphere of reach meets the
   frustum, each in input order; at most OAK_MAX_LIGHTS. */
static oak_result build_lights(oak_frontend *fe, const oak_frame_input *in) {
    oak_render_view *v = &fe->view;
    uint32_t n = in->light_count;
    v->key_light = -1;
    v->light_count = v->directional_count = 0;
    if (!n) return OAK_OK;
    if (!in->lights)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "frame input: %u lights but no array", n);
    uint32_t want = n < OAK_MAX_LIGHTS ? n : OAK_MAX_LIGHTS;
    if (!OAK_GROW(v->lights, fe->light_cap, want) ||
        !OAK_GROW(fe->light_src, fe->light_src_cap, want))
        return OAK_ERROR_OUT_OF_MEMORY;
    vec4 planes[6];
    oak_frustum_planes(v->view_proj, planes);
    const oak_post no_post = {0};
    float exposure = oak_post_exposure(in->post ? in->post : &no_post);
    uint32_t at = 0, dropped = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            oak_render_light l = in->lights[i];
            resolve_light(&l);
            bool dir = l.light.type == OAK_LIGHT_DIRECTIONAL;
            if (dir != (pass == 0)) continue;
            if (!dir) {
                l.light.range = _oak_lamp_reach(&l.light, exposure);
                if (l.light.range <= 0) continue; /* black: lights nothing */
                if (!oak_frustum_sphere((const vec4 *)planes, l.position, l.light.range)) continue;
            }
            if (at == OAK_MAX_LIGHTS) {
                dropped++;
                continue;
            }
            v->lights[at] = l;
            fe->light_src[at] = i;
            /* The key light: the first shadow-casting sun, else the first sun. */
            if (dir && (v->key_light < 0 ||
                        (l.light.cast_shadows && !v->lights[v->key_light].light.cast_shadows)))
                v->key_light = (int32_t)at;
            at++;
        }
        if (pass == 0) v->directional_count = at;
    }
    if (dropped && !fe->lights_warned) {
        oak_log_warn("frame input: %u lights in view, drawing the first %u (OAK_MAX_LIGHTS)",
                     at + dropped, OAK_MAX_LIGHTS);
        fe->lights_warned = true;
    }
    v->light_count = at;
    return OAK_OK;
}

/* ---- environment and post ------------------------------------------------ */

static void build_environment(oak_frontend *fe, const oak_frame_input *in) {
    oak_render_view *v = &fe->view;
    v->env = in->environment ? *in->environment : oak_environment_defaults();
    v->post = in->post ? *in->post : (oak_post){0};
    /* the camera resolved to one multiplier; the settings then say just that */
    v->post.exposure = oak_post_exposure(&v->post);
    v->post.ev100 = oak_ev100_from_exposure(v->post.exposure);
    v->post.ev100_set = true;
    /* the adapted camera applies the compensation itself (the fixed one
       has it in exposure already); clamped as oak_post_exposure does */
    float comp = isfinite(v->post.exposure_comp) ? v->post.exposure_comp : 0.0f;
    comp = comp < -16 ? -16 : comp > 16 ? 16 : comp;
    /* the lens reads the f-number before the exposure drops it */
    _oak_dof_params(v->dof, (const float(*)[4])v->proj, v->ortho, v->post.focus_distance,
                    v->post.aperture, v->height);
    v->post.aperture = 0;
    v->post.exposure_comp = v->post.adapt ? comp : 0;
    v->dt = in->dt > 0 && isfinite(in->dt) ? in->dt : 1.0f / 60.0f;
    if (v->post.tone != OAK_TONE_NEUTRAL) v->post.tone = OAK_TONE_ACES;
    _oak_quality_fill_post(&v->post);
    /* ground-truth AO: on or off, radius and exponent resolved for the backends */
    if (v->post.ao != OAK_AO_ON && v->post.ao != OAK_AO_OFF)
        v->post.ao = OAK_GTAO_DEFAULT_ON ? OAK_AO_ON : OAK_AO_OFF;
    if (!(v->post.ao_radius > 0)) v->post.ao_radius = (float)OAK_GTAO_RADIUS;
    if (!(v->post.ao_intensity > 0)) v->post.ao_intensity = 1.0f;
    /* bloom: on or off, and a strength in (0, 1] (0, NaN: the default) */
    if (v->post.bloom != OAK_BLOOM_ON && v->post.bloom != OAK_BLOOM_OFF)
        v->post.bloom = OAK_BLOOM_DEFAULT_ON ? OAK_BLOOM_ON : OAK_BLOOM_OFF;
    if (!(v->post.bloom_strength > 0)) v->post.bloom_strength = (float)OAK_BLOOM_STRENGTH;
    if (v->post.bloom_strength > 1) v->post.bloom_strength = 1;
    if (v->post.taa != OAK_TAA_ON && v->post.taa != OAK_TAA_OFF)
        v->post.taa = OAK_TAA_DEFAULT_ON ? OAK_TAA_ON : OAK_TAA_OFF;
    /* the scale the renderer sized the backend for (it refused bad ones) */
    float scale = 1.0f;
    if (_oak_render_scale_resolve(&v->post, &scale) == OAK_OK) v->post.render_scale = scale;
    if (v->post.channel != OAK_CHANNEL_NONE) { /* nothing of post runs over a channel */
        oak_channel ch = v->post.channel;
        v->post.taa = OAK_TAA_OFF;
        v->post.bloom = OAK_BLOOM_OFF;
        v->post.adapt = false;
        v->dof[3] = 0;
        /* motion and ao are the debug views' buffers, written raw */
        v->post.debug = ch == OAK_CHANNEL_MOTION ? OAK_DEBUG_MOTION
                        : ch == OAK_CHANNEL_AO   ? OAK_DEBUG_AO
                                                 : OAK_DEBUG_NONE;
        v->post.ao = ch == OAK_CHANNEL_AO ? OAK_AO_ON : OAK_AO_OFF;
    }
    if (v->env.fog_density < 0) v->env.fog_density = 0;
    /* weather on surfaces in [0, 1] (NaN: none); the sky's scale > 0 (0, NaN: 1) */
    v->env.wetness = v->env.wetness > 0 ? (v->env.wetness < 1 ? v->env.wetness : 1.0f) : 0.0f;
    v->env.snow = v->env.snow > 0 ? (v->env.snow < 1 ? v->env.snow : 1.0f) : 0.0f;
    if (!(v->env.sky_light > 0) || !isfinite(v->env.sky_light)) v->env.sky_light = 1.0f;
    _oak_display_to_radiance(v->env.sky_zenith_display, &v->post, v->sky_zenith);
    _oak_display_to_radiance(v->env.sky_horizon_display, &v->post, v->sky_horizon);
    for (int k = 0; k < 3; k++)
        v->sky_zenith[k] *= v->env.sky_light, v->sky_horizon[k] *= v->env.sky_light;
    /* an overcast deck: the gradient toward its grey (an image sky in
       skylight.c's _oak_sky_background and sky.glsl, head[20]) */
    float grey = v->env.sky_grey > 0 ? (v->env.sky_grey < 1 ? v->env.sky_grey : 1.0f) : 0.0f;
    v->env.sky_grey = grey;
    if (grey > 0) {
        float *c[2] = {v->sky_zenith, v->sky_horizon};
        for (int i = 0; i < 2; i++) {
            float l = 0.2126f * c[i][0] + 0.7152f * c[i][1] + 0.0722f * c[i][2];
            for (int k = 0; k < 3; k++) c[i][k] += (l - c[i][k]) * grey;
        }
    }
    _oak_display_to_radiance(v->env.fog_display, &v->post, v->fog_color);
}

/* TAA's jitter (render/taa.h) and when its history starts again: the first
   TAA frame and a resize. Only the main view is jittered (shadow, lamp and
   probe views are built elsewhere, unjittered); FXAA is off under TAA. A
   scaled frame is upsampled by the taa pass to the output size (not the
   motion view, which shows raw vectors): the passes after it run there. */
static void build_taa(oak_frontend *fe) {
    oak_render_view *v = &fe->view;
    bool taa = v->post.taa == OAK_TAA_ON;
    bool up = taa && v->post.debug != OAK_DEBUG_MOTION && fe->out_width && fe->out_height &&
              (fe->out_width != v->width || fe->out_height != v->height);
    v->out_width = up ? fe->out_width : v->width;
    v->out_height = up ? fe->out_height : v->height;
    v->taa_reset =
        taa && (!fe->taa_on || fe->taa_width != v->width || fe->taa_height != v->height ||
                fe->taa_out_width != v->out_width || fe->taa_out_height != v->out_height);
    if (v->taa_reset) fe->taa_frame = 0;
    v->jitter[0] = v->jitter[1] = 0;
    /* the sharpen: clamped to [0, 1], NaN the default */
    float sh = v->post.taa_sharpen;
    if (!(sh >= 0)) sh = (float)OAK_TAA_SHARPEN_DEFAULT;
    v->post.taa_sharpen = taa ? (sh > 1 ? 1.0f : sh) : 0.0f;
    if (taa) {
        _oak_taa_jitter(fe->taa_frame++, up ? _oak_taa_phases(v->post.render_scale) : 0, v->jitter);
        v->post.no_fxaa = true;
    }
    /* depth of field's circle of confusion is in half-size pixels of the
       picture it blurs: linear in its height */
    if (up && v->dof[3] > 0) {
        float k = (float)v->out_height / (float)v->height;
        v->dof[0] *= k, v->dof[1] *= k;
    }
    fe->taa_on = taa;
    fe->taa_width = v->width, fe->taa_height = v->height;
    fe->taa_out_width = v->out_width, fe->taa_out_height = v->out_height;
}

/* Two-pass Hi-Z (the backend's, OAK_CAP_GPU_OCCLUSION): on with occlusion,
   and a camera cut when last frame's visible set says little about this
   one: Hi-Z off last frame, another size or input shape (the keys are input
   indices), the eye moved OAK_HIZ_CUT_METRES or turned more than
   acos(OAK_HIZ_CUT_COS). A cut only costs time: whatever pass 1 draws, pass
   2 tests the rest against its depth, so no set hides what shows. */
#define OAK_HIZ_CUT_METRES 4.0f
#define OAK_HIZ_CUT_COS    0.9f /* about 26 degrees */
static void hiz_view(oak_frontend *fe, const oak_frame_input *in, uint32_t width, uint32_t height) {
    oak_render_view *v = &fe->view;
    v->occ_gpu = fe->occlusion && fe->gpu_occlusion;
    float fwd[3] = {-v->view[0][2], -v->view[1][2], -v->view[2][2]}; /* -z of the view, in world */
    float d2 = 0, dot = 0;
    for (int k = 0; k < 3; k++) {
        float d = v->camera_pos[k] - fe->hiz_eye[k];
        d2 += d * d;
        dot += fwd[k] * fe->hiz_forward[k];
    }
    v->occ_cut = !fe->hiz_was_on || width != fe->hiz_width || height != fe->hiz_height ||
                 in->draw_count != fe->hiz_keys || d2 > OAK_HIZ_CUT_METRES * OAK_HIZ_CUT_METRES ||
                 dot < OAK_HIZ_CUT_COS;
    fe->hiz_was_on = v->occ_gpu;
    fe->hiz_width = width, fe->hiz_height = height, fe->hiz_keys = in->draw_count;
    memcpy(fe->hiz_eye, v->camera_pos, sizeof fe->hiz_eye);
    memcpy(fe->hiz_forward, fwd, sizeof fwd);
}

/* Volumetric fog's history (docs/SHADING.md "Volumetric fog"): kept
   while the fog runs frame after frame in the renderer's own view, at the
   same size, grid (the preset's froxels, the slices), albedo and phase's
   g, and the eye neither jumped nor turned as a camera cut does (the
   Hi-Z's bounds above). The medium's density (height fog, volumes) may
   change under it: each froxel clamps its history to the extinction its
   cell now holds, or drops it (render/fog.c _oak_fog_blend). The key
   light and the sky may change too: the history follows them at its
   weight. A reset injects alone into grid A; after it the inject
   alternates between A and B. */
static bool fog_medium_same(const oak_gpu_fog *a, const oak_gpu_fog *b) {
    return !memcmp(a->grid, b->grid, sizeof a->grid) &&
           !memcmp(a->slices, b->slices, sizeof a->slices) && a->height[3] == b->height[3] &&
           !memcmp(a->albedo, b->albedo, sizeof a->albedo);
}

static void build_fog(oak_frontend *fe, uint32_t width, uint32_t height) {
    oak_render_view *v = &fe->view;
    /* view depth is -z of the view: the view matrix's third row, negated */
    float depth[4] = {-v->view[0][2], -v->view[1][2], -v->view[2][2], -v->view[3][2]};
    v->fog_frames = 0;
    v->fog_grid = OAK_FOG_GRID_IN_PLACE;
    memcpy(v->fog_prev_depth, depth, sizeof depth);
    bool on = fe->fog_history && _oak_fog_on(v);
    if (!on) {
        fe->fog_was_on = false;
        return;
    }
    oak_gpu_fog g;
    _oak_fog_fill(&g, v);
    float fwd[3] = {-v->view[0][2], -v->view[1][2], -v->view[2][2]};
    float d2 = 0, dot = 0;
    for (int k = 0; k < 3; k++) {
        float d = v->camera_pos[k] - fe->fog_eye[k];
        d2 += d * d;
        dot += fwd[k] * fe->fog_forward[k];
    }
    bool keep = fe->fog_was_on && width == fe->fog_width && height == fe->fog_height &&
                fog_medium_same(&g, &fe->fog_last) &&
                d2 <= OAK_HIZ_CUT_METRES * OAK_HIZ_CUT_METRES && dot >= OAK_HIZ_CUT_COS;
    if (keep) {
        v->fog_frames = fe->fog_frames + 1;
        v->fog_grid = fe->fog_grid == OAK_FOG_GRID_A ? OAK_FOG_GRID_B : OAK_FOG_GRID_A;
        memcpy(v->fog_prev_depth, fe->fog_depth, sizeof depth);
    } else {
        v->fog_grid = OAK_FOG_GRID_A;
    }
    fe->fog_was_on = true;
    fe->fog_frames = v->fog_frames, fe->fog_grid = v->fog_grid;
    fe->fog_width = width, fe->fog_height = height;
    fe->fog_last = g;
    memcpy(fe->fog_eye, v->camera_pos, sizeof fe->fog_eye);
    memcpy(fe->fog_forward, fwd, sizeof fwd);
    memcpy(fe->fog_depth, depth, sizeof depth);
}

/* Whether the clouds' march may blend with last frame's (docs/SHADING.md
   "Volumetric clouds"): clouds ran the frame before this one at the same
   march size and record (coverage, type, extinction, layer, key light,
   its colour; the drift moved at most OAK_CLOUD_HISTORY_DRIFT metres), and
   the camera did not cut (Hi-Z's test: moved OAK_HIZ_CUT_METRES or turned
   more than acos(OAK_HIZ_CUT_COS)). OAK_CLOUD_HISTORY=0 in the environment
   turns it off (the tests' history-less frames). Assumes the backend keeps
   its clouds buffer while the march's size holds (it only grows). */
static void clouds_history(oak_frontend *fe, uint32_t width, uint32_t height) {
    oak_render_view *v = &fe->view;
    v->clouds_history = false;
    oak_gpu_clouds c;
    _oak_clouds_fill(&c, v, width, height);
    float fwd[3] = {-v->view[0][2], -v->view[1][2], -v->view[2][2]};
    if (c.shape[3] != 0.0f && fe->cloud_had && fe->cloud_frame + 1 == v->frame) {
        const oak_gpu_clouds *l = &fe->cloud_last;
        float d2 = 0, dot = 0, dx = c.layer[2] - l->layer[2], dz = c.layer[3] - l->layer[3];
        for (int k = 0; k < 3; k++) {
            float d = v->camera_pos[k] - fe->cloud_eye[k];
            d2 += d * d;
            dot += fwd[k] * fe->cloud_forward[k];
        }
        const char *off = getenv("OAK_CLOUD_HISTORY");
        v->clouds_history =
            !memcmp(c.shape, l->shape, sizeof c.shape) && c.layer[0] == l->layer[0] &&
            c.layer[1] == l->layer[1] && !memcmp(c.sun, l->sun, sizeof c.sun) &&
            !memcmp(c.light, l->light, sizeof c.light) && c.size[0] == l->size[0] &&
            c.size[1] == l->size[1] && c.size[2] == l->size[2] && c.steps[0] == l->steps[0] &&
            dx * dx + dz * dz <= (float)(OAK_CLOUD_HISTORY_DRIFT * OAK_CLOUD_HISTORY_DRIFT) &&
            d2 <= OAK_HIZ_CUT_METRES * OAK_HIZ_CUT_METRES && dot >= OAK_HIZ_CUT_COS &&
            !(off && !strcmp(off, "0"));
    }
    fe->cloud_had = c.shape[3] != 0.0f;
    fe->cloud_frame = v->frame;
    fe->cloud_last = c;
    memcpy(fe->cloud_eye, v->camera_pos, sizeof fe->cloud_eye);
    memcpy(fe->cloud_forward, fwd, sizeof fwd);
}

/* Aerial perspective's volume (render/aerial.h): built when the backend
   applies it and the view wants it, again only when the view-projection,
   the eye, the light or the sky's scale or grey moved. OAK_AERIAL=off turns it
   off (docs/SHADING.md "Aerial perspective"). */
static oak_result build_aerial(oak_frontend *fe) {
    oak_render_view *v = &fe->view;
    v->aerial = NULL;
    const char *env = getenv("OAK_AERIAL"); /* "off": none, for A/B measurements */
    if (!fe->aerial_cap || !_oak_aerial_wanted(v) || (env && !strcmp(env, "off"))) return OAK_OK;
    float key[25];
    memcpy(key, v->view_proj, 16 * sizeof(float));
    memcpy(key + 16, v->camera_pos, 3 * sizeof(float));
    memcpy(key + 19, v->env.aerial_dir, 3 * sizeof(float));
    key[22] = v->env.aerial_lux, key[23] = v->env.sky_light, key[24] = v->env.sky_grey;
    if (!fe->aerial) {
        fe->aerial = oak_alloc((size_t)OAK_AERIAL_TEXELS * 4 * sizeof(float));
        if (!fe->aerial)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "aerial perspective: out of memory");
        fe->aerial_valid = false;
    }
    if (!fe->aerial_valid || memcmp(key, fe->aerial_key, sizeof key) != 0) {
        _oak_aerial_build(fe->aerial, v);
        memcpy(fe->aerial_key, key, sizeof key);
        fe->aerial_valid = true;
        fe->aerial_version++;
    }
    v->aerial = fe->aerial;
    v->aerial_version = fe->aerial_version;
    return OAK_OK;
}

oak_result _oak_frontend_build(oak_frontend *fe, const oak_frame_input *in, uint32_t width,
                               uint32_t height, uint32_t shadow_map_size) {
    oak_render_view *v = &fe->view;
    v->width = width;
    v->height = height;
    v->shadow_map_size = shadow_map_size;
    build_camera(fe, in, width, height);
    /* the post settings and TAA's jitter first: the occlusion grid samples
       where the raster will */
    build_environment(fe, in);
    build_taa(fe);
    /* occlusion: the grid of the largest draws, before the streams and the
       draws are culled against it (render/occlusion.c) */
    memset(&fe->occ_stats, 0, sizeof fe->occ_stats);
    fe->occ.on = false;
    hiz_view(fe, in, width, height);
    /* under Hi-Z the GPU culls the draws and the native streams: no grid */
    if (fe->occlusion && !v->occ_gpu) {
        vec4 planes[6];
        oak_frustum_planes(v->view_proj, planes);
        oak_result res = _oak_occ_build(&fe->occ, in, (const vec4 *)planes, v->view_proj, v->ortho,
                                        v->jitter, width, height);
        if (res) return res;
        fe->occ_stats.on = fe->occ.on;
        fe->occ_stats.occluders = fe->occ.occluders;
        fe->occ_stats.occluder_triangles = fe->occ.triangles;
    }
    fe->occ_stats.on |= v->occ_gpu;
    /* the grid as the backend's test too (the CPU's meshlets) */
    v->occ_sphere_visible = fe->occ.on ? _oak_occ_view_test : NULL;
    v->occ_grid = fe->occ.on ? &fe->occ : NULL;
    /* instance streams: culled and LOD-picked, then drawn and cast as
       draws; those a GPU backend draws natively are neither among the
       view's draws nor the cascades' casters (view_input leaves them out),
       and reach the lamp faces only (stream_cull.c) */
    oak_result r = _oak_frontend_streams(fe, &in);
    if (r) return r;
    const oak_frame_input *drawn = v->stream_count ? &fe->view_input : in;
    r = build_draws(fe, drawn);
    if (r) return r;
    v->occ_keys = drawn->draw_count; /* the draws' keys index it */
    r = build_lights(fe, in);
    if (r) return r;
    clouds_history(fe, width, height); /* after the lights: the record has the key light */
    _oak_frontend_fit_shadows(fe, drawn);
    r = _oak_frontend_fit_lamp_shadows(fe, in);
    if (r) return r;
    build_fog(fe, width, height);
    return build_aerial(fe);
}
