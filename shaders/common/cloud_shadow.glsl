// The clouds' buffer (OAK_B_CLOUDS, OAK_GPU_CLOUD_* in oak_gpu.h) and the
// read of its shadow map: all the resolve and the blend pass take of the
// clouds (common/clouds.glsl has the rest; render/clouds.c the C of both).
#ifndef OAK_CLOUD_SHADOW_GLSL
#define OAK_CLOUD_SHADOW_GLSL

#include "common/bindings.glsl"

#ifdef OAK_CLOUDS_WRITE
OAK_SSBO(OAK_B_CLOUDS) buffer CloudBlock { vec4 clouds[]; };
#else
OAK_SSBO(OAK_B_CLOUDS) readonly buffer CloudBlock { vec4 clouds[]; };
#endif

// the key light's direction as the shadow map marches it (raised when low)
vec3 oak_cloud_shadow_dir() {
    vec3 L = view.clouds.sun.xyz;
    return L.y >= OAK_CLOUD_SUN_MIN_Y ? L : normalize(vec3(L.x, OAK_CLOUD_SUN_MIN_Y, L.z));
}

float oak_cloud_map(int x, int y) {
    return clouds[uint(y * OAK_CLOUD_SHADOW_SIZE + x)].x;
}

// the key light's transmittance through the layer above P (1 without clouds)
float oak_cloud_shadow(vec3 P) {
    if (view.clouds.shape.w == 0.0) return 1.0;
    vec3 L = oak_cloud_shadow_dir();
    vec2 Q = P.xz + L.xz * ((view.clouds.layer.x - P.y) / L.y);
    vec2 u = (Q - view.clouds.shadow.xy) * view.clouds.shadow.w - 0.5;
    float S1 = float(OAK_CLOUD_SHADOW_SIZE - 1);
    u = clamp(u, vec2(0.0), vec2(S1));
    vec2 fl = min(floor(u), vec2(S1 - 1.0));
    vec2 f = u - fl;
    int x = int(fl.x), y = int(fl.y);
    float a = oak_cloud_map(x, y), b = oak_cloud_map(x + 1, y);
    float c = oak_cloud_map(x, y + 1), d = oak_cloud_map(x + 1, y + 1);
    float r0 = a + (b - a) * f.x, r1 = c + (d - c) * f.x;
    return r0 + (r1 - r0) * f.y;
}

#endif
