/* The sky capture on the CPU backend: when the environment's hash moved, the
 * sky (through the clouds when the view has them) into the octahedral
 * capture's mips, then its irradiance and GGX
 * prefilter, each texel a job on the pool (render/skylight.c does the
 * arithmetic); the split-sum BRDF table once, at create. */
#include "cpu_internal.h"
#include "render/skylight.h"

#define SKY_CHUNK 64 /* texels per job: fixed, so any thread count writes the same */

typedef struct capture_ctx {
    float *sky;
    const oak_gpu_clouds *cl; /* NULL: the clear sky */
    const float *clouds;
} capture_ctx;

static void capture_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const capture_ctx *c = user;
    for (uint32_t i = begin; i < end; i++)
        _oak_sky_capture_texel_clouds(c->sky, i, c->cl, c->clouds);
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
    /* through the clouds: their noise table baked first (cpu_pass_clouds.c) */
    oak_gpu_clouds cl;
    float P[3];
    capture_ctx c = {.sky = b->sky};
    if (_oak_sky_cloud_point(v, &cl, P)) {
        oak_result r = _oak_cpu_clouds_bake(b, v);
        if (r) return r;
        c.cl = &cl, c.clouds = b->clouds;
    }
    oak_parallel_for(OAK_GPU_SKY_CAPTURE_TEXELS, SKY_CHUNK, capture_job, &c);
    oak_parallel_for(OAK_GPU_SKY_FILTER_TEXELS, SKY_CHUNK, filter_job, b->sky);
    b->sky_hash = h;
    b->sky_captures++;
    return OAK_OK;
}
