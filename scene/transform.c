/* Transforms and the hierarchy: local TRS per entity, parent links that
 * refuse cycles, and the transform system, which walks a parents-first order
 * once and recomputes a world matrix only where it or an ancestor changed. */
#include <math.h>
#include <string.h>

#include "scene_internal.h"

oak_transform oak_transform_identity(void) {
    return (oak_transform){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
}

oak_transform oak_transform_look_at(const float eye[3], const float target[3]) {
    oak_transform t = oak_transform_identity();
    memcpy(t.position, eye, sizeof t.position);
    vec3 z = {eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]};
    if (glm_vec3_norm(z) <= 0.0f) return t;
    glm_vec3_normalize(z);
    /* Straight up or down has no horizon to level with; the camera's up then
     * points along -Z (north on a map) when looking down, +Z looking up. */
    vec3 up = {0, 1, 0}, x, y;
    glm_vec3_cross(up, z, x);
    if (glm_vec3_norm(x) < 1e-6f) {
        vec3 alt = {0, 0, z[1] > 0 ? -1.0f : 1.0f};
        glm_vec3_cross(alt, z, x);
    }
    glm_vec3_normalize(x);
    glm_vec3_cross(z, x, y);
    mat3 m;
    glm_vec3_copy(x, m[0]);
    glm_vec3_copy(y, m[1]);
    glm_vec3_copy(z, m[2]);
    versor q;
    glm_mat3_quat(m, q);
    glm_quat_normalize(q);
    memcpy(t.rotation, q, sizeof t.rotation);
    return t;
}

void _oak_transform_matrix(const oak_transform *t, mat4 out) {
    float x = t->rotation[0], y = t->rotation[1], z = t->rotation[2], w = t->rotation[3];
    float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
    float wx = w * x, wy = w * y, wz = w * z;
    const float *s = t->scale;
    out[0][0] = (1 - 2 * (yy + zz)) * s[0];
    out[0][1] = 2 * (xy + wz) * s[0];
    out[0][2] = 2 * (xz - wy) * s[0];
    out[0][3] = 0;
    out[1][0] = 2 * (xy - wz) * s[1];
    out[1][1] = (1 - 2 * (xx + zz)) * s[1];
    out[1][2] = 2 * (yz + wx) * s[1];
    out[1][3] = 0;
    out[2][0] = 2 * (xz + wy) * s[2];
    out[2][1] = 2 * (yz - wx) * s[2];
    out[2][2] = (1 - 2 * (xx + yy)) * s[2];
    out[2][3] = 0;
    out[3][0] = t->position[0];
    out[3][1] = t->position[1];
    out[3][2] = t->position[2];
    out[3][3] = 1;
}

void oak_scene_set_transform(oak_scene *scene, oak_entity e, const oak_transform *t) {
    if (!t) return;
    oak_transform *dst = oak_scene_add(scene, e, OAK_COMPONENT_TRANSFORM);
    if (!dst) return;
    *dst = *t;
    _oak_scene_rec(scene, oak_handle_index(e.id))->dirty = true;
    scene->any_dirty = true;
}

const oak_transform *oak_scene_transform(const oak_scene *scene, oak_entity e) {
    return oak_scene_get(scene, e, OAK_COMPONENT_TRANSFORM);
}

/* ---- hierarchy ---------------------------------------------------------- */

void _oak_scene_unlink(oak_scene *scene, uint32_t slot) {
    _oak_entity_rec *r = _oak_scene_rec(scene, slot);
    if (r->parent == _OAK_NO_SLOT) return;
    if (r->prev_sibling != _OAK_NO_SLOT)
        _oak_scene_rec(scene, r->prev_sibling)->next_sibling = r->next_sibling;
    else
        _oak_scene_rec(scene, r->parent)->first_child = r->next_sibling;
    if (r->next_sibling != _OAK_NO_SLOT)
        _oak_scene_rec(scene, r->next_sibling)->prev_sibling = r->prev_sibling;
    else
        _oak_scene_rec(scene, r->parent)->last_child = r->prev_sibling;
    r->parent = r->next_sibling = r->prev_sibling = _OAK_NO_SLOT;
}

/* Links slot under pslot (_OAK_NO_SLOT: a root) without looking for a cycle:
 * for callers that proved the hierarchy acyclic in one pass of their own. */
void _oak_scene_link(oak_scene *scene, uint32_t slot, uint32_t pslot) {
    _oak_entity_rec *r = _oak_scene_rec(scene, slot);
    if (r->parent == pslot) return;
    _oak_scene_unlink(scene, slot);
    if (pslot != _OAK_NO_SLOT) {
        /* Append so children keep the order they were attached in. */
        _oak_entity_rec *p = _oak_scene_rec(scene, pslot);
        uint32_t last = p->last_child;
        if (last == _OAK_NO_SLOT) {
            p->first_child = slot;
        } else {
            _oak_scene_rec(scene, last)->next_sibling = slot;
            r->prev_sibling = last;
        }
        p->last_child = slot;
        r->parent = pslot;
    }
    r->dirty = true;
    scene->any_dirty = true;
    scene->order_stale = true;
}

oak_result oak_scene_set_parent(oak_scene *scene, oak_entity e, oak_entity parent) {
    uint32_t slot = _oak_scene_slot(scene, e);
    if (slot == _OAK_NO_SLOT)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_scene_set_parent: entity %#x is not alive", e.id);
    uint32_t pslot = _OAK_NO_SLOT;
    if (parent.id) {
        pslot = _oak_scene_slot(scene, parent);
        if (pslot == _OAK_NO_SLOT)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "oak_scene_set_parent: parent %#x is not alive", parent.id);
        /* Only an entity with children can be its new parent's ancestor: a
           chain built top-down (10^5 links) never walks up, so stays linear. */
        bool leaf = _oak_scene_rec(scene, slot)->first_child == _OAK_NO_SLOT;
        for (uint32_t a = pslot; a != _OAK_NO_SLOT;
             a = leaf ? _OAK_NO_SLOT : _oak_scene_rec(scene, a)->parent)
            if (a == slot)
                return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "oak_scene_set_parent: '%s' under '%s' would make a cycle",
                                 oak_scene_name(scene, e), oak_scene_name(scene, parent));
    }
    _oak_scene_link(scene, slot, pslot);
    return OAK_OK;
}

oak_entity oak_scene_parent(const oak_scene *scene, oak_entity e) {
    uint32_t slot = _oak_scene_slot(scene, e);
    if (slot == _OAK_NO_SLOT) return (oak_entity){0};
    uint32_t p = _oak_scene_rec(scene, slot)->parent;
    return p == _OAK_NO_SLOT ? (oak_entity){0} : _oak_scene_entity_at(scene, p);
}

/* ---- the transform system ---------------------------------------------- */

/* Breadth first from the roots, so every parent precedes its children and
 * each depth is one contiguous run (a level) of the order. */
static bool rebuild_order(oak_scene *scene) {
    if (!OAK_GROW(scene->order, scene->order_capacity, scene->entities.live + 1)) return false;
    uint32_t n = 0, levels = 0;
    for (uint32_t slot = 0; slot < scene->entities.high_water; slot++)
        if (oak_pool_slot_id(&scene->entities, slot) &&
            _oak_scene_rec(scene, slot)->parent == _OAK_NO_SLOT)
            scene->order[n++] = slot;
    for (uint32_t begin = 0; begin < n;) {
        uint32_t end = n;
        if (!OAK_GROW(scene->level_end, scene->level_capacity, levels + 1)) return false;
        scene->level_end[levels++] = end;
        for (uint32_t i = begin; i < end; i++)
            for (uint32_t ch = _oak_scene_rec(scene, scene->order[i])->first_child;
                 ch != _OAK_NO_SLOT; ch = _oak_scene_rec(scene, ch)->next_sibling)
                scene->order[n++] = ch;
        begin = end;
    }
    scene->order_count = n;
    scene->level_count = levels;
    scene->order_stale = false;
    return true;
}

/* Entities of one level depend only on the level above, so a level is
 * split across the job pool in fixed chunks; counts are summed per worker. */
#define UPDATE_CHUNK 512

typedef struct update_job {
    oak_scene *scene;
    uint32_t now;
    uint32_t counts[OAK_JOB_MAX_THREADS];
} update_job;

static void update_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    update_job *job = user;
    oak_scene *scene = job->scene;
    const uint32_t now = job->now;
    const _oak_column *col = &scene->columns[OAK_COMPONENT_TRANSFORM];
    const oak_transform *locals = (const oak_transform *)col->data;
    uint32_t count = 0;
    for (uint32_t i = begin; i < end; i++) {
        uint32_t slot = scene->order[i];
        _oak_entity_rec *r = _oak_scene_rec(scene, slot);
        uint32_t d = col->sparse[slot];
        if (d == _OAK_NO_SLOT) {
            r->dirty = false;
            continue;
        }
        uint32_t pd = _OAK_NO_SLOT;
        bool parent_moved = false;
        if (r->parent != _OAK_NO_SLOT) {
            pd = col->sparse[r->parent];
            parent_moved = pd != _OAK_NO_SLOT && _oak_scene_rec(scene, r->parent)->stamp == now;
        }
        if (!r->dirty && !parent_moved) continue;
        mat4 local;
        _oak_transform_matrix(&locals[d], local);
        if (pd == _OAK_NO_SLOT)
            glm_mat4_copy(local, scene->world[d]);
        else
            glm_mat4_mul(scene->world[pd], local, scene->world[d]);
        r->dirty = false;
        r->stamp = now;
        count++;
    }
    job->counts[worker] += count;
}

typedef struct level_job {
    update_job *job;
    uint32_t base;
} level_job;

static void update_level_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    level_job *lj = user;
    update_range(lj->job, lj->base + begin, lj->base + end, worker);
}

void oak_scene_update_transforms(oak_scene *scene) {
    if (!scene) return;
    /* A still scene costs nothing, however many entities it holds. */
    if (!scene->any_dirty && !scene->order_stale) {
        scene->last_update_count = 0;
        return;
    }
    if (scene->order_stale && !rebuild_order(scene)) return;
    /* Stamps say "recomputed in this update"; 0 is never a live number. */
    if (++scene->update_number == 0) scene->update_number = 1;
    update_job job;
    job.scene = scene;
    job.now = scene->update_number;
    memset(job.counts, 0, sizeof job.counts);
    uint32_t begin = 0;
    for (uint32_t k = 0; k < scene->level_count; k++) {
        uint32_t end = scene->level_end[k];
        if (end - begin >= 2 * UPDATE_CHUNK) {
            /* parallel_for hands out [0, n); shift into the level. */
            oak_parallel_for(end - begin, UPDATE_CHUNK, update_level_chunk,
                             &(level_job){&job, begin});
        } else {
            update_range(&job, begin, end, 0);
        }
        begin = end;
    }
    uint32_t count = 0;
    for (uint32_t w = 0; w < OAK_JOB_MAX_THREADS; w++) count += job.counts[w];
    scene->last_update_count = count;
    scene->any_dirty = false;
}

void oak_scene_world_matrix(const oak_scene *scene, oak_entity e, mat4 out) {
    const _oak_column *col = scene ? &scene->columns[OAK_COMPONENT_TRANSFORM] : NULL;
    uint32_t slot = _oak_scene_slot(scene, e);
    if (slot == _OAK_NO_SLOT || col->sparse[slot] == _OAK_NO_SLOT) {
        glm_mat4_identity(out);
        return;
    }
    glm_mat4_copy(scene->world[col->sparse[slot]], out);
}

uint32_t oak_scene_last_update_count(const oak_scene *scene) {
    return scene ? scene->last_update_count : 0;
}
