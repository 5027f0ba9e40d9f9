/* The `stress` world: 100,000 objects on a flat ground for the GPU backends.
 * The half at -Z is one instance stream (one box mesh and material, 50,000
 * 12-float records: the second kind of draw); the half at +Z are entities
 * cycling through 4 meshes x 16 materials (64 batches, many state changes),
 * so both kinds are measured. Placement jitter comes from a hash, so builds
 * repeat. */
#include <math.h>

#include "world/internal.h"

#define GRID_X         400
#define GRID_Z         250 /* GRID_X * GRID_Z = 100,000 objects */
#define SPACING        2.5f
#define MESH_KINDS     4
#define MATERIAL_KINDS 16
#define ORBIT_RADIUS   420.0f
#define ORBIT_HEIGHT   70.0f

/* A saturated colour around the hue wheel, linear. */
static void hue_color(float h, float rgb[3]) {
    for (int c = 0; c < 3; c++) {
        float k = fmodf((float)(5 - 2 * c) + h * 6.0f, 6.0f); /* HSV with s = v = 1 */
        float v = 1.0f - fmaxf(0.0f, fminf(fminf(k, 4.0f - k), 1.0f));
        rgb[c] = 0.05f + 0.75f * v;
    }
}

static oak_result make_meshes(oak_mesh meshes[MESH_KINDS]) {
    oak_shape_desc d[MESH_KINDS] = {{0}};
    d[0].type = OAK_SHAPE_BOX;
    d[1].type = OAK_SHAPE_SPHERE;
    d[1].segments = 12;
    d[1].rings = 6;
    d[2].type = OAK_SHAPE_CYLINDER;
    d[2].segments = 12;
    d[3].type = OAK_SHAPE_CAPSULE;
    d[3].radius = 0.3f;
    d[3].height = 0.4f; /* 1 m tall with its caps, like the others */
    d[3].segments = 12;
    d[3].rings = 3;
    for (int i = 0; i < MESH_KINDS; i++) {
        oak_result r = oak_make_shape(&meshes[i], &d[i]);
        if (r) return r;
    }
    return OAK_OK;
}

static oak_result make_materials(oak_material mats[MATERIAL_KINDS], oak_material *shared) {
    for (int i = 0; i < MATERIAL_KINDS; i++) {
        oak_material_desc d = oak_material_desc_defaults(NULL);
        hue_color((float)i / MATERIAL_KINDS, d.base_color);
        d.metallic = (i & 1) ? 1.0f : 0.0f;
        d.roughness = 0.25f + 0.5f * (float)(i % 4) / 3.0f;
        d.name = "stress_mixed";
        oak_result r = oak_make_material(&mats[i], &d);
        if (r) return r;
    }
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = 0.7f;
    d.base_color[1] = 0.7f;
    d.base_color[2] = 0.72f;
    d.metallic = 0.0f;
    d.roughness = 0.6f;
    d.name = "stress_instanced";
    return oak_make_material(shared, &d);
}

oak_result _oak_world_stress_build(oak_scene *scene) {
    oak_mesh meshes[MESH_KINDS];
    oak_material mats[MATERIAL_KINDS], shared;
    oak_result r = make_meshes(meshes);
    if (!r) r = make_materials(mats, &shared);
    if (r) return r;

    oak_shape_desc gd = {0};
    gd.type = OAK_SHAPE_PLANE;
    gd.size[0] = GRID_X * SPACING + 200.0f;
    gd.size[2] = GRID_Z * SPACING + 200.0f;
    gd.uv_scale = 100.0f;
    r = _oak_world_add_ground(scene, &gd, "ground");
    if (r) return r;

    /* the -Z half's boxes, one stream that stands still after it is written */
    enum { STREAMED = GRID_X * (GRID_Z / 2) };
    oak_stream *boxes = NULL;
    oak_stream_desc sd = {.capacity = STREAMED, .lods = {{meshes[0], 0}}, .material = shared};
    r = oak_make_stream(&boxes, &sd);
    if (r) return r;
    r = oak_scene_add_stream(scene, boxes); /* the scene owns it now */
    if (r) return r;
    oak_transform t;
    for (uint32_t i = 0; i < GRID_X * GRID_Z; i++) {
        uint32_t gx = i % GRID_X, gz = i / GRID_X;
        bool instanced = gz < GRID_Z / 2;
        uint32_t mesh = instanced ? 0 : _oak_world_hash_u32(i) % MESH_KINDS;
        oak_material mat =
            instanced ? shared : mats[_oak_world_hash_u32(i ^ 0x5bd1e995u) % MATERIAL_KINDS];
        float scale = 0.6f + 0.8f * _oak_world_hash01(i, 1);
        t = oak_transform_identity();
        t.position[0] =
            ((float)gx - 0.5f * (GRID_X - 1)) * SPACING + (_oak_world_hash01(i, 2) - 0.5f);
        t.position[2] =
            ((float)gz - 0.5f * (GRID_Z - 1)) * SPACING + (_oak_world_hash01(i, 3) - 0.5f);
        t.position[1] = 0.5f * scale; /* every shape is about 1 m tall at scale 1 */
        float half = OAK_PI * _oak_world_hash01(i, 4);
        t.rotation[1] = sinf(half);
        t.rotation[3] = cosf(half);
        t.scale[0] = t.scale[1] = t.scale[2] = scale;
        if (instanced) {
            oak_instance rec = {.position = {t.position[0], t.position[1], t.position[2]},
                                .scale = scale,
                                .rotation = {0, t.rotation[1], 0, t.rotation[3]},
                                .color = {1, 1, 1}};
            r = oak_stream_write(boxes, i, &rec, 1);
            if (r) return r;
            continue;
        }
        if (!_oak_world_place(scene, NULL, meshes[mesh], mat, &t).id)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world stress: no room for object %u", i);
    }

    r = oak_stream_set_count(boxes, STREAMED);
    if (r) return r;

    oak_entity sun = oak_scene_create(scene, "sun");
    if (!sun.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world stress: no room for the sun");
    float from[3] = {-300.0f, 400.0f, 250.0f}, origin[3] = {0, 0, 0};
    t = oak_transform_look_at(from, origin);
    oak_scene_set_transform(scene, sun, &t);
    /* physical units: a 100,000-lux sun, the default sky's light scaled with it */
    oak_light light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    float lux_per_unit = 100000.0f / light.intensity;
    light.intensity = 100000.0f;
    light.cast_shadows = true;
    oak_scene_set_light(scene, sun, &light);
    oak_environment *env = oak_scene_environment(scene);
    *env = oak_environment_defaults();
    for (int c = 0; c < 3; c++) {
        env->ambient_sky[c] *= lux_per_unit;
        env->ambient_ground[c] *= lux_per_unit;
    }
    /* sun at about 43 degrees plus the default sky, as a horizontal card sees them */
    float el = atan2f(400.0f, sqrtf(300.0f * 300.0f + 250.0f * 250.0f));
    float white = light.intensity * _oak_luminance(light.color) * sinf(el) / OAK_PI +
                  _oak_luminance(env->ambient_sky);
    _oak_world_grey_card_camera(scene, white);

    oak_camera cam = {0};
    cam.zfar = 2000.0f;
    float eye[3], target[3];
    _oak_world_stress_path(0.0f, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world stress: no room for the camera");
    return OAK_OK;
}

/* One full orbit over the field: every part of it comes into view and the
   number of objects in the frustum swings from few to most. */
void _oak_world_stress_path(float t, float eye[3], float target[3]) {
    float a = 2.0f * OAK_PI * t;
    eye[0] = ORBIT_RADIUS * cosf(a);
    eye[1] = ORBIT_HEIGHT;
    eye[2] = ORBIT_RADIUS * sinf(a);
    target[0] = 0.25f * eye[0];
    target[1] = 0.0f;
    target[2] = 0.25f * eye[2];
}
