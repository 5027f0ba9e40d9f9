/* The scene's frame input: update transforms, gather the mesh renderer,
 * light and reflection probe columns into the arrays an oak_frame_input
 * points at (kept by the scene and reused, so a warm frame allocates nothing). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scene_internal.h"

#define GATHER_CHUNK 1024

typedef struct gather_job {
    oak_scene *scene;
    const _oak_column *renderers, *transforms;
} gather_job;

static void gather_draws(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    gather_job *job = user;
    oak_scene *s = job->scene;
    const oak_mesh_renderer *mr = (const oak_mesh_renderer *)job->renderers->data;
    for (uint32_t i = begin; i < end; i++) {
        s->draw_meshes[i] = mr[i].mesh;
        s->draw_materials[i] = mr[i].material;
        s->draw_flags[i] = mr[i].flags;
        uint32_t d = job->transforms->sparse[oak_handle_index(job->renderers->entities[i].id)];
        if (d == _OAK_NO_SLOT)
            glm_mat4_identity(s->draw_transforms[i]);
        else
            glm_mat4_copy(s->world[d], s->draw_transforms[i]);
    }
}

bool _oak_scene_probe_ok(const oak_scene_probe *p, char *why, size_t why_size) {
    static const char *const names[2] = {"box_min", "box_max"};
    const float *corner[2] = {p->box_min, p->box_max};
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 3; i++) {
            float v = corner[c][i];
            if (!isfinite(v)) {
                snprintf(why, why_size, "%s[%d] = %g is not finite", names[c], i, (double)v);
                return false;
            }
            /* the capture point is the box's origin: it must lie inside */
            if (c == 0 ? v > 0 : v < 0) {
                snprintf(why, why_size, "%s[%d] = %g is %s 0 (the box must hold its capture point)",
                         names[c], i, (double)v, c == 0 ? "above" : "below");
                return false;
            }
        }
    for (int i = 0; i < 3; i++)
        if (!(p->box_min[i] < p->box_max[i])) {
            snprintf(why, why_size, "box_min[%d] = box_max[%d] = %g (the box is flat)", i, i,
                     (double)p->box_min[i]);
            return false;
        }
    if (!isfinite(p->margin) || p->margin < 0) {
        snprintf(why, why_size, "margin = %g is not a finite number >= 0", (double)p->margin);
        return false;
    }
    return true;
}

static const char *label(const oak_scene *scene, oak_entity e) {
    const char *name = oak_scene_name(scene, e);
    return *name ? name : "(unnamed)";
}

/* Probes are few (OAK_PROBE_MAX): one pass, every one checked, since a bad
 * box would reach every backend's shading. */
static oak_result gather_probes(oak_scene *scene) {
    const _oak_column *pc = &scene->columns[OAK_COMPONENT_REFLECTION_PROBE];
    const oak_scene_probe *probes = (const oak_scene_probe *)pc->data;
    if (pc->count > OAK_PROBE_MAX) {
        oak_entity e = pc->entities[OAK_PROBE_MAX];
        return oak_error(OAK_ERROR_LIMIT,
                         "scene: entity '%s' (%#x): reflection probe %u of %u, more than "
                         "OAK_PROBE_MAX (%u)",
                         label(scene, e), e.id, OAK_PROBE_MAX + 1u, pc->count,
                         (unsigned)OAK_PROBE_MAX);
    }
    if (!OAK_GROW(scene->probes, scene->probe_capacity, pc->count))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene draw: no memory for %u probes", pc->count);
    char why[160];
    for (uint32_t i = 0; i < pc->count; i++) {
        oak_entity e = pc->entities[i];
        if (!_oak_scene_probe_ok(&probes[i], why, sizeof why))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "scene: entity '%s' (%#x): reflection probe %s", label(scene, e), e.id,
                             why);
        /* Only the capture point follows the entity: boxes stay world-aligned
         * and keep their size whatever the entity's rotation and scale. */
        mat4 w;
        oak_scene_world_matrix(scene, e, w);
        oak_reflection_probe *rp = &scene->probes[i];
        bool finite = true;
        for (int k = 0; k < 3; k++) {
            rp->position[k] = w[3][k];
            rp->box_min[k] = w[3][k] + probes[i].box_min[k];
            rp->box_max[k] = w[3][k] + probes[i].box_max[k];
            finite &= isfinite(rp->box_min[k]) && isfinite(rp->box_max[k]);
        }
        rp->margin = probes[i].margin;
        if (!finite)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "scene: entity '%s' (%#x): reflection probe box is not finite in the "
                             "world (capture point %g %g %g)",
                             label(scene, e), e.id, (double)w[3][0], (double)w[3][1],
                             (double)w[3][2]);
    }
    return OAK_OK;
}

oak_result oak_scene_frame_input(oak_scene *scene, oak_frame_input *out) {
    if (!scene || !out)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_frame_input: NULL argument");
    memset(out, 0, sizeof *out);
    oak_scene_update_transforms(scene);

    oak_entity cam = oak_scene_active_camera(scene);
    if (!cam.id) return oak_error(OAK_ERROR_NOT_FOUND, "scene has no camera entity to draw from");
    out->camera = *(const oak_camera *)oak_scene_get(scene, cam, OAK_COMPONENT_CAMERA);
    oak_scene_world_matrix(scene, cam, out->camera_world);

    const _oak_column *mr = &scene->columns[OAK_COMPONENT_MESH_RENDERER];
    const _oak_column *tc = &scene->columns[OAK_COMPONENT_TRANSFORM];
    uint32_t n = mr->count;
    if (!OAK_GROW(scene->draw_meshes, scene->draw_capacity, n) ||
        !OAK_GROW(scene->draw_materials, scene->draw_mat_capacity, n) ||
        !OAK_GROW(scene->draw_transforms, scene->draw_transform_capacity, n) ||
        !OAK_GROW(scene->draw_flags, scene->draw_flag_capacity, n))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene draw: no memory for %u draws", n);
    gather_job job = {scene, mr, tc};
    oak_parallel_for(n, GATHER_CHUNK, gather_draws, &job);
    out->draw_count = n;
    out->meshes = scene->draw_meshes;
    out->materials = scene->draw_materials;
    out->transforms = (const mat4 *)scene->draw_transforms;
    out->flags = scene->draw_flags;
    _oak_scene_lod_select(scene, out, scene->draw_flags);

    /* Lights are few (OAK_MAX_LIGHTS reach the view): one pass here. */
    const _oak_column *lc = &scene->columns[OAK_COMPONENT_LIGHT];
    if (!OAK_GROW(scene->lights, scene->light_capacity, lc->count))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene draw: no memory for %u lights", lc->count);
    const oak_light *lights = (const oak_light *)lc->data;
    for (uint32_t i = 0; i < lc->count; i++) {
        oak_render_light *rl = &scene->lights[i];
        rl->light = lights[i];
        mat4 w;
        oak_scene_world_matrix(scene, lc->entities[i], w);
        memcpy(rl->position, w[3], sizeof rl->position);
        vec3 dir = {-w[2][0], -w[2][1], -w[2][2]};
        if (glm_vec3_norm(dir) > 0.0f)
            glm_vec3_normalize(dir);
        else
            glm_vec3_copy((vec3){0, 0, -1}, dir);
        memcpy(rl->direction, dir, sizeof rl->direction);
    }
    out->light_count = lc->count;
    out->lights = scene->lights;
    oak_result r = gather_probes(scene);
    if (r) {
        memset(out, 0, sizeof *out); /* nothing half gathered reaches a renderer */
        return r;
    }
    out->probe_count = scene->columns[OAK_COMPONENT_REFLECTION_PROBE].count;
    out->probes = scene->probes;
    out->environment = &scene->environment;
    out->post = &scene->post;
    if ((r = _oak_scene_place_streams(scene))) {
        memset(out, 0, sizeof *out);
        return r;
    }
    out->stream_count = scene->stream_count;
    out->streams = scene->streams;
    return OAK_OK;
}
