/* Cross-backend parity: every scene of parity_scenes.h drawn by `cpu` and
 * `vulkan`, under the validation layer (any message fails the test). */
#include "vulkan_test.h"

#include "parity_scenes.h"

/* Draws input (or the scene when input is NULL) on both backends. */
static void parity(const char *name, const oak_frame_input *input, oak_scene *scene) {
    uint8_t *img[2] = {oak_alloc(PW * PH * 4), oak_alloc(PW * PH * 4)};
    const char *backends[2] = {"cpu", "vulkan"};
    bool ok = parity_draw(backends, 2, input, scene, img);
    if (ok) parity_compare(name, "cpu", "vulkan", img[0], img[1]);
    oak_free(img[0]);
    oak_free(img[1]);
}

int main(void) {
    vkt_init();
    parity_run_part(0);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    if (vkt_validation_messages) oak_test_failed_++;
    oak_shutdown();
    return TEST_SUMMARY();
}
