/* The particle kernel on OpenGL (llvmpipe here) against the C evaluation:
 * tests/particles_gpu.h says what is checked. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"

static oak_result pg_run(const oak_gpu_particle_emitter *c, const oak_gpu_particle *parts,
                         uint32_t n, oak_instance *records, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    return _oak_gl_particles_run(c, parts, n, records, counts);
}

static oak_result pg_sort(const float eye[3], const float fwd[3], const oak_instance *records,
                          const uint8_t *frames, uint32_t n, uint32_t *order) {
    return _oak_gl_particles_sort(eye, fwd, records, frames, n, order);
}

static oak_result pg_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out) {
    return _oak_gl_particles_frame_records(self, first, n, out);
}

static uint64_t pg_uploads(void *self) {
    return _oak_gl_particles_uploads(self);
}

static oak_result pg_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    return _oak_gl_particles_book_counts(self, counts);
}

#define PG_BACKEND "gl"
#include "particles_gpu.h"

int main(void) {
    oak_test_init(0);
    _oak_gl_context ctx;
    if (_oak_gl_context_create(&ctx, true) != OAK_OK) {
        fprintf(stderr, "skipped: no GL context: %s\n", oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    RUN(kernelMatchesTheCpuRecords);
    RUN(aHundredThousandInOneEmitter);
    RUN(blockWrittenOnlyOnBirthsAndDeaths);
    RUN(bitonicSortIsTheCpusOrder);
    _oak_gl_context_destroy(&ctx);
    RUN(frameWritesTheDevicesRecords);
    RUN(aHundredThousandDrawnOnTheDevice);
    RUN(flipbookScatteredOnTheDevice);
    RUN(overBookDrawsEachFramesOwnCount);
    oak_shutdown();
    return TEST_SUMMARY();
}
