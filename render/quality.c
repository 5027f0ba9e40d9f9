/* Quality presets (DIGEST §3.10): one table of the render's cost knobs, and
 * how a preset fills the settings left at their defaults. The rungs follow
 * the seed's ladder (render scale, shadow size) with oak's own passes added;
 * docs/SHADING.md "Quality presets" gives the table and why each step. */
#include <math.h>
#include <string.h>

#include "renderer_internal.h"
#include "shadow_layer.h"

static const char *const k_names[OAK_PRESET_COUNT] = {"default", "low", "medium", "high", "ultra"};

/* Rows in oak_preset order. low draws a third of the pixels and leans on
   TAA to upsample them; medium and high add AO and bloom; ultra doubles the
   cascades' texels. Clouds march at half size (low: a quarter) with more
   steps up the ladder. The fog's froxel grid: default (the CPU's, and the
   parity tests') 64 x 36 x 48, up to the GPUs' 160 x 90 x 64 at high. */
static const oak_quality k_table[OAK_PRESET_COUNT] = {
    /* default: each setting's own default */
    {1.0f,
     OAK_SHADOW_MAP_SIZE,
     OAK_SHADOW_PCF_SIZE,
     OAK_AO_DEFAULT,
     OAK_TAA_DEFAULT,
     OAK_BLOOM_DEFAULT,
     1.0f,
     1.0f,
     48,
     2,
     {64, 36, 48}},
    {0.5f, 1024, 2, OAK_AO_OFF, OAK_TAA_ON, OAK_BLOOM_OFF, 0.25f, 0.5f, 32, 4, {64, 36, 32}},
    {0.75f, 2048, 3, OAK_AO_OFF, OAK_TAA_ON, OAK_BLOOM_ON, 0.5f, 0.75f, 48, 2, {96, 54, 48}},
    {1.0f,
     2048,
     OAK_SHADOW_PCF_SIZE,
     OAK_AO_ON,
     OAK_TAA_ON,
     OAK_BLOOM_ON,
     1.0f,
     1.0f,
     64,
     2,
     {160, 90, 64}},
    {1.0f,
     4096,
     OAK_SHADOW_PCF_SIZE,
     OAK_AO_ON,
     OAK_TAA_ON,
     OAK_BLOOM_ON,
     1.0f,
     1.5f,
     96,
     2,
     {160, 90, 128}},
};

oak_quality oak_preset_quality(oak_preset preset) {
    return k_table[(unsigned)preset < OAK_PRESET_COUNT ? preset : OAK_PRESET_DEFAULT];
}

const char *oak_preset_name(oak_preset preset) {
    return (unsigned)preset < OAK_PRESET_COUNT ? k_names[preset] : NULL;
}

oak_result oak_preset_from_name(const char *name, oak_preset *out) {
    for (int p = 0; name && p < OAK_PRESET_COUNT; p++)
        if (!strcmp(name, k_names[p])) {
            *out = (oak_preset)p;
            return OAK_OK;
        }
    return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                     "unknown preset '%s' (presets: default, low, medium, high, ultra)",
                     name ? name : "(null)");
}

oak_result oak_quality_check(const oak_quality *q) {
    if (!q) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: NULL");
    if (!(q->render_scale >= 0.25f && q->render_scale <= 1.0f))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: render_scale %g outside [0.25, 1]",
                         (double)q->render_scale);
    if (q->shadow_map_size < 64 || q->shadow_map_size > OAK_MAX_TEXTURE_SIZE / 2)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: shadow_map_size %u outside [64, %u]",
                         q->shadow_map_size, OAK_MAX_TEXTURE_SIZE / 2);
    if (q->shadow_filter < 1 || q->shadow_filter > OAK_SHADOW_PCF_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: shadow_filter %u outside [1, %d]",
                         q->shadow_filter, OAK_SHADOW_PCF_SIZE);
    if ((unsigned)q->ao > OAK_AO_OFF || (unsigned)q->taa > OAK_TAA_OFF ||
        (unsigned)q->bloom > OAK_BLOOM_OFF)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: ao, taa or bloom not a mode");
    if (!(q->plants > 0 && q->plants <= 1))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: plants %g outside (0, 1]",
                         (double)q->plants);
    if (!(q->plant_distance > 0 && q->plant_distance <= 2))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "quality: plant_distance %g outside (0, 2]",
                         (double)q->plant_distance);
    if (q->cloud_steps < 8 || q->cloud_steps > 256 || q->cloud_scale < 1 || q->cloud_scale > 8)
        return oak_error(
            OAK_ERROR_INVALID_ARGUMENT,
            "quality: cloud_steps %u outside [8, 256] or cloud_scale %u outside [1, 8]",
            q->cloud_steps, q->cloud_scale);
    for (int i = 0; i < 3; i++)
        if (q->fog_grid[i] < 8 || q->fog_grid[i] > 256)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "quality: fog_grid[%d] %u outside [8, 256]", i, q->fog_grid[i]);
    return OAK_OK;
}

void _oak_quality_fill_post(oak_post *post) {
    oak_quality q = oak_preset_quality(post->preset);
    if (post->ao == OAK_AO_DEFAULT) post->ao = q.ao;
    if (post->taa == OAK_TAA_DEFAULT) post->taa = q.taa;
    if (post->bloom == OAK_BLOOM_DEFAULT) post->bloom = q.bloom;
    if (!post->shadow_filter) post->shadow_filter = q.shadow_filter;
    post->shadow_filter = _oak_shadow_pcf(post->shadow_filter);
}

uint32_t _oak_quality_shadow_map_size(const oak_renderer_desc *desc) {
    if (desc->shadow_map_size) return desc->shadow_map_size;
    return oak_preset_quality(desc->preset).shadow_map_size;
}
