#version 450
// The shadow compute raster's merge (craster_shadow_merge.frag): a quad over
// one cascade's tile of the atlas (the shadow pass's viewport covers the
// whole atlas), for region = cascade * 2 + (1 for movers), the instance
// index on Vulkan and a uniform on GL.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(location = 0) flat out uint v_region;
#ifdef OAK_VULKAN_GLSL
#define OAK_MERGE_REGION uint(gl_InstanceIndex)
#else
layout(location = 0) uniform uint oak_merge_region;
#define OAK_MERGE_REGION oak_merge_region
// the GL shadow pass keeps its four tile clip planes on: inside them all
out float gl_ClipDistance[4];
#endif

void main() {
    uint region = OAK_MERGE_REGION, cascade = region >> 1;
    int i = int(OAK_VERTEX_INDEX);
    // two triangles: (0,0) (1,0) (0,1), (0,1) (1,0) (1,1)
    int k = i < 3 ? i : 6 - i;
    vec2 corner = vec2(float(k & 1), float(k >> 1));
    vec2 tile = vec2(float(cascade & 1u), float(cascade >> 1));
    gl_Position = vec4(tile - 1.0 + corner, 0.0, 1.0);
    v_region = region;
#ifndef OAK_VULKAN_GLSL
    for (int c = 0; c < 4; c++) gl_ClipDistance[c] = 1.0;
#endif
}
