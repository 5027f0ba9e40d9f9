#version 450
// The shadow compute raster's texels into the cascade's tile
// (docs/ARCHITECTURE.md "Compute rasterization"): where craster_shadow.comp
// drew, its depth; the pipeline's depth test (reversed-Z, greater) settles
// it against the hardware's casters in the same tile.
#extension GL_GOOGLE_include_directive : require
#include "common/draw.glsl"

OAK_SSBO(OAK_B_CRASTER_SHADOW) readonly buffer CrasterShadowBlock { uint craster_texels[]; };

layout(location = 0) flat in uint v_region;

void main() {
    uint size = view.flags.z, cascade = v_region >> 1;
    // the atlas texel (the viewport covers it, row 0 at clip y = -1) in the tile
    ivec2 px = ivec2(gl_FragCoord.xy) - ivec2(uvec2(cascade & 1u, cascade >> 1) * size);
    if (any(lessThan(px, ivec2(0))) || any(greaterThanEqual(px, ivec2(int(size))))) discard;
    uint bits = craster_texels[(v_region * size + uint(px.y)) * size + uint(px.x)];
    if (bits == 0u) discard;
    gl_FragDepth = uintBitsToFloat(bits);
}
