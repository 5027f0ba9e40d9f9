/* core_minimal: a red ball on a grey floor under the sun, made through the C
 * API and written to core_minimal.png. */
#include <stdio.h>
#include <oak/oak.h>

static oak_material paint(float r, float g, float b, float roughness) {
    oak_material_desc d = oak_material_desc_defaults(NULL); /* glTF's: metallic 1 */
    d.base_color[0] = r, d.base_color[1] = g, d.base_color[2] = b;
    d.metallic = 0.0f, d.roughness = roughness;
    oak_material m = {0};
    return oak_make_material(&m, &d), m;
}

int main(void) {
    // Initialization -------------------------------------------------------
    enum { W = 640, H = 360 };
    static uint8_t pixels[W * H * 4];
    oak_scene *scene;
    oak_renderer *renderer;
    if (oak_init(NULL) || oak_make_scene(&scene)) return 1;
    if (oak_make_renderer(&renderer, &(oak_renderer_desc){.width = W, .height = H})) return 1;

    oak_mesh ball, ground;
    oak_make_shape(&ball, &(oak_shape_desc){.type = OAK_SHAPE_SPHERE, .radius = 1});
    oak_make_shape(&ground, &(oak_shape_desc){.type = OAK_SHAPE_PLANE, .size = {20, 0, 20}});

    oak_transform t = oak_transform_identity();
    oak_entity e = oak_scene_create(scene, "floor");
    oak_scene_set_transform(scene, e, &t);
    oak_scene_set_mesh_renderer(scene, e, &(oak_mesh_renderer){ground, paint(.5f, .5f, .5f, 1), 0});
    t.position[1] = 1.0f;
    e = oak_scene_create(scene, "ball");
    oak_scene_set_transform(scene, e, &t);
    oak_scene_set_mesh_renderer(scene, e, &(oak_mesh_renderer){ball, paint(.8f, .1f, .1f, .4f), 0});
    oak_light sun = oak_light_defaults(OAK_LIGHT_DIRECTIONAL); /* shines down its -Z */
    e = oak_scene_create(scene, "sun");
    t = oak_transform_look_at((float[3]){-3, 5, 4}, (float[3]){0, 0, 0});
    oak_scene_set_transform(scene, e, &t);
    oak_scene_set_light(scene, e, &sun);
    oak_scene_post(scene)->exposure = 0.6f; /* the sun gives 3; bring it to mid grey */

    e = oak_scene_create(scene, "camera");
    t = oak_transform_look_at((float[3]){0, 2.5f, 7}, (float[3]){0, 1, 0});
    oak_scene_set_transform(scene, e, &t);
    oak_scene_set_camera(scene, e, &(oak_camera){0}); /* zero: 60 degrees, output's aspect */

    // Frame ----------------------------------------------------------------
    oak_result r = oak_scene_draw(scene, renderer);
    if (!r) r = oak_renderer_read_pixels(renderer, pixels, sizeof pixels);
    if (!r) r = oak_image_write_png("core_minimal.png", W, H, pixels);
    printf("%s (%s)\n", r ? oak_last_error() : "wrote core_minimal.png",
           oak_renderer_backend(renderer));

    // Shutdown -------------------------------------------------------------
    oak_destroy_renderer(renderer);
    oak_destroy_scene(scene);
    oak_shutdown();
    return r ? 1 : 0;
}
