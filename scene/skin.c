/* The deform system: walks the posed-primitive column; for each one builds
 * the joint palette (inverse mesh-node world x joint world x inverse bind,
 * sized by the skin, no fixed bone limit). A primitive the backends pose
 * (_oak_deform.palette: skinned by 4 or 8 influences and/or morphed, its
 * weights valid) gets the palette as 3 x 4 rows (one identity joint when
 * morphed only) and its morph weights through oak_mesh_update_pose and
 * nothing else; the rest (weights or joints that fail the check) are
 * morphed and skinned here on the job pool in fixed chunks and handed to
 * oak_mesh_update_vertices (in place, no heap calls); bounds follow the
 * pose either way. */
#include <math.h>
#include <string.h>

#include "anim_internal.h"

#define SKIN_CHUNK 1024 /* vertices per job: fixed, so results never depend on threads */

typedef struct skin_job {
    const oak_gltf_primitive *p;
    const float *weights; /* morph weights, target_count of them, or NULL */
    const float *palette; /* 16 per joint, or NULL when unskinned */
    _oak_deform *d;
} skin_job;

static void normalize3(float *v) {
    float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0) v[0] /= n, v[1] /= n, v[2] /= n;
}

static void pose_vertices(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const skin_job *j = user;
    const oak_gltf_primitive *p = j->p;
    uint32_t inf = p->influence_count;
    for (uint32_t v = begin; v < end; v++) {
        float pos[3], nrm[3], tan[3];
        memcpy(pos, p->positions + 3 * v, 12);
        memcpy(nrm, p->normals + 3 * v, 12);
        memcpy(tan, p->tangents + 4 * v, 12);
        if (j->weights)
            for (uint32_t t = 0; t < p->target_count; t++) {
                float w = j->weights[t];
                const oak_gltf_target *tg = &p->targets[t];
                if (w == 0) continue;
                for (int k = 0; k < 3; k++) {
                    if (tg->positions) pos[k] += w * tg->positions[3 * v + k];
                    if (tg->normals) nrm[k] += w * tg->normals[3 * v + k];
                    if (tg->tangents) tan[k] += w * tg->tangents[3 * v + k];
                }
            }
        if (j->palette && inf) {
            float m[16] = {0};
            float total = 0;
            for (uint32_t k = 0; k < inf; k++) {
                float w = p->weights[(size_t)v * inf + k];
                if (w == 0) continue;
                const float *jm = j->palette + 16 * (size_t)p->joints[(size_t)v * inf + k];
                for (int e = 0; e < 16; e++) m[e] += w * jm[e];
                total += w;
            }
            if (total > 0) { /* column-major: m[col * 4 + row] */
                float q[3], n2[3], t2[3];
                for (int r = 0; r < 3; r++) {
                    q[r] = m[r] * pos[0] + m[4 + r] * pos[1] + m[8 + r] * pos[2] + m[12 + r];
                    n2[r] = m[r] * nrm[0] + m[4 + r] * nrm[1] + m[8 + r] * nrm[2];
                    t2[r] = m[r] * tan[0] + m[4 + r] * tan[1] + m[8 + r] * tan[2];
                }
                memcpy(pos, q, 12);
                memcpy(nrm, n2, 12);
                memcpy(tan, t2, 12);
            }
        }
        normalize3(nrm);
        normalize3(tan);
        memcpy(j->d->positions + 3 * v, pos, 12);
        memcpy(j->d->normals + 3 * v, nrm, 12);
        memcpy(j->d->tangents + 4 * v, tan, 12);
        j->d->tangents[4 * v + 3] = p->tangents[4 * v + 3];
    }
}

static oak_result pose_one(oak_gltf_instance *inst, _oak_deform *d) {
    const oak_gltf *g = inst->gltf;
    const oak_gltf_primitive *p = &g->meshes[d->mesh].primitives[d->prim];
    skin_job job = {.p = p, .d = d};
    if (p->target_count && g->nodes[d->node].weight_count)
        job.weights = inst->weights + inst->weight_base[d->node];
    if (d->skin >= 0) {
        const oak_gltf_skin *s = &g->skins[d->skin];
        mat4 node_world, inv, jw, ibm, out;
        oak_scene_world_matrix(inst->scene, inst->nodes[d->node], node_world);
        glm_mat4_inv(node_world, inv);
        for (uint32_t k = 0; k < s->joint_count; k++) {
            oak_entity je = inst->nodes[s->joints[k]];
            if (je.id)
                oak_scene_world_matrix(inst->scene, je, jw);
            else
                oak_gltf_node_world(g, s->joints[k], jw); /* outside the scene: rest pose */
            memcpy(ibm, s->inverse_bind + 16 * (size_t)k, 64);
            glm_mat4_mul(jw, ibm, out);
            glm_mat4_mul(inv, out, out);
            memcpy(inst->joint_mats + 16 * (size_t)k, out, 64);
            float *rows = inst->joint_rows + 12 * (size_t)k; /* column-major to rows */
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 4; c++) rows[4 * r + c] = out[c][r];
        }
        /* the backends pose it (on the GPUs in compute): no vertex here */
        if (d->palette)
            return oak_mesh_update_pose(d->posed, s->joint_count, inst->joint_rows,
                                        job.weights ? p->target_count : 0, job.weights);
        job.palette = inst->joint_mats;
    } else if (d->palette) { /* morphed only: one joint, the identity */
        static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        return oak_mesh_update_pose(d->posed, 1, identity, job.weights ? p->target_count : 0,
                                    job.weights);
    }
    oak_parallel_for(p->vertex_count, SKIN_CHUNK, pose_vertices, &job);
    return oak_mesh_update_vertices(d->posed, p->vertex_count, d->positions, d->normals,
                                    d->tangents);
}

oak_result oak_skin_update(oak_scene *scene) {
    if (!scene) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_skin_update: no scene");
    oak_scene_update_transforms(scene);
    oak_component dc =
        oak_scene_register_component(scene, OAK_DEFORM_COMPONENT, sizeof(_oak_deform_ref));
    oak_column col = oak_scene_column(scene, dc);
    for (uint32_t i = 0; i < col.count; i++) {
        const _oak_deform_ref *ref =
            (const _oak_deform_ref *)((const uint8_t *)col.data + (size_t)i * col.stride);
        if (!ref->inst || ref->index >= ref->inst->deform_count) continue;
        oak_result r = pose_one(ref->inst, &ref->inst->deforms[ref->index]);
        if (r) return r;
    }
    return OAK_OK;
}
