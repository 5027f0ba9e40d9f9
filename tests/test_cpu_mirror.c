/* CPU backend internals that no other backend shares: the asset mirrors'
 * lifetime. (test_cpu_render.c and test_cpu_shading.c hold only picture
 * tests, which the Vulkan tests include and run on their backend too.) */
#include "cpu_scene.h"

#include "backend/cpu/cpu_internal.h"

static const float UP_Y[3] = {0, 1, 0};

TEST(cpuMirrorsOfDestroyedMeshesAreFreedAndReused) {
    enum { W = 32, H = 16 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    const float left[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    const float right[4][3] = {{0, -0.5f, 0}, {1, -0.5f, 0}, {1, 0.5f, 0}, {0, 0.5f, 0}};
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, sc_quad(left), sc_material(1, 1, 1, 0, 1, true), id);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {W, H, NULL, 0};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    cpu_backend *b = self;
    CHECK_OK(be->render(self, &s.view));
    /* the first mesh dies; a second takes its place for a sweep period */
    oak_destroy_mesh(s.mesh[0]);
    s.mesh[0] = sc_quad(left);
    for (int f = 0; f < CPU_EVICT_PERIOD + 1; f++) CHECK_OK(be->render(self, &s.view));
    CHECK_EQ_INT(b->mesh_count, 2);
    CHECK(b->meshes[0].id == 0 && b->meshes[0].pos == NULL); /* freed */
    /* a third mesh reuses the freed slot and draws where it should */
    oak_mesh third = sc_quad(right);
    s.mesh[0] = third;
    CHECK_OK(be->render(self, &s.view));
    CHECK_EQ_INT(b->mesh_count, 2);
    CHECK_EQ_INT(b->meshes[0].id, third.id);
    uint8_t px[W * H * 4];
    CHECK_OK(be->read_pixels(self, px, sizeof px));
    CHECK_EQ_INT(sc_px(px, W, 8, 8)[0], 0);
    CHECK(sc_px(px, W, 24, 8)[0] > 150);
    be->destroy(self);
}

int main(void) {
    oak_test_init(0);
    RUN(cpuMirrorsOfDestroyedMeshesAreFreedAndReused);
    oak_shutdown();
    return TEST_SUMMARY();
}
