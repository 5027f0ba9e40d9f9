/* The particle kernel on Vulkan (lavapipe here) against the C evaluation,
 * under the validation layer: tests/particles_gpu.h says what is checked. */
#include "vulkan_test.h"

#include "backend/vulkan/vk_internal.h"

static void *g_vk;

static oak_result pg_run(const oak_gpu_particle_emitter *c, const oak_gpu_particle *parts,
                         uint32_t n, oak_instance *records, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    return _oak_vk_particles_run(g_vk, c, parts, n, records, counts);
}

static oak_result pg_sort(const float eye[3], const float fwd[3], const oak_instance *records,
                          const uint8_t *frames, uint32_t n, uint32_t *order) {
    return _oak_vk_particles_sort(g_vk, eye, fwd, records, frames, n, order);
}

static oak_result pg_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out) {
    return _oak_vk_particles_frame_records(self, first, n, out);
}

static uint64_t pg_uploads(void *self) {
    return _oak_vk_particles_uploads(self);
}

static oak_result pg_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    return _oak_vk_particles_book_counts(self, counts);
}

#define PG_BACKEND "vulkan"
#include "particles_gpu.h"

int main(void) {
    vkt_init();
    oak_backend_desc d = {.width = 32, .height = 32};
    if (oak_backend_vulkan()->create(&g_vk, &d) != OAK_OK) {
        fprintf(stderr, "skipped: no Vulkan device: %s\n", oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    RUN(kernelMatchesTheCpuRecords);
    RUN(aHundredThousandInOneEmitter);
    RUN(blockWrittenOnlyOnBirthsAndDeaths);
    RUN(bitonicSortIsTheCpusOrder);
    oak_backend_vulkan()->destroy(g_vk);
    RUN(frameWritesTheDevicesRecords);
    RUN(aHundredThousandDrawnOnTheDevice);
    RUN(flipbookScatteredOnTheDevice);
    RUN(overBookDrawsEachFramesOwnCount);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
