/* View, light and material records for the GPU backends, as oak_gpu.h lays
 * them out and docs/SHADING.md reads them. */
#include <math.h>
#include <string.h>

#include "gpu_records.h"
#include "oak/anim.h"
#include "render/clouds.h"
#include "render/dof.h"
#include "render/fog.h"
#include "render/shadow_layer.h"
#include "render/skylight.h"
#include "render/ssr.h"
#include "render/stream.h"
#include "shaders/common/sheen.h"

static void copy_mat(float out[16], const mat4 m) {
    memcpy(out, m, 64);
}

void _oak_gpu_view_fill(oak_gpu_view *g, const oak_render_view *v, uint32_t width, uint32_t height,
                        uint32_t light_count, uint32_t shadow_size) {
    memset(g, 0, sizeof *g);
    copy_mat(g->view_proj, v->view_proj);
    copy_mat(g->inv_view_proj, v->inv_view_proj);
    uint32_t cascades = v->shadows ? v->cascade_count : 0;
    if (cascades > OAK_MAX_CASCADES) cascades = OAK_MAX_CASCADES;
    for (uint32_t k = 0; k < OAK_MAX_CASCADES; k++) {
        const oak_shadow_cascade *c = &v->cascades[k];
        g->shadow_first[k] = UINT32_MAX; /* no caster reaches an unused cascade */
        if (k >= cascades) continue;
        copy_mat(g->shadow_view_proj[k], c->view_proj);
        g->shadow_split[k] = c->split_far;
        g->shadow_texel[k] = c->texel_world;
        g->shadow_depth[k] = c->depth_range > 0 ? c->depth_range : 1;
        g->shadow_first[k] = c->first_caster;
    }
    for (int k = 0; k < 4; k++) g->view_depth[k] = -v->view[k][2];
    _Static_assert(sizeof g->sheen_e == sizeof oak_sheen_e_table, "sheen table size");
    memcpy(g->sheen_e, oak_sheen_e_table, sizeof g->sheen_e);
    g->shadow_start[0] = v->znear;
    g->shadow_start[1] = (float)_oak_shadow_pcf(v->post.shadow_filter);
    memcpy(g->camera_pos, v->camera_pos, 12);
    g->camera_pos[3] = v->env.fog_density;
    memcpy(g->sky_zenith, v->sky_zenith, 12);
    g->sky_zenith[3] = v->post.exposure > 0 ? v->post.exposure : 1.0f;
    memcpy(g->sky_horizon, v->sky_horizon, 12);
    memcpy(g->fog_color, v->fog_color, 12);
    g->sky_horizon[3] = v->dt; /* the exposure pass's step (w was unused) */
    g->fog_color[3] = v->post.exposure_comp;
    memcpy(g->ambient_sky, v->env.ambient_sky, 12);
    memcpy(g->ambient_ground, v->env.ambient_ground, 12);
    g->size[0] = width;
    g->size[1] = height;
    g->size[2] = light_count;
    g->size[3] =
        v->key_light >= 0 && (uint32_t)v->key_light < light_count ? (uint32_t)v->key_light + 1 : 0;
    g->flags[0] = cascades;
    g->flags[1] = (v->post.no_tonemap ? OAK_GPU_POST_NO_TONEMAP : 0) |
                  (v->post.no_dither ? OAK_GPU_POST_NO_DITHER : 0) |
                  (v->post.no_fxaa ? OAK_GPU_POST_NO_FXAA : 0) |
                  (v->post.debug == OAK_DEBUG_CASCADES ? OAK_GPU_DEBUG_CASCADES : 0) |
                  (v->post.debug == OAK_DEBUG_CLUSTERS ? OAK_GPU_DEBUG_CLUSTERS : 0) |
                  (v->post.debug == OAK_DEBUG_LAMP_SHADOWS ? OAK_GPU_DEBUG_ATLAS : 0) |
                  (v->post.debug == OAK_DEBUG_AO ? OAK_GPU_DEBUG_AO : 0) |
                  (v->post.tone == OAK_TONE_NEUTRAL ? OAK_GPU_POST_TONE_NEUTRAL : 0) |
                  (v->post.adapt ? OAK_GPU_POST_ADAPT : 0) |
                  (v->post.adapt && v->adapt_settle ? OAK_GPU_POST_SETTLE : 0) |
                  (v->aerial ? OAK_GPU_AERIAL : 0); /* the backend bound OAK_B_AERIAL */
    g->flags[2] = shadow_size;
    g->flags[3] = v->draws.count;
    _oak_gpu_water_fill(g, v);
    /* weather on surfaces: the resolve's branch runs only when w is 1 */
    g->weather[0] = v->env.wetness;
    g->weather[1] = v->env.snow;
    g->weather[2] = _oak_ssr_on(v) ? 1.0f : 0.0f; /* the resolve writes the mirror buffer */
    g->weather[3] = v->env.wetness > 0 || v->env.snow > 0 ? 1.0f : 0.0f;
    g->ripples[0] = v->env.rain;
    g->ripples[1] = v->env.rain_time;
    _oak_gpu_ao_fill(g, v);
    /* post mixes the bloom in only when this frame's bloom pass ran */
    g->post_params[0] = v->post.bloom == OAK_BLOOM_ON ? v->post.bloom_strength : 0.0f;
    _oak_sun_disc_params(v, &g->post_params[1], &g->post_params[2]);
    memcpy(g->dof_params, v->dof, sizeof g->dof_params);
    if (v->dof[3] > 0) _oak_dof_taps(g->dof_taps);
    _oak_clouds_fill(&g->clouds, v, width, height);
    _oak_fog_fill(&g->fog, v);
    g->flags[1] |= v->post.debug == OAK_DEBUG_MOTION ? OAK_GPU_DEBUG_MOTION : 0;
    g->flags[1] |= v->post.channel == OAK_CHANNEL_ALBEDO   ? OAK_GPU_CHANNEL_ALBEDO
                   : v->post.channel == OAK_CHANNEL_NORMAL ? OAK_GPU_CHANNEL_NORMAL
                   : v->post.channel == OAK_CHANNEL_DEPTH  ? OAK_GPU_CHANNEL_DEPTH
                   : v->post.channel == OAK_CHANNEL_MOTION ? OAK_GPU_CHANNEL_MOTION
                                                           : 0u;
    /* textures keep the output's sharpness at a reduced render scale */
    g->post_params[3] = v->post.render_scale > 0 ? v->post.render_scale : 1.0f;
    copy_mat(g->prev_view_proj, v->prev_view_proj);
    g->taa[0] = v->jitter[0], g->taa[1] = v->jitter[1];
    g->taa[2] = v->taa_reset ? 1.0f : 0.0f;
    g->taa[3] = (float)(v->frame & 1); /* reads history image frame & 1, writes the other */
    g->out_size[0] = v->out_width ? v->out_width : width;
    g->out_size[1] = v->out_height ? v->out_height : height;
    memcpy(&g->out_size[2], &v->post.taa_sharpen, sizeof(float)); /* resolved by the frontend */
}

void _oak_gpu_ao_fill(oak_gpu_view *g, const oak_render_view *v) {
    g->ao_proj[0] = v->proj[0][0], g->ao_proj[1] = v->proj[1][1];
    g->ao_proj[2] = v->proj[2][0], g->ao_proj[3] = v->proj[2][1];
    g->ao_proj2[0] = v->proj[3][0], g->ao_proj2[1] = v->proj[3][1];
    g->ao_proj2[2] = v->ortho ? 1.0f : 0.0f;
    g->depth_proj[0] = v->proj[2][2], g->depth_proj[1] = v->proj[3][2];
    g->depth_proj[2] = v->ortho ? 1.0f : 0.0f, g->depth_proj[3] = 0;
    for (int k = 0; k < 4; k++) g->ao_view_x[k] = v->view[k][0], g->ao_view_y[k] = v->view[k][1];
    g->ao_params[0] = v->post.ao_radius > 0 ? v->post.ao_radius : (float)OAK_GTAO_RADIUS;
    g->ao_params[1] = v->post.ao_intensity > 0 ? v->post.ao_intensity : 1.0f;
    /* the resolve multiplies by the AO only when this frame's gtao ran */
    g->ao_params[3] = v->post.ao == OAK_AO_ON && v->post.debug != OAK_DEBUG_AO ? 1.0f : 0.0f;
}

uint64_t _oak_gpu_ao_floats(uint32_t width, uint32_t height) {
    uint64_t n = (uint64_t)width * height * 5; /* AO, raw AO, normals (3) */
    for (uint32_t l = 0; l < OAK_GTAO_MIPS; l++)
        n += (uint64_t)((width + (1u << l) - 1) >> l) * ((height + (1u << l) - 1) >> l);
    return n;
}

void _oak_gpu_light_fill(oak_gpu_light *g, const oak_render_light *l) {
    oak_light_type type = l->light.type ? l->light.type : OAK_LIGHT_DIRECTIONAL;
    float outer = l->light.outer_cone > 0 ? l->light.outer_cone : OAK_PI / 4.0f;
    float k = l->light.intensity;
    *g = (oak_gpu_light){
        .position = {l->position[0], l->position[1], l->position[2], (float)type},
        .direction = {l->direction[0], l->direction[1], l->direction[2], l->light.range},
        .color = {l->light.color[0] * k, l->light.color[1] * k, l->light.color[2] * k, 0},
        .cone = {cosf(outer), cosf(l->light.inner_cone), 0, 0}};
}

_Static_assert(OAK_GPU_LOBE_TEX == OAK_LOBE_TEX_DISTINCT, "the record holds every distinct ref");
_Static_assert(OAK_GPU_LOBE_TEX_COAT == OAK_LOBE_TEX_CLEARCOAT &&
                   OAK_GPU_LOBE_TEX_COAT_ROUGH == OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS &&
                   OAK_GPU_LOBE_TEX_SHEEN == OAK_LOBE_TEX_SHEEN_COLOR &&
                   OAK_GPU_LOBE_TEX_SHEEN_ROUGH == OAK_LOBE_TEX_SHEEN_ROUGHNESS &&
                   OAK_GPU_LOBE_TEX_TRANSMIT == OAK_LOBE_TEX_TRANSMISSION &&
                   OAK_GPU_LOBE_TEX_THICKNESS == OAK_LOBE_TEX_THICKNESS &&
                   OAK_GPU_LOBE_TEX_DIFFTR == OAK_LOBE_TEX_DIFFUSE_TRANSMISSION &&
                   OAK_GPU_LOBE_TEX_DIFFTR_COLOR == OAK_LOBE_TEX_DIFFUSE_TRANSMISSION_COLOR &&
                   OAK_GPU_LOBE_TEX_IRID == OAK_LOBE_TEX_IRIDESCENCE &&
                   OAK_GPU_LOBE_TEX_IRID_THICKNESS == OAK_LOBE_TEX_IRIDESCENCE_THICKNESS &&
                   OAK_GPU_LOBE_TEX_SPECULAR == OAK_LOBE_TEX_SPECULAR &&
                   OAK_GPU_LOBE_TEX_SPECULAR_COLOR == OAK_LOBE_TEX_SPECULAR_COLOR &&
                   OAK_GPU_LOBE_TEX_ANISO == OAK_LOBE_TEX_ANISOTROPY &&
                   OAK_GPU_LOBE_TEX_COAT_NORMAL == OAK_LOBE_TEX_CLEARCOAT_NORMAL &&
                   OAK_LOBE_TEX_COUNT <= 40,
               "oak_gpu.h's lobe texture numbers are asset.h's");

void _oak_gpu_lobe_refs(const oak_material_desc *d, const oak_texture_ref *refs[OAK_GPU_LOBE_TEX]) {
    static const oak_texture_ref none = {0};
    int slot[OAK_LOBE_TEX_COUNT];
    oak_material_lobe_slots(d, slot);
    for (int s = 0; s < OAK_GPU_LOBE_TEX; s++) refs[s] = &none;
    for (int k = OAK_LOBE_TEX_COUNT - 1; k >= 0; k--) /* each slot's first ref */
        if (slot[k] >= 0 && slot[k] < OAK_GPU_LOBE_TEX) refs[slot[k]] = &d->lobes.tex[k];
}

void _oak_gpu_material_fill(oak_gpu_material *g, const oak_material_desc *d) {
    memcpy(g->base_color, d->base_color, 16);
    float es = d->emissive_strength != 0 ? d->emissive_strength : 1;
    for (int c = 0; c < 3; c++) g->emissive[c] = d->emissive[c] * es;
    g->emissive[3] = d->alpha_mode == OAK_ALPHA_BLEND ? d->softness : 0; /* soft particles */
    g->params[0] = d->metallic;
    g->params[1] = d->roughness;
    g->params[2] = d->normal_scale != 0 ? d->normal_scale : 1;
    g->params[3] = d->occlusion_strength != 0 ? d->occlusion_strength : 1;
    oak_alpha_mode am = d->alpha_mode ? d->alpha_mode : OAK_ALPHA_OPAQUE;
    g->mode[0] = (float)am;
    const oak_material_lobes *lb = &d->lobes;
    bool coat = lb->clearcoat > 0;
    bool sheen = lb->sheen_color[0] > 0 || lb->sheen_color[1] > 0 || lb->sheen_color[2] > 0;
    bool aniso = lb->anisotropy > 0, irid = lb->iridescence > 0;
    bool difftr = lb->diffuse_transmission > 0, transmit = lb->transmission > 0;
    g->mode[1] = (float)((d->double_sided ? OAK_GPU_MAT_DOUBLE_SIDED : 0) |
                         (d->unlit ? OAK_GPU_MAT_UNLIT : 0) | (d->water ? OAK_GPU_MAT_WATER : 0) |
                         (coat ? OAK_GPU_MAT_COAT : 0) | (sheen ? OAK_GPU_MAT_SHEEN : 0) |
                         (aniso ? OAK_GPU_MAT_ANISO : 0) | (irid ? OAK_GPU_MAT_IRID : 0) |
                         (difftr ? OAK_GPU_MAT_DIFFTR : 0) | (transmit ? OAK_GPU_MAT_TRANSMIT : 0) |
                         (d->additive ? OAK_GPU_MAT_ADDITIVE : 0));
    g->lobe0[3] = oak_material_dielectric_f0(d, g->lobe0);
    g->lobe1[0] = lb->clearcoat;
    g->lobe1[1] = lb->clearcoat_roughness;
    g->lobe1[2] = lb->sheen_roughness;
    float r = oak_material_ior_f0(d); /* r times the colour, for the specular textures */
    const float *sc = lb->specular_color;
    g->lobe1[3] = lb->specular ? r * sc[0] : r;
    memcpy(g->lobe2, lb->sheen_color, 12);
    g->lobe2[3] = lb->specular ? r * sc[1] : r;
    g->lobe3[0] = lb->anisotropy;
    g->lobe3[1] = cosf(lb->anisotropy_rotation);
    g->lobe3[2] = sinf(lb->anisotropy_rotation);
    g->lobe3[3] = lb->specular ? r * sc[2] : r;
    g->lobe4[0] = lb->iridescence;
    g->lobe4[1] = lb->iridescence_ior > 0 ? lb->iridescence_ior : 1.3f; /* glTF's defaults */
    g->lobe4[2] = lb->iridescence_thickness > 0 ? lb->iridescence_thickness : 400;
    g->lobe4[3] = lb->iridescence_thickness_min;
    memcpy(g->lobe5, lb->diffuse_transmission_color, 12);
    g->lobe5[3] = lb->diffuse_transmission;
    g->lobe6[0] = lb->transmission;
    g->lobe6[1] = lb->thickness;
    g->lobe6[2] = lb->attenuation_distance;
    g->lobe6[3] = lb->dispersion;
    const float *ac = lb->attenuation_color;
    bool white = ac[0] == 0 && ac[1] == 0 && ac[2] == 0;
    for (int k = 0; k < 3; k++) g->lobe7[k] = white ? 1.0f : ac[k];
    g->lobe7[3] = lb->ior > 0 ? lb->ior : 1.5f;
    int slot[OAK_LOBE_TEX_COUNT];
    oak_material_lobe_slots(d, slot);
    g->lobe_map[0] = g->lobe_map[1] = g->lobe_map[2] = g->lobe_map[3] = 0;
    for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++)
        if (slot[k] >= 0 && slot[k] < OAK_GPU_LOBE_TEX &&
            (lb->specular || (k != OAK_LOBE_TEX_SPECULAR && k != OAK_LOBE_TEX_SPECULAR_COLOR)))
            g->lobe_map[k / 10] |= (uint32_t)(slot[k] + 1) << (3 * (k % 10));
    g->mode[2] = d->alpha_cutoff != 0 ? d->alpha_cutoff : (float)OAK_ALPHA_CUTOFF_DEFAULT;
    g->mode[3] = lb->clearcoat_normal_scale != 0 ? lb->clearcoat_normal_scale : 1;
    /* the tricks (d is resolved: its defaults are in); reciprocals so the
       shaders multiply, as cpu_fx.h does */
    const oak_material_fx *x = &d->fx;
    g->fx0[0] = x->triplanar > 0 ? 1.0f / x->triplanar : 0;
    g->fx0[1] = x->triplanar_sharpness;
    g->fx0[2] = x->breakup;
    g->fx0[3] = x->breakup_rotation;
    g->fx1[0] = x->variation;
    g->fx1[1] = x->variation_scale > 0 ? 1.0f / x->variation_scale : 0;
    g->fx1[2] = x->detail;
    g->fx1[3] = x->detail_distance > 0 ? 1.0f / x->detail_distance : 0;
}

void _oak_gpu_light_grid_fill(oak_gpu_light_grid *g, const oak_render_view *v,
                              uint32_t light_count) {
    memset(g, 0, sizeof *g);
    copy_mat(g->view, v->view);
    g->proj[0] = v->proj[0][0], g->proj[1] = v->proj[1][1];
    g->proj[2] = v->proj[2][0], g->proj[3] = v->proj[2][1];
    g->proj2[0] = v->proj[3][0], g->proj2[1] = v->proj[3][1];
    g->proj2[2] = v->ortho ? 1.0f : 0.0f;
    float znear = v->znear > 0 ? v->znear : 0.1f;
    float zfar = v->zfar > znear ? v->zfar : znear * 2;
    /* log slices between g0 and g1 (clamped into the camera's range); slice 0
       takes what is nearer, the last what is farther */
    float g0 = (float)OAK_LIGHT_GRID_NEAR > znear ? (float)OAK_LIGHT_GRID_NEAR : znear;
    float g1 = (float)OAK_LIGHT_GRID_FAR < zfar ? (float)OAK_LIGHT_GRID_FAR : zfar;
    if (g0 >= zfar) g0 = znear;
    if (g1 <= g0 * 1.001f) g1 = g0 * 2;
    g->slices[0] = g0;
    g->slices[1] = (float)(OAK_LIGHT_GRID_Z - 2) / logf(g1 / g0);
    g->slices[2] = znear, g->slices[3] = zfar;
    uint32_t first = v->directional_count < light_count ? v->directional_count : light_count;
    g->info[0] = first;
    g->info[1] = light_count;
}

oak_result _oak_gpu_lamp_shadows_fill(oak_gpu_lamp_shadows *g, const oak_render_view *v) {
    memset(g, 0, sizeof *g);
    uint32_t n = v->lamp_shadow_count, nf = v->lamp_face_count;
    if (n > OAK_LAMP_SHADOW_MAX || nf > OAK_LAMP_ATLAS_FACES || (n && !v->light_shadow))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gpu: %u lamp shadows, %u faces: too many", n,
                         nf);
    for (uint32_t s = 0; s < n; s++) {
        const oak_lamp_shadow *ls = &v->lamp_shadows[s];
        if (ls->light >= v->light_count || (ls->face_count != 1 && ls->face_count != 6) ||
            ls->first_face + ls->face_count > nf || !(ls->near > 0 && ls->far > ls->near))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gpu: lamp shadow %u is malformed", s);
    }
    for (uint32_t f = 0; f < nf; f++)
        if (v->lamp_faces[f].tile >= OAK_LAMP_ATLAS_FACES)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gpu: lamp face %u past the atlas", f);
    g->head[0] = n, g->head[1] = nf;
    for (uint32_t s = 0; s < n; s++) {
        const oak_lamp_shadow *ls = &v->lamp_shadows[s];
        memcpy(g->slots[s].position, v->lights[ls->light].position, 12);
        g->slots[s].position[3] = ls->near;
        g->slots[s].info[0] = ls->far, g->slots[s].info[1] = ls->tan_half;
        g->slots[s].info[2] = (float)ls->first_face, g->slots[s].info[3] = (float)ls->face_count;
    }
    for (uint32_t f = 0; f < nf; f++) {
        copy_mat(g->faces[f].view_proj, v->lamp_faces[f].view_proj);
        copy_mat(g->faces[f].view, v->lamp_faces[f].view);
        g->faces[f].info[0] = v->lamp_faces[f].tile;
    }
    return OAK_OK;
}

void _oak_gpu_light_slot(oak_gpu_light *g, const oak_render_view *v, uint32_t light) {
    int32_t s = v->light_shadow && light < v->light_count ? v->light_shadow[light] : -1;
    g->cone[2] = s >= 0 && (uint32_t)s < v->lamp_shadow_count ? (float)(s + 1) : 0.0f;
}

void _oak_gpu_instcull_fill(oak_gpu_instcull *h, uint32_t *cmds, const oak_render_view *v,
                            const oak_render_stream *rs, uint32_t first, uint32_t word,
                            const uint32_t mesh[OAK_STREAM_LODS][3], uint32_t material,
                            bool native) {
    memset(h, 0, sizeof *h);
    memset(cmds, 0, sizeof(uint32_t) * OAK_GPU_INSTCULL_HEAD_WORDS);
    h->info[0] = rs->count;
    h->info[1] = rs->lod_count;
    h->info[2] = first;
    h->info[3] = word;
    const oak_material_data *md = oak_material_get(rs->material);
    bool casts = native && v->shadows && md && md->desc.alpha_mode != OAK_ALPHA_BLEND &&
                 !(rs->flags & (OAK_DRAW_NO_SHADOW | OAK_DRAW_HIDDEN));
    uint32_t cascades = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
    h->draw[0] = material;
    h->draw[1] = rs->flags;
    h->draw[2] = native;
    h->draw[3] = casts ? cascades : 0;
    for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++) {
        h->lod_distance[k] = rs->lod_distance[k];
        const oak_mesh_data *m = oak_mesh_get(rs->lods[k]);
        if (m) {
            memcpy(h->bounds[k], m->bounds.center, sizeof(float) * 3);
            h->bounds[k][3] = m->bounds.radius;
        }
        for (uint32_t view = 0; view < OAK_GPU_INSTCULL_VIEWS; view++) {
            uint32_t list = view * OAK_STREAM_LODS + k, *c = cmds + list * 5;
            c[0] = mesh[k][0];
            c[2] = mesh[k][1];
            c[3] = mesh[k][2];
            /* the base instance: where its list starts among the words */
            c[4] = word + OAK_GPU_INSTCULL_HEAD_WORDS + list * rs->count;
        }
    }
    /* through an aligned local: cglm's vec4 wants 16 bytes, and a record
       inside a backend's frame struct need not sit on them */
    vec4 planes[6];
    oak_frustum_planes((vec4 *)v->view_proj, planes);
    memcpy(h->planes, planes, sizeof planes);
    for (uint32_t c = 0; c < cascades; c++) {
        float(*cp)[4] = &h->cascade_planes[c * OAK_CASCADE_MOVER_PLANES];
        if (rs->moved) {
            memcpy(cp, v->cascades[c].mover_planes, sizeof v->cascades[c].mover_planes);
            continue;
        }
        oak_frustum_planes((vec4 *)v->cascades[c].view_proj, planes);
        memcpy(cp, planes, sizeof planes);
        for (uint32_t p = 6; p < OAK_CASCADE_MOVER_PLANES; p++)
            cp[p][0] = cp[p][1] = cp[p][2] = 0, cp[p][3] = 1e30f;
    }
    memcpy(h->eye, v->camera_pos, sizeof(float) * 3);
    h->eye[3] = v->znear; /* the per-instance split's near-plane margin (small_at) */
    h->bend_gust[0] = 1;  /* unbent: a still field that never divides by zero */
    if (rs->bent) {
        const oak_instance_bend *b = &rs->bend;
        memcpy(h->bend_wind, b->wind, sizeof h->bend_wind);
        memcpy(h->bend_gust, b->gust, sizeof h->bend_gust);
        h->bend_gust[3] = rs->prev_time;
        memcpy(h->bend_sink, b->sink, sizeof h->bend_sink);
        h->bend_sink[3] = (float)b->benders;
        memcpy(h->benders, b->bender, sizeof(float) * 4 * b->benders);
    }
}

void _oak_gpu_water_fill(oak_gpu_view *g, const oak_render_view *v) {
    const oak_environment *e = &v->env;
    if (!e->water) return;
    g->water[0] = e->water_level;
    g->water[1] = e->water_shore;
    g->water[2] = 1.0f;
    g->water[3] = e->water_time;
    const float *x = e->water_extent;
    bool any = x[0] != 0 || x[1] != 0 || x[2] != 0 || x[3] != 0;
    for (int k = 0; k < 4; k++) g->water_extent[k] = any ? x[k] : (k < 2 ? -1e30f : 1e30f);
    memcpy(g->water_absorb, e->water_absorption, 12);
    memcpy(g->water_scatter, e->water_scatter, 12);
    memcpy(g->water_foam, e->water_foam, 12);
}

/* ---- pose blocks (issue 15) ---- */

static uint64_t pose_frames(const oak_pose_bank *b) {
    size_t floats = 0;
    oak_pose_bank_data(b, &floats);
    return floats / ((size_t)oak_pose_bank_joints(b) * 12);
}

void _oak_gpu_pose_override_span(const oak_render_stream *rs, uint64_t *first, uint64_t *records) {
    const oak_pose_bank *b = rs->pose_bank;
    *first = *records = 0;
    if (!b || !rs->pose_overrides) return;
    uint32_t joints = oak_pose_bank_joints(b);
    *first = oak_pose_bank_clips(b) + pose_frames(b) * joints;
    *records = (uint64_t)rs->pose_override_slots * joints;
}

uint64_t _oak_gpu_pose_records(const oak_render_stream *rs) {
    const oak_pose_bank *b = rs->pose_bank;
    if (!b) return 0;
    uint64_t n = oak_pose_bank_clips(b) +
                 (pose_frames(b) + rs->pose_override_slots) * oak_pose_bank_joints(b);
    for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++) {
        const oak_mesh_data *md = oak_mesh_get(rs->lods[k]);
        n += md ? md->vertex_count : 0;
    }
    return n;
}

void _oak_gpu_pose_fill(oak_gpu_instance *dst, const oak_render_stream *rs) {
    const oak_pose_bank *b = rs->pose_bank;
    if (!b) return;
    uint32_t clips = oak_pose_bank_clips(b), joints = oak_pose_bank_joints(b);
    uint64_t at = 0;
    for (uint32_t c = 0; c < clips; c++, at++) {
        memset(&dst[at], 0, sizeof dst[at]);
        dst[at].position_scale[0] = (float)oak_pose_bank_first_frame(b, c);
        dst[at].position_scale[1] = (float)oak_pose_bank_frames(b, c);
        dst[at].position_scale[2] = oak_pose_bank_duration(b, c);
    }
    /* a palette's 3 x 4 rows are one record's 12 floats */
    _Static_assert(sizeof(oak_gpu_instance) == 12 * sizeof(float), "a joint is one record");
    uint64_t palettes = pose_frames(b) * joints;
    memcpy(&dst[at], oak_pose_bank_data(b, NULL), (size_t)palettes * sizeof(oak_gpu_instance));
    at += palettes;
    /* the override slots, frames after the bank's (oak_gpu.h "Pose blocks") */
    uint64_t ovr_at, ovr_n;
    _oak_gpu_pose_override_span(rs, &ovr_at, &ovr_n);
    if (ovr_n) memcpy(&dst[at], rs->pose_overrides, (size_t)ovr_n * sizeof(oak_gpu_instance));
    at += ovr_n;
    for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++) {
        const oak_mesh_data *md = oak_mesh_get(rs->lods[k]);
        for (uint32_t v = 0; md && v < md->vertex_count; v++, at++) {
            memset(&dst[at], 0, sizeof dst[at]);
            for (int i = 0; i < OAK_GPU_POSE_INFLUENCES; i++) {
                dst[at].position_scale[i] = md->joints ? (float)md->joints[(size_t)v * 4 + i] : 0;
                dst[at].rotation[i] = md->weights ? md->weights[(size_t)v * 4 + i] : (i == 0);
            }
        }
    }
}

void _oak_gpu_pose_head(oak_gpu_instcull *h, const oak_render_stream *rs, uint32_t at) {
    const oak_pose_bank *b = rs->pose_bank;
    if (!b) return;
    uint32_t clips = oak_pose_bank_clips(b), joints = oak_pose_bank_joints(b);
    h->pose[0] = at;
    h->pose[1] = joints;
    h->pose[2] = clips;
    h->pose[3] = rs->impostor_lod; /* 0: none; prev[3] is its material slot, the backend's */
    uint64_t lod_at = at + clips + (pose_frames(b) + rs->pose_override_slots) * joints;
    for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++) {
        h->pose_lod[k] = (uint32_t)lod_at;
        const oak_mesh_data *md = oak_mesh_get(rs->lods[k]);
        lod_at += md ? md->vertex_count : 0;
        memcpy(h->bounds[k], rs->pose_sphere[k], sizeof h->bounds[k]);
    }
}

/* ---- two-pass Hi-Z (shaders/hiz_cull.comp.glsl) ------------------------- */

_Static_assert(sizeof(oak_gpu_hiz_head) == OAK_GPU_HIZ_HEAD_WORDS * 4, "hiz head words");
_Static_assert(sizeof(oak_gpu_hiz_draw) == OAK_GPU_HIZ_DRAW_WORDS * 4, "hiz draw words");

uint32_t _oak_gpu_hiz_levels(uint32_t width, uint32_t height, uint64_t *texels) {
    uint32_t w = width, h = height, n = 0;
    uint64_t sum = 0;
    do {
        w = (w + 1) / 2, h = (h + 1) / 2;
        sum += (uint64_t)w * h;
        n++;
    } while ((w > 1 || h > 1) && n < OAK_GPU_HIZ_MAX_LEVELS);
    if (texels) *texels = sum;
    return n;
}

void _oak_gpu_hiz_draw_fill(oak_gpu_hiz_draw *out, const oak_render_view *v, uint32_t i,
                            uint32_t group, uint32_t index_count, uint32_t first_index,
                            uint32_t vertex_offset) {
    /* the command and key first: a candidate is drawn from them whatever
       its sphere (the mapped slot holds an older frame's words) */
    out->cmd[0] = index_count, out->cmd[1] = first_index, out->cmd[2] = vertex_offset;
    out->cmd[3] = i;
    out->info[0] = group, out->info[1] = v->draws.key ? v->draws.key[i] : i;
    out->info[2] = out->info[3] = 0;
    const oak_mesh_data *md = oak_mesh_get(v->draws.mesh[i]);
    if (!md) { /* no mesh to bound it: a sphere round everything, always drawn */
        out->sphere[0] = out->sphere[1] = out->sphere[2] = 0, out->sphere[3] = 3.0e37f;
        return;
    }
    const float(*m)[4] = (const float(*)[4])v->draws.world[i];
    const float *c = md->bounds.center;
    float s = 0;
    for (int k = 0; k < 3; k++) {
        out->sphere[k] = m[0][k] * c[0] + m[1][k] * c[1] + m[2][k] * c[2] + m[3][k];
        float l = sqrtf(m[k][0] * m[k][0] + m[k][1] * m[k][1] + m[k][2] * m[k][2]);
        s = l > s ? l : s;
    }
    out->sphere[3] = md->bounds.radius * s;
}

uint64_t _oak_gpu_hiz_stream_base(const oak_render_view *v, uint32_t width, uint32_t height) {
    uint64_t texels;
    _oak_gpu_hiz_levels(width, height, &texels);
    return _oak_gpu_hiz_keys(v) + texels;
}

uint64_t _oak_gpu_hiz_stream_words(const oak_render_view *v) {
    uint64_t n = 0;
    for (uint32_t s = 0; s < v->stream_count && s < OAK_STREAM_MAX_PER_VIEW; s++)
        n += v->streams[s].count;
    return n;
}

void _oak_gpu_hiz_stream_head(_oak_gpu_hiz_streams *t, oak_gpu_instcull *h,
                              const oak_render_view *v, const oak_render_stream *rs, uint32_t s,
                              uint32_t at, bool drawn) {
    h->prev[1] = OAK_GPU_INSTCULL_HIZ_OFF;
    h->prev[2] = at;
    if (!v->occ_gpu || !drawn || s >= OAK_STREAM_MAX_PER_VIEW) return;
    bool stale = t->records[s] != rs->records || t->count[s] != rs->count || t->at[s] != at;
    h->prev[1] = stale ? OAK_GPU_INSTCULL_HIZ_EMPTY : OAK_GPU_INSTCULL_HIZ_ON;
    t->records[s] = rs->records, t->count[s] = rs->count, t->at[s] = at;
}

void _oak_gpu_hiz_stream_stats(oak_occlusion_stats *out, const oak_gpu_hiz_head *h) {
    uint32_t given = h->stats[2], tested = h->streams[0];
    out->instances_tested = given;
    out->instances_frustum = given > tested ? given - tested : 0;
    out->instances_occluded = h->streams[1];
    out->instances_pass1 = h->streams[2];
    out->instances_pass2 = h->streams[3];
}

void _oak_gpu_hiz_head_fill(oak_gpu_hiz_head *h, const oak_render_view *v, uint32_t count,
                            const uint32_t group_first[OAK_GPU_HIZ_GROUPS],
                            const uint32_t group_count[OAK_GPU_HIZ_GROUPS], bool compact,
                            uint32_t width, uint32_t height) {
    memset(h, 0, sizeof *h);
    h->info[0] = count, h->info[1] = v->occ_cut, h->info[2] = compact;
    h->info[3] = _oak_gpu_hiz_keys(v);
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++)
        h->group_first[g] = group_first[g], h->group_count[g] = group_count[g];
    h->size[0] = width, h->size[1] = height, h->size[2] = _oak_gpu_hiz_levels(width, height, NULL);
    h->stats[3] = UINT32_MAX; /* a count that caps nothing (vk_hiz.c says why) */
    for (uint32_t s = 0; s < v->stream_count && s < OAK_STREAM_MAX_PER_VIEW; s++)
        if (v->streams[s].native) h->stats[2] += v->streams[s].count;
    copy_mat(h->view_proj, v->view_proj);
}

/* One copy moved on to (src, version) at `at`: kept when it is that
   already, grown by the writes since its version when it holds these
   records at this place, else written whole. */
static _oak_gpu_copy_kind copy_step(_oak_gpu_copy *c, uint64_t *since, const void *src,
                                    uint64_t serial, uint64_t version, uint32_t at) {
    _oak_gpu_copy_kind k = c->src != src || c->serial != serial || c->at != at ? OAK_GPU_COPY_ALL
                           : c->version != version                             ? OAK_GPU_COPY_SINCE
                                                                               : OAK_GPU_COPY_KEEP;
    *since = c->version;
    *c = (_oak_gpu_copy){src, serial, version, at};
    return k;
}

_oak_gpu_upload _oak_gpu_upload_step(_oak_gpu_upload_ledger *L, uint32_t s,
                                     const oak_render_stream *rs, uint32_t first, uint32_t total) {
    _oak_gpu_upload u = {.cur_at = first, .prev_at = total + first};
    if (s >= OAK_STREAM_MAX_PER_VIEW) return u;
    if (rs->particles) {
        L->cur[s].src = L->prev[s].src = NULL;
        return u;
    }
    uint64_t serial = rs->stream ? rs->stream->serial : 0;
    u.cur = copy_step(&L->cur[s], &u.cur_since, rs->records, serial, rs->version, first);
    if (_oak_gpu_prev_is_records(rs))
        L->prev[s].src = NULL; /* the head's prev offset is 0: no copy */
    else
        u.prev = copy_step(&L->prev[s], &u.prev_since, rs->records, serial, rs->prev_version,
                           total + first);
    return u;
}

uint32_t _oak_gpu_grass_jobs(_oak_gpu_upload_ledger *L, const oak_render_view *v,
                             oak_gpu_grass_square **list, uint32_t *cap, uint32_t groups[2]) {
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint32_t total = 0, first = 0, n = 0;
    for (uint32_t s = 0; s < ns; s++) total += v->streams[s].count;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        uint32_t here = first;
        first += rs->count;
        if (!rs->grass || !rs->stream) continue;
        /* instcull then finds both copies current and copies nothing */
        _oak_gpu_upload u = _oak_gpu_upload_step(L, s, rs, here, total);
        const _oak_gpu_copy_kind kind[2] = {u.cur, u.prev};
        const uint64_t since[2] = {u.cur_since, u.prev_since};
        const uint32_t at[2] = {u.cur_at, u.prev_at};
        for (int c = 0; c < 2; c++) {
            if (kind[c] == OAK_GPU_COPY_KEEP) continue;
            uint32_t k = _oak_stream_grass_jobs(rs->stream, kind[c] == OAK_GPU_COPY_SINCE, since[c],
                                                at[c], list, cap, n);
            if (k == UINT32_MAX) return UINT32_MAX;
            n += k;
        }
    }
    /* rows of at most 65,535 groups, the last padded with empty squares */
    groups[0] = n < 65535 ? n : 65535, groups[1] = n ? (n + groups[0] - 1) / groups[0] : 0;
    uint32_t padded = groups[0] * groups[1];
    if (n && !OAK_GROW(*list, *cap, padded)) return UINT32_MAX;
    if (n) memset(*list + n, 0, sizeof **list * (size_t)(padded - n));
    return n;
}
