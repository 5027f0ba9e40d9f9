#version 450
// Sky capture, first half: each thread one texel of the octahedral capture's
// mips (the sky, averaged over the texel's footprint, seen through the
// clouds where the head asks), then, when the head asks (the first
// capture), one texel of the split-sum BRDF table. Step 1 (below) bakes
// the clouds' noise table instead.
#extension GL_GOOGLE_include_directive : require
#define OAK_SKY_WRITE 1
#define OAK_SKY_CLOUDS 1
#define OAK_CLOUDS_WRITE
#define OAK_CLOUD_DRIFT vec2(0.0)
#include "common/clouds.glsl"
#include "common/sky.glsl"

layout(local_size_x = 64) in;

// step 1: the clouds' noise table (their buffer's: the GPUs' only bake
// of it, render/clouds.c's arithmetic), run before the first capture
// through them and by the clouds pass when their buffer is new; here, as
// this pipeline reads no depth
#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_SKY_STEP, 0u)
#else
layout(location = 0) uniform uint oak_sky_step; // GL: set per dispatch
#define OAK_SKY_STEP oak_sky_step
#endif

// T sky + S through the layer from the head's point (render/skylight.c's
// through_clouds): S in the capture's units, so divided by the irradiance's
// scale (a channel scaled by 0 keeps none)
vec3 oak_sky_clouded(vec3 d, vec3 c) {
    if (!(sky[6].w > 0.0) || !(d.y > 0.0)) return c;
    vec4 o = oak_cloud_sky(sky[7].xyz, d, sky[5].yzw, sky[6].xyz);
    vec3 sc = sky[2].rgb;
    vec3 s = vec3(sc.x > 0.0 ? o.x / sc.x : 0.0, sc.y > 0.0 ? o.y / sc.y : 0.0,
                  sc.z > 0.0 ? o.z / sc.z : 0.0);
    return c * o.w + s;
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (OAK_SKY_STEP == 1u) {
        if (i < uint(OAK_GPU_CLOUD_NOISE_TEXELS))
            clouds[uint(OAK_GPU_CLOUD_NOISE_AT) + i] = oak_cloud_noise_texel(i);
        return;
    }
    if (i < uint(OAK_GPU_SKY_CAPTURE_TEXELS)) {
        oak_sky_capture_texel(i);
        return;
    }
    i -= uint(OAK_GPU_SKY_CAPTURE_TEXELS);
    if (sky[3].w > 0.0 && i < uint(OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE)) oak_sky_brdf_texel(i);
}
