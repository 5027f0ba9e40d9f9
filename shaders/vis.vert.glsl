#version 450
// Visibility and shadow raster: pulls positions from the vertex pool by
// OAK_VERTEX_INDEX and the draw's record by OAK_INSTANCE_INDEX (firstInstance is
// the draw index); the shadow variant projects with its cascade's matrix into
// that cascade's tile of the shadow atlas.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"

OAK_SPEC_CONST(0, bool, SHADOW, false)
OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw;
layout(location = 1) out vec4 v_uv;    // uv0, uv1 (masked materials)
layout(location = 2) out float v_alpha; // vertex colour alpha

out float gl_ClipDistance[4]; // the shadow pass keeps a cascade inside its tile

void main() {
    oak_gpu_draw d = draws[OAK_INSTANCE_INDEX];
    vec4 p = d.world * positions[OAK_VERTEX_INDEX];
    // casters come cascade by cascade; shadow_first says where each starts
    uint idx = uint(OAK_INSTANCE_INDEX);
    int cascade = int(idx >= view.shadow_first.y) + int(idx >= view.shadow_first.z) +
                  int(idx >= view.shadow_first.w);
    vec4 c = (SHADOW ? view.shadow_view_proj[cascade] : view.view_proj) * p;
    // Snap to 1/16 pixel as the CPU rasterizer does, so both cover the same
    // pixels (the hardware's finer grid then lands exactly on these points).
    if (c.w > 0.0) {
        vec2 size = SHADOW ? vec2(float(view.flags.z)) : vec2(view.size.xy);
        vec2 s = (c.xy / c.w * 0.5 + 0.5) * size;
        s = roundEven(s * 16.0) / 16.0;
        c.xy = (s / size * 2.0 - 1.0) * c.w;
    }
    if (SHADOW) {
        // clipped to the cascade's own map, which is one tile of the 2 x 2
        // atlas: x and y halve and shift by whole tiles (whole texels)
        gl_ClipDistance[0] = c.w + c.x;
        gl_ClipDistance[1] = c.w - c.x;
        gl_ClipDistance[2] = c.w + c.y;
        gl_ClipDistance[3] = c.w - c.y;
        vec2 tile = vec2(float(cascade & 1), float(cascade >> 1));
        c.xy = c.xy * 0.5 + (tile - 0.5) * c.w;
    } else {
        for (int k = 0; k < 4; k++) gl_ClipDistance[k] = 1.0;
    }
    gl_Position = c;
    v_draw = uint(OAK_INSTANCE_INDEX);
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv;
    v_alpha = a.color.a;
}
