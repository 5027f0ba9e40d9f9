/* The sky capture on the CPU backend: when the environment's hash moved, the
 * sky into the octahedral capture's mips, then its irradiance and GGX
 * prefilter, each texel a job on the pool (render/skylight.c does the
 * arithmetic); the split-sum BRDF table once, at create. */
#include "cpu_internal.h"
#include "render/skylight.h"

#define SKY_CHUNK 64 /* texels per job: fixed, so any thread count writes the same */

static void capture_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    for (uint32_t i = begin; i < end; i++) _oak_sky_capture_texel(user, i);
}
static void filter_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    for (uint32_t i = begin; i < end; i++) _oak_sky_filter_texel(user, i);
}
static void brdf_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    for (uint32_t i = begin; i < end; i++) _oak_sky_brdf_texel(user, i);
}

oak_result _oak_cpu_sky_create(cpu_backend *b) {
    b->sky = oak_calloc((size_t)OAK_GPU_SKY_TEXELS * 4, sizeof(float));
    if (!b->sky) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: no room for the sky maps");
    oak_parallel_for(OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE, SKY_CHUNK, brdf_job, b->sky);
    return OAK_OK;
}

oak_result _oak_cpu_run_skycapture(cpu_backend *b, const oak_render_view *v) {
    uint64_t h = _oak_sky_hash(v);
    if (h == b->sky_hash) return OAK_OK; /* nothing it depends on moved */
    _oak_sky_prepare(b->sky, v, false);
    oak_parallel_for(OAK_GPU_SKY_CAPTURE_TEXELS, SKY_CHUNK, capture_job, b->sky);
    oak_parallel_for(OAK_GPU_SKY_FILTER_TEXELS, SKY_CHUNK, filter_job, b->sky);
    b->sky_hash = h;
    b->sky_captures++;
    return OAK_OK;
}
