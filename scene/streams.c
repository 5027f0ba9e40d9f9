/* The scene's instance streams: listed in world space, or at an entity whose
 * world matrix places their records (glTF's EXT_mesh_gpu_instancing nodes,
 * anything a world system hangs on a moving parent). Placing runs before a
 * gather, only for the streams whose entity moved. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "scene_internal.h"

static oak_result add(oak_scene *scene, oak_stream *stream, oak_entity e, const oak_instance *local,
                      uint32_t count) {
    if (!scene || !stream) {
        oak_destroy_stream(stream);
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_add_stream: NULL argument");
    }
    if (scene->stream_count == OAK_STREAM_MAX_PER_VIEW) {
        oak_destroy_stream(stream);
        return oak_error(OAK_ERROR_LIMIT, "scene: more than OAK_STREAM_MAX_PER_VIEW (%u) streams",
                         OAK_STREAM_MAX_PER_VIEW);
    }
    uint32_t i = scene->stream_count;
    oak_instance *copy = NULL;
    if (e.id) {
        if (!oak_scene_alive(scene, e) || (count && !local) ||
            count > oak_stream_capacity(stream)) {
            oak_destroy_stream(stream);
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_add_stream_at: %s",
                             !oak_scene_alive(scene, e) ? "the entity is not alive"
                             : count && !local          ? "no records"
                                                        : "more records than capacity");
        }
        if (count && !(copy = oak_alloc(sizeof *copy * count))) {
            oak_destroy_stream(stream);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene: no memory for %u records", count);
        }
        if (count) memcpy(copy, local, sizeof *copy * count);
    }
    scene->streams[i] = stream;
    scene->stream_anchor[i] = e;
    scene->stream_local[i] = copy;
    scene->stream_local_count[i] = count;
    scene->stream_placed_ok[i] = false;
    scene->stream_count++;
    return OAK_OK;
}

oak_result oak_scene_add_stream(oak_scene *scene, oak_stream *stream) {
    return add(scene, stream, (oak_entity){0}, NULL, 0);
}

oak_result oak_scene_add_stream_at(oak_scene *scene, oak_stream *stream, oak_entity e,
                                   const oak_instance *local, uint32_t count) {
    if (!e.id) {
        oak_destroy_stream(stream);
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_add_stream_at: no entity");
    }
    return add(scene, stream, e, local, count);
}

static void drop(oak_scene *scene, uint32_t i) {
    oak_destroy_stream(scene->streams[i]);
    oak_free(scene->stream_local[i]);
    uint32_t last = --scene->stream_count;
    scene->streams[i] = scene->streams[last];
    scene->stream_anchor[i] = scene->stream_anchor[last];
    scene->stream_local[i] = scene->stream_local[last];
    scene->stream_local_count[i] = scene->stream_local_count[last];
    memcpy(scene->stream_placed[i], scene->stream_placed[last], sizeof scene->stream_placed[i]);
    scene->stream_placed_ok[i] = scene->stream_placed_ok[last];
}

/* records in the entity's space through its world matrix m */
static void place(const mat4 m, const oak_instance *in, oak_instance *out, uint32_t n) {
    /* the rotation: m's columns without their lengths; the scale: the cube
       root of the columns' volume (uniform, as a stream's) */
    float len[3];
    mat3 rot;
    for (int c = 0; c < 3; c++) {
        len[c] = sqrtf(m[c][0] * m[c][0] + m[c][1] * m[c][1] + m[c][2] * m[c][2]);
        for (int k = 0; k < 3; k++) rot[c][k] = len[c] > 0 ? m[c][k] / len[c] : (c == k);
    }
    float scale = cbrtf(len[0] * len[1] * len[2]);
    versor qm;
    glm_mat3_quat(rot, qm);
    for (uint32_t i = 0; i < n; i++) {
        const oak_instance *a = &in[i];
        oak_instance *b = &out[i];
        *b = *a;
        for (int k = 0; k < 3; k++)
            b->position[k] = m[0][k] * a->position[0] + m[1][k] * a->position[1] +
                             m[2][k] * a->position[2] + m[3][k];
        b->scale = a->scale * scale;
        bool none = !a->rotation[0] && !a->rotation[1] && !a->rotation[2] && !a->rotation[3];
        versor q = {a->rotation[0], a->rotation[1], a->rotation[2], a->rotation[3]}, r;
        if (none) q[3] = 1;
        glm_quat_mul(qm, q, r);
        memcpy(b->rotation, r, sizeof b->rotation);
    }
}

oak_result _oak_scene_place_streams(oak_scene *scene) {
    for (uint32_t i = 0; i < scene->stream_count;) {
        oak_entity e = scene->stream_anchor[i];
        if (!e.id) {
            i++;
            continue;
        }
        if (!oak_scene_alive(scene, e)) { /* its entity is gone: so is it */
            drop(scene, i);
            continue;
        }
        mat4 m;
        oak_scene_world_matrix(scene, e, m);
        if (scene->stream_placed_ok[i] && !memcmp(m, scene->stream_placed[i], sizeof(mat4))) {
            i++;
            continue;
        }
        uint32_t n = scene->stream_local_count[i];
        if (!OAK_GROW(scene->place_tmp, scene->place_tmp_capacity, n ? n : 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene: no memory to place %u records", n);
        place((const vec4 *)m, scene->stream_local[i], scene->place_tmp, n);
        oak_result r = oak_stream_write(scene->streams[i], 0, scene->place_tmp, n);
        if (!r) r = oak_stream_set_count(scene->streams[i], n);
        if (r) return r;
        memcpy(scene->stream_placed[i], m, sizeof(mat4));
        scene->stream_placed_ok[i] = true;
        i++;
    }
    return OAK_OK;
}

void oak_scene_remove_stream(oak_scene *scene, oak_stream *stream) {
    if (!scene || !stream) return;
    for (uint32_t i = 0; i < scene->stream_count; i++)
        if (scene->streams[i] == stream) {
            drop(scene, i);
            return;
        }
}
