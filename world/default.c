/* The `default` world, built from recipes alone: fBm hills under the painted
 * ground texture, two rows of spheres (roughness and metallic sweeps) on the
 * flattest patch near the centre, shadow-casting boxes, a 40-degree sun, a
 * blue sky and an exposure that shows an 18% grey card as mid grey. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "world/internal.h"

#define SPHERES_PER_ROW   6
#define SPHERE_RADIUS     0.5f
#define SPHERE_SPACING    1.4f
#define ROW_GAP           1.7f
#define SUN_ELEVATION_DEG 40.0f
#define SUN_AZIMUTH_DEG   70.0f /* from the camera's forward axis (-Z), towards +X */
/* A clear day in physical units (docs/SHADING.md "Units"): the sun gives
   100,000 lux; the sky's light is given per lux of it. */
#define SUN_LUX        100000.0f
#define PATH_RADIUS    9.0f
#define PATH_HEIGHT    2.2f
#define PATH_SWEEP_DEG 70.0f

static const float k_sun_color[3] = {1.0f, 0.94f, 0.84f}; /* warm white */
/* Hemisphere ambient (docs/SHADING.md: diffuse * mix(ground, sky, ...), no
   1/pi) in cd/m^2 per lux of sun: the blue sky gives a level card about a
   quarter of its light (the numbers once were for a sun of 3). */
static const float k_ambient_sky[3] = {0.15f / 3, 0.20f / 3, 0.30f / 3};
static const float k_ambient_ground[3] = {0.08f / 3, 0.07f / 3, 0.055f / 3};

static oak_shape_desc terrain_recipe(void) {
    oak_shape_desc d = {0};
    d.type = OAK_SHAPE_HEIGHTFIELD;
    d.size[0] = 400.0f;
    d.size[1] = 1.0f;
    d.size[2] = 400.0f;
    d.segments = 256;   /* 1.6 m cells: hills stay smooth at the camera's distance */
    d.uv_scale = 50.0f; /* one ground tile every 8 m */
    d.seed = 7;
    d.octaves = 6;
    d.frequency = 0.006f; /* hills about 170 m apart */
    d.amplitude = 14.0f;
    d.lacunarity = 2.0f;
    d.gain = 0.5f;
    return d;
}

/* Where the sphere rows stand: the patch near the centre whose heights vary
 * least. Searched on a coarse grid so the camera path can find the same spot
 * without a scene; a pure function of the terrain recipe. */
typedef struct layout {
    float center[3]; /* ground under the middle of the rows */
} layout;

static layout find_layout(const oak_shape_desc *terrain) {
    layout best = {{0, 0, 0}};
    float best_score = INFINITY;
    for (int gz = -6; gz <= 6; gz++) {
        for (int gx = -6; gx <= 6; gx++) {
            float cx = (float)gx * 8.0f, cz = (float)gz * 8.0f;
            float lo = INFINITY, hi = -INFINITY, sum = 0;
            int n = 0;
            for (int sz = -1; sz <= 1; sz++) {
                for (int sx = -2; sx <= 2; sx++) {
                    float h =
                        oak_shape_height(terrain, cx + (float)sx * 2.5f, cz + (float)sz * 2.0f);
                    lo = fminf(lo, h);
                    hi = fmaxf(hi, h);
                    sum += h;
                    n++;
                }
            }
            /* flatness first; a small pull to the middle keeps hills all round */
            float score = (hi - lo) + 0.004f * sqrtf(cx * cx + cz * cz);
            if (score < best_score) {
                best_score = score;
                best.center[0] = cx;
                best.center[1] = sum / (float)n;
                best.center[2] = cz;
            }
        }
    }
    return best;
}

void _oak_world_default_path(float t, float eye[3], float target[3]) {
    oak_shape_desc terrain = terrain_recipe();
    layout l = find_layout(&terrain);
    /* An eased arc in front of the rows: constant radius, speed zero at both
       ends, so consecutive frames never jump. */
    float s = 0.5f - 0.5f * cosf(OAK_PI * t);
    float angle = (s - 0.5f) * PATH_SWEEP_DEG * OAK_PI / 180.0f;
    eye[0] = l.center[0] + PATH_RADIUS * sinf(angle);
    eye[2] = l.center[2] + PATH_RADIUS * cosf(angle);
    float ground = oak_shape_height(&terrain, eye[0], eye[2]);
    eye[1] = fmaxf(l.center[1] + PATH_HEIGHT, ground + 1.5f);
    target[0] = l.center[0];
    target[1] = l.center[1] + 0.6f;
    target[2] = l.center[2] - 0.5f;
}

static oak_result make_material(oak_material *out, const char *name, const float rgb[3],
                                float metallic, float roughness) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = rgb[0];
    d.base_color[1] = rgb[1];
    d.base_color[2] = rgb[2];
    d.base_color[3] = 1.0f;
    d.metallic = metallic;
    d.roughness = roughness;
    d.name = name;
    return oak_make_material(out, &d);
}

/* Two rows along X: the front one sweeps roughness 1 -> 0.05 on a metal (a
   mirror at the end), the back one metallic 0 -> 1 at fixed roughness. */
static oak_result add_spheres(oak_scene *scene, const oak_shape_desc *terrain, const layout *l) {
    oak_shape_desc sd = {0};
    sd.type = OAK_SHAPE_SPHERE;
    sd.radius = SPHERE_RADIUS;
    sd.segments = 48;
    sd.rings = 24;
    oak_mesh sphere;
    oak_result r = oak_make_shape(&sphere, &sd);
    if (r) return r;
    static const float gold[3] = {1.0f, 0.78f, 0.34f};
    static const float red[3] = {0.80f, 0.12f, 0.06f};
    for (int row = 0; row < 2; row++) {
        for (int i = 0; i < SPHERES_PER_ROW; i++) {
            float f = (float)i / (float)(SPHERES_PER_ROW - 1);
            char name[32];
            oak_material mat;
            if (row == 0) {
                snprintf(name, sizeof name, "sphere_rough_%d", i);
                r = make_material(&mat, name, gold, 1.0f, 1.0f - 0.95f * f);
            } else {
                snprintf(name, sizeof name, "sphere_metal_%d", i);
                r = make_material(&mat, name, red, f, 0.3f);
            }
            if (r) return r;
            oak_transform t = oak_transform_identity();
            t.position[0] =
                l->center[0] + ((float)i - 0.5f * (SPHERES_PER_ROW - 1)) * SPHERE_SPACING;
            t.position[2] = l->center[2] + (row == 0 ? 0.5f : -0.5f) * ROW_GAP;
            t.position[1] = oak_shape_height(terrain, t.position[0], t.position[2]) + SPHERE_RADIUS;
            if (!_oak_world_place(scene, name, sphere, mat, &t).id)
                return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world default: no room for %s", name);
        }
    }
    return OAK_OK;
}

/* Boxes behind and beside the rows, so the sun's shadows fall on terrain and
   on each other. Each sits on the lowest of its corners: sunk a little on a
   slope rather than floating. */
static oak_result add_boxes(oak_scene *scene, const oak_shape_desc *terrain, const layout *l) {
    static const struct {
        float dx, dz, sx, sy, sz, yaw_deg;
    } k_boxes[] = {
        {-6.5f, -3.0f, 1.5f, 1.5f, 1.5f, 20.0f}, {6.0f, -3.5f, 1.0f, 3.0f, 1.0f, -15.0f},
        {0.0f, -5.0f, 6.0f, 0.8f, 1.0f, 0.0f},   {-3.5f, 3.5f, 0.8f, 0.8f, 0.8f, 45.0f},
        {9.0f, 1.5f, 2.0f, 1.2f, 2.0f, 30.0f},
    };
    static const float grey[3] = {0.35f, 0.35f, 0.35f};
    oak_material mat;
    oak_result r = make_material(&mat, "box", grey, 0.0f, 0.8f);
    if (r) return r;
    for (size_t i = 0; i < sizeof k_boxes / sizeof k_boxes[0]; i++) {
        oak_shape_desc bd = {0};
        bd.type = OAK_SHAPE_BOX;
        bd.size[0] = k_boxes[i].sx;
        bd.size[1] = k_boxes[i].sy;
        bd.size[2] = k_boxes[i].sz;
        oak_mesh mesh;
        r = oak_make_shape(&mesh, &bd);
        if (r) return r;
        float x = l->center[0] + k_boxes[i].dx, z = l->center[2] + k_boxes[i].dz;
        float lo = INFINITY;
        for (int c = 0; c < 4; c++) {
            float cx = x + ((c & 1) ? 0.5f : -0.5f) * k_boxes[i].sx;
            float cz = z + ((c & 2) ? 0.5f : -0.5f) * k_boxes[i].sz;
            lo = fminf(lo, oak_shape_height(terrain, cx, cz));
        }
        oak_transform t = oak_transform_identity();
        t.position[0] = x;
        t.position[1] = lo + 0.5f * k_boxes[i].sy;
        t.position[2] = z;
        float half = 0.5f * k_boxes[i].yaw_deg * OAK_PI / 180.0f;
        t.rotation[1] = sinf(half);
        t.rotation[3] = cosf(half);
        char name[32];
        snprintf(name, sizeof name, "box_%d", (int)i);
        if (!_oak_world_place(scene, name, mesh, mat, &t).id)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world default: no room for %s", name);
    }
    return OAK_OK;
}

static oak_result add_sun_and_sky(oak_scene *scene, const layout *l) {
    /* the sun down, to the right and a little away from the camera, so
       shadows fall sideways where the camera sees them; fog a fifth of the
       way to sky colour at 200 m */
    oak_world_day d = {.elevation_deg = SUN_ELEVATION_DEG,
                       .azimuth_deg = SUN_AZIMUTH_DEG,
                       .target = {l->center[0], l->center[1], l->center[2]},
                       .distance = 50.0f,
                       .sun_lux = SUN_LUX,
                       .zenith = {0.24f, 0.46f, 0.85f},
                       .horizon = {0.68f, 0.80f, 0.93f},
                       .fog_density = 0.0022f};
    memcpy(d.sun_color, k_sun_color, sizeof d.sun_color);
    memcpy(d.ambient_sky, k_ambient_sky, sizeof d.ambient_sky);
    memcpy(d.ambient_ground, k_ambient_ground, sizeof d.ambient_ground);
    return _oak_world_clear_day(scene, &d);
}

oak_result _oak_world_default_build(oak_scene *scene) {
    oak_shape_desc terrain = terrain_recipe();
    layout l = find_layout(&terrain);
    oak_result r = _oak_world_add_ground(scene, &terrain, "terrain");
    if (!r) r = add_spheres(scene, &terrain, &l);
    if (!r) r = add_boxes(scene, &terrain, &l);
    if (!r) r = add_sun_and_sky(scene, &l);
    if (r) return r;
    oak_camera cam = {0};
    cam.fov_y = 50.0f * OAK_PI / 180.0f;
    cam.zfar = 1000.0f;
    float eye[3], target[3];
    _oak_world_default_path(0.5f, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world default: no room for the camera");
    return OAK_OK;
}
