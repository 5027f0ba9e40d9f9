/* The scene's entity-component store: entities are generational ids from an
 * oak_pool, components live in dense columns (items + owners) with a sparse
 * slot -> dense table, and removal swaps the last item into the hole. */
#include <string.h>

#include "scene_internal.h"

uint32_t _oak_scene_slot(const oak_scene *scene, oak_entity e) {
    if (!scene || !oak_pool_valid(&scene->entities, e.id)) return _OAK_NO_SLOT;
    return oak_handle_index(e.id);
}

_oak_entity_rec *_oak_scene_rec(const oak_scene *scene, uint32_t slot) {
    return (_oak_entity_rec *)(scene->entities.items + (size_t)slot * sizeof(_oak_entity_rec));
}

oak_entity _oak_scene_entity_at(const oak_scene *scene, uint32_t slot) {
    return (oak_entity){oak_pool_slot_id(&scene->entities, slot)};
}

/* ---- columns ------------------------------------------------------------ */

static oak_component add_column(oak_scene *scene, const char *name, uint32_t size) {
    if (!OAK_GROW(scene->columns, scene->column_capacity, scene->column_count + 1))
        return OAK_COMPONENT_INVALID;
    _oak_column *c = &scene->columns[scene->column_count];
    memset(c, 0, sizeof *c);
    c->name = oak_strdup(name);
    c->sparse =
        oak_alloc((size_t)(scene->slot_capacity ? scene->slot_capacity : 1) * sizeof(uint32_t));
    if (!c->name || !c->sparse) {
        oak_free(c->name);
        oak_free(c->sparse);
        oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene: no memory for component '%s'", name);
        return OAK_COMPONENT_INVALID;
    }
    memset(c->sparse, 0xff, (size_t)scene->slot_capacity * sizeof(uint32_t));
    c->size = size;
    c->stride = size ? size : 1; /* tags take a byte so items keep distinct addresses */
    return scene->column_count++;
}

/* Every column's sparse table covers every pool slot. */
static bool fit_slots(oak_scene *scene) {
    uint32_t need = scene->entities.capacity;
    if (need <= scene->slot_capacity) return true;
    for (uint32_t i = 0; i < scene->column_count; i++) {
        uint32_t *s = oak_realloc(scene->columns[i].sparse, (size_t)need * sizeof(uint32_t));
        if (!s) return false;
        memset(s + scene->slot_capacity, 0xff,
               (size_t)(need - scene->slot_capacity) * sizeof(uint32_t));
        scene->columns[i].sparse = s;
    }
    scene->slot_capacity = need;
    return true;
}

oak_component oak_scene_register_component(oak_scene *scene, const char *name, uint32_t size) {
    if (!scene || !name || !*name) {
        oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_register_component: no name");
        return OAK_COMPONENT_INVALID;
    }
    for (uint32_t i = 0; i < scene->column_count; i++) {
        if (strcmp(scene->columns[i].name, name)) continue;
        if (scene->columns[i].size == size) return i;
        oak_error(OAK_ERROR_INVALID_ARGUMENT,
                  "component '%s' is already registered with size %u, not %u", name,
                  scene->columns[i].size, size);
        return OAK_COMPONENT_INVALID;
    }
    return add_column(scene, name, size);
}

static _oak_column *column_of(const oak_scene *scene, oak_component c) {
    return scene && c < scene->column_count ? &scene->columns[c] : NULL;
}

void *oak_scene_add(oak_scene *scene, oak_entity e, oak_component c) {
    _oak_column *col = column_of(scene, c);
    uint32_t slot = _oak_scene_slot(scene, e);
    if (!col || slot == _OAK_NO_SLOT) return NULL;
    if (col->sparse[slot] != _OAK_NO_SLOT)
        return col->data + (size_t)col->sparse[slot] * col->stride;
    uint32_t need = col->count + 1;
    if (need > col->capacity) {
        uint32_t cap = col->capacity, cap2 = col->capacity;
        if (!oak_grow((void **)&col->data, &cap, need, col->stride)) return NULL;
        if (!oak_grow((void **)&col->entities, &cap2, need, sizeof(oak_entity))) return NULL;
        if (c == OAK_COMPONENT_TRANSFORM &&
            !oak_grow((void **)&scene->world, &scene->world_capacity, need, sizeof(mat4)))
            return NULL;
        col->capacity = cap < cap2 ? cap : cap2;
    }
    uint32_t d = col->count++;
    col->sparse[slot] = d;
    col->entities[d] = e;
    void *item = col->data + (size_t)d * col->stride;
    memset(item, 0, col->stride);
    if (c == OAK_COMPONENT_TRANSFORM) {
        /* A zero quaternion and scale would collapse the entity: start at rest. */
        *(oak_transform *)item = oak_transform_identity();
        glm_mat4_identity(scene->world[d]);
        _oak_scene_rec(scene, slot)->dirty = true;
        scene->any_dirty = true;
        scene->order_stale = true;
    }
    return item;
}

void *oak_scene_get(const oak_scene *scene, oak_entity e, oak_component c) {
    _oak_column *col = column_of(scene, c);
    uint32_t slot = _oak_scene_slot(scene, e);
    if (!col || slot == _OAK_NO_SLOT || col->sparse[slot] == _OAK_NO_SLOT) return NULL;
    return col->data + (size_t)col->sparse[slot] * col->stride;
}

static void remove_at_slot(oak_scene *scene, oak_component c, uint32_t slot) {
    _oak_column *col = &scene->columns[c];
    uint32_t d = col->sparse[slot];
    if (d == _OAK_NO_SLOT) return;
    uint32_t last = --col->count;
    if (d != last) {
        memcpy(col->data + (size_t)d * col->stride, col->data + (size_t)last * col->stride,
               col->stride);
        col->entities[d] = col->entities[last];
        col->sparse[oak_handle_index(col->entities[d].id)] = d;
        if (c == OAK_COMPONENT_TRANSFORM) glm_mat4_copy(scene->world[last], scene->world[d]);
    }
    col->sparse[slot] = _OAK_NO_SLOT;
    if (c == OAK_COMPONENT_TRANSFORM) {
        /* Its children now hang from an identity: they must recompute. */
        _oak_entity_rec *r = _oak_scene_rec(scene, slot);
        for (uint32_t ch = r->first_child; ch != _OAK_NO_SLOT;
             ch = _oak_scene_rec(scene, ch)->next_sibling)
            _oak_scene_rec(scene, ch)->dirty = true;
        scene->any_dirty = true;
        scene->order_stale = true;
    }
}

void oak_scene_remove(oak_scene *scene, oak_entity e, oak_component c) {
    uint32_t slot = _oak_scene_slot(scene, e);
    if (slot == _OAK_NO_SLOT || !column_of(scene, c)) return;
    remove_at_slot(scene, c, slot);
}

oak_column oak_scene_column(const oak_scene *scene, oak_component c) {
    _oak_column *col = column_of(scene, c);
    if (!col) return (oak_column){0};
    return (oak_column){col->count, col->entities, col->data, col->stride};
}

/* ---- scene -------------------------------------------------------------- */

oak_result oak_make_scene(oak_scene **out) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_scene: out is NULL");
    *out = NULL;
    oak_scene *s = oak_calloc(1, sizeof *s);
    if (!s) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_make_scene: out of memory");
    oak_result r = oak_pool_init(&s->entities, sizeof(_oak_entity_rec), 64);
    if (r) {
        oak_free(s);
        return oak_error(r, "oak_make_scene: out of memory");
    }
    s->slot_capacity = s->entities.capacity;
    static const struct {
        const char *name;
        uint32_t size;
    } builtins[OAK_COMPONENT_BUILTIN_COUNT] = {
        {"transform", sizeof(oak_transform)},
        {"mesh_renderer", sizeof(oak_mesh_renderer)},
        {"camera", sizeof(oak_camera)},
        {"light", sizeof(oak_light)},
        {"reflection_probe", sizeof(oak_scene_probe)},
    };
    for (uint32_t i = 0; i < OAK_COMPONENT_BUILTIN_COUNT; i++) {
        if (add_column(s, builtins[i].name, builtins[i].size) != i) {
            oak_destroy_scene(s);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_make_scene: out of memory");
        }
    }
    s->lod_component = OAK_COMPONENT_INVALID;
    s->environment = oak_environment_defaults();
    memset(&s->post, 0, sizeof s->post);
    *out = s;
    return OAK_OK;
}

oak_result oak_scene_attach(oak_scene *scene, void *object, void (*destroy)(void *object)) {
    if (!scene || !object || !destroy)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_attach: NULL argument");
    if (scene->attached_count == OAK_SCENE_MAX_ATTACHMENTS)
        return oak_error(OAK_ERROR_LIMIT, "oak_scene_attach: more than %d objects",
                         OAK_SCENE_MAX_ATTACHMENTS);
    scene->attached[scene->attached_count] = object;
    scene->attached_destroy[scene->attached_count++] = destroy;
    return OAK_OK;
}

void *oak_scene_attachment(const oak_scene *scene, void (*destroy)(void *object)) {
    for (uint32_t i = 0; scene && i < scene->attached_count; i++)
        if (scene->attached_destroy[i] == destroy) return scene->attached[i];
    return NULL;
}

void oak_destroy_scene(oak_scene *scene) {
    if (!scene) return;
    /* last attached first, each while the scene is still whole */
    while (scene->attached_count) {
        uint32_t i = --scene->attached_count;
        scene->attached_destroy[i](scene->attached[i]);
    }
    for (uint32_t slot = 0; slot < scene->entities.high_water; slot++)
        if (oak_pool_slot_id(&scene->entities, slot)) oak_free(_oak_scene_rec(scene, slot)->name);
    for (uint32_t i = 0; i < scene->column_count; i++) {
        oak_free(scene->columns[i].name);
        oak_free(scene->columns[i].data);
        oak_free(scene->columns[i].entities);
        oak_free(scene->columns[i].sparse);
    }
    oak_free(scene->columns);
    oak_free(scene->world);
    oak_free(scene->order);
    oak_free(scene->level_end);
    oak_free(scene->draw_meshes);
    oak_free(scene->draw_materials);
    oak_free(scene->draw_transforms);
    oak_free(scene->draw_flags);
    oak_free(scene->lights);
    oak_free(scene->probes);
    oak_free(scene->emitters);
    oak_free(scene->scratch);
    for (uint32_t i = 0; i < scene->stream_count; i++) {
        oak_destroy_stream(scene->streams[i]);
        oak_free(scene->stream_local[i]);
    }
    oak_free(scene->place_tmp);
    oak_pool_release(&scene->entities);
    oak_free(scene);
}

/* ---- entities ----------------------------------------------------------- */

oak_entity oak_scene_create(oak_scene *scene, const char *name) {
    if (!scene) return (oak_entity){0};
    char *copy = NULL;
    if (name && *name && !(copy = oak_strdup(name))) return (oak_entity){0};
    uint32_t id = oak_pool_alloc(&scene->entities);
    if (!id || !fit_slots(scene)) {
        if (id) oak_pool_free(&scene->entities, id);
        oak_free(copy);
        return (oak_entity){0};
    }
    uint32_t slot = oak_handle_index(id);
    _oak_entity_rec *r = _oak_scene_rec(scene, slot);
    r->name = copy;
    r->parent = r->first_child = r->last_child = r->next_sibling = r->prev_sibling = _OAK_NO_SLOT;
    r->stamp = 0;
    r->dirty = true;
    scene->any_dirty = true;
    oak_entity e = {id};
    if (!oak_scene_add(scene, e, OAK_COMPONENT_TRANSFORM)) {
        oak_free(copy);
        oak_pool_free(&scene->entities, id);
        return (oak_entity){0};
    }
    scene->order_stale = true;
    return e;
}

static uint32_t *scratch(oak_scene *scene, uint32_t need) {
    if (!OAK_GROW(scene->scratch, scene->scratch_capacity, need)) return NULL;
    return scene->scratch;
}

void oak_scene_destroy_entity(oak_scene *scene, oak_entity e) {
    uint32_t root = _oak_scene_slot(scene, e);
    if (root == _OAK_NO_SLOT) return;
    /* Gather the subtree first (it is at most every live entity), then free it. */
    uint32_t *list = scratch(scene, scene->entities.live);
    if (!list) return;
    uint32_t n = 0;
    list[n++] = root;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t ch = _oak_scene_rec(scene, list[i])->first_child; ch != _OAK_NO_SLOT;
             ch = _oak_scene_rec(scene, ch)->next_sibling)
            list[n++] = ch;
    _oak_scene_unlink(scene, root);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t slot = list[i];
        for (uint32_t c = 0; c < scene->column_count; c++) remove_at_slot(scene, c, slot);
        _oak_entity_rec *r = _oak_scene_rec(scene, slot);
        oak_free(r->name);
        r->name = NULL;
        oak_pool_free(&scene->entities, oak_pool_slot_id(&scene->entities, slot));
    }
    if (oak_pool_valid(&scene->entities, scene->active_camera.id) == false)
        scene->active_camera.id = 0;
    scene->order_stale = true;
}

bool oak_scene_alive(const oak_scene *scene, oak_entity e) {
    return _oak_scene_slot(scene, e) != _OAK_NO_SLOT;
}

uint32_t oak_scene_entity_count(const oak_scene *scene) {
    return scene ? scene->entities.live : 0;
}

const char *oak_scene_name(const oak_scene *scene, oak_entity e) {
    uint32_t slot = _oak_scene_slot(scene, e);
    if (slot == _OAK_NO_SLOT) return "";
    const char *n = _oak_scene_rec(scene, slot)->name;
    return n ? n : "";
}

oak_result oak_scene_set_name(oak_scene *scene, oak_entity e, const char *name) {
    uint32_t slot = _oak_scene_slot(scene, e);
    if (slot == _OAK_NO_SLOT)
        return oak_error(OAK_ERROR_NOT_FOUND, "oak_scene_set_name: entity %#x is not alive", e.id);
    char *copy = NULL;
    if (name && *name && !(copy = oak_strdup(name)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_scene_set_name: out of memory");
    _oak_entity_rec *r = _oak_scene_rec(scene, slot);
    oak_free(r->name);
    r->name = copy;
    return OAK_OK;
}

oak_entity oak_scene_find(const oak_scene *scene, const char *name) {
    if (!scene || !name) return (oak_entity){0};
    for (uint32_t slot = 0; slot < scene->entities.high_water; slot++) {
        uint32_t id = oak_pool_slot_id(&scene->entities, slot);
        const char *n = id ? _oak_scene_rec(scene, slot)->name : NULL;
        if (n && !strcmp(n, name)) return (oak_entity){id};
    }
    return (oak_entity){0};
}

/* ---- typed helpers and scene-wide settings ------------------------------ */

void oak_scene_set_mesh_renderer(oak_scene *scene, oak_entity e, const oak_mesh_renderer *m) {
    oak_mesh_renderer *dst = oak_scene_add(scene, e, OAK_COMPONENT_MESH_RENDERER);
    if (dst && m) *dst = *m;
}

void oak_scene_set_camera(oak_scene *scene, oak_entity e, const oak_camera *c) {
    oak_camera *dst = oak_scene_add(scene, e, OAK_COMPONENT_CAMERA);
    if (dst && c) *dst = *c;
}

void oak_scene_set_light(oak_scene *scene, oak_entity e, const oak_light *l) {
    oak_light *dst = oak_scene_add(scene, e, OAK_COMPONENT_LIGHT);
    if (dst && l) *dst = *l;
}

/* Stored as given: the gather checks it (a probe may be set in steps). */
void oak_scene_set_probe(oak_scene *scene, oak_entity e, const oak_scene_probe *p) {
    oak_scene_probe *dst = oak_scene_add(scene, e, OAK_COMPONENT_REFLECTION_PROBE);
    if (dst && p) *dst = *p;
}

oak_environment *oak_scene_environment(oak_scene *scene) {
    return scene ? &scene->environment : NULL;
}

oak_time_of_day *oak_scene_time_of_day(oak_scene *scene) {
    return scene ? &scene->time_of_day : NULL;
}

oak_weather *oak_scene_weather(oak_scene *scene) {
    return scene ? &scene->weather : NULL;
}

oak_post *oak_scene_post(oak_scene *scene) {
    return scene ? &scene->post : NULL;
}

void oak_scene_set_active_camera(oak_scene *scene, oak_entity camera) {
    if (scene) scene->active_camera = camera;
}

oak_entity oak_scene_active_camera(const oak_scene *scene) {
    if (!scene) return (oak_entity){0};
    if (scene->active_camera.id && oak_scene_get(scene, scene->active_camera, OAK_COMPONENT_CAMERA))
        return scene->active_camera;
    const _oak_column *cams = &scene->columns[OAK_COMPONENT_CAMERA];
    return cams->count ? cams->entities[0] : (oak_entity){0};
}
