// The raster's vertex snap, shared by every pass that draws triangles the
// CPU rasterizer also draws (vis, vis_stream, shadow, shadow_stream,
// lamp_shadow).
#ifndef OAK_SNAP_GLSL
#define OAK_SNAP_GLSL

// Clip-space c snapped to 1/16 of a pixel of a size-pixel target as the CPU
// rasterizer snaps, so both cover the same pixels (the hardware's finer grid
// then lands exactly on these points); shift (pixels, TAA's jitter) moves it
// first.
vec4 oak_snap(vec4 c, vec2 size, vec2 shift) {
    if (c.w > 0.0) {
        vec2 s = (c.xy / c.w * 0.5 + 0.5) * size + shift;
        s = roundEven(s * 16.0) / 16.0;
        c.xy = (s / size * 2.0 - 1.0) * c.w;
    }
    return c;
}

#ifdef OAK_SNAP_CASCADE_TILE
out float gl_ClipDistance[4];

// A caster's clip position c in cascade `cascade`'s map, snapped, clipped to
// that map and placed in its tile of the 2 x 2 atlas: x and y halve and
// shift by whole tiles (whole texels).
vec4 oak_cascade_tile(vec4 c, int cascade) {
    c = oak_snap(c, vec2(float(view.flags.z)), vec2(0.0));
    gl_ClipDistance[0] = c.w + c.x;
    gl_ClipDistance[1] = c.w - c.x;
    gl_ClipDistance[2] = c.w + c.y;
    gl_ClipDistance[3] = c.w - c.y;
    vec2 tile = vec2(float(cascade & 1), float(cascade >> 1));
    c.xy = c.xy * 0.5 + (tile - 0.5) * c.w;
    return c;
}
#endif

#endif
