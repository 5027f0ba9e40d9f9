// The lamp grid in GLSL (the layout of oak_gpu.h's oak_gpu_light_grid, the
// geometry of backend/gpu/light_grid.h): the buffer, a cell's view-space box
// for the build (lightgrid.comp) and a pixel's cell for the resolve.
#ifndef OAK_LIGHT_GRID_GLSL
#define OAK_LIGHT_GRID_GLSL

#include "common/bindings.glsl"

#ifdef OAK_LIGHT_GRID_WRITE
#define OAK_LIGHT_GRID_ACCESS
#else
#define OAK_LIGHT_GRID_ACCESS readonly
#endif

// Members one by one (not the C struct) so the build can count overflow
// with an atomic on a plain uint.
OAK_SSBO(OAK_B_LIGHT_GRID) OAK_LIGHT_GRID_ACCESS buffer LightGridBlock {
    mat4 grid_view;
    vec4 grid_proj;   // P00, P11, P20, P21
    vec4 grid_proj2;  // P30, P31, ortho, 0
    vec4 grid_slices; // g0, (slices - 2) / ln(g1 / g0), znear, zfar
    uint grid_first;  // lights before it are directional
    uint grid_count;  // lights in all
    uint grid_overflow;
    uint grid_pad;
    uint grid_words[]; // counts per cell, then OAK_LIGHT_CELL_MAX indices per cell
};

float oak_grid_slice_depth(uint k) {
    if (k == 0u) return grid_slices.z;
    if (k == uint(OAK_LIGHT_GRID_Z)) return grid_slices.w;
    return grid_slices.x * exp(float(k - 1u) / grid_slices.y);
}

float oak_grid_view_at(int axis, float ndc, float z) {
    float w = grid_proj2.z != 0.0 ? 1.0 : z;
    return (ndc * w - grid_proj2[axis] + grid_proj[2 + axis] * z) / grid_proj[axis];
}

// Whether a sphere lies within r of the inner side of the plane where ndc
// along axis equals t (side +1: the lower bound, -1: the upper).
bool oak_grid_sphere_side(int axis, float t, float side, vec3 c, float r) {
    bool ortho = grid_proj2.z != 0.0;
    float na = grid_proj[axis], nz = grid_proj[2 + axis] + (ortho ? 0.0 : t);
    float d = grid_proj2[axis] - (ortho ? t : 0.0);
    float f = na * c[axis] + nz * c.z + d;
    return side * f >= -r * sqrt(na * na + nz * nz);
}

// The cell of pixel px whose surface point is P.
uint oak_grid_cell(ivec2 px, vec3 P) {
    uint x = ((2u * uint(px.x) + 1u) * uint(OAK_LIGHT_GRID_X)) / (2u * view.size.x);
    uint y = ((2u * uint(px.y) + 1u) * uint(OAK_LIGHT_GRID_Y)) / (2u * view.size.y);
    float depth = -(grid_view * vec4(P, 1.0)).z;
    float s = floor(log(depth / grid_slices.x) * grid_slices.y) + 1.0;
    uint z = !(s > 0.0) ? 0u : s >= float(OAK_LIGHT_GRID_Z) ? uint(OAK_LIGHT_GRID_Z) - 1u : uint(s);
    x = min(x, uint(OAK_LIGHT_GRID_X) - 1u);
    y = min(y, uint(OAK_LIGHT_GRID_Y) - 1u);
    return x + uint(OAK_LIGHT_GRID_X) * (y + uint(OAK_LIGHT_GRID_Y) * z);
}

#endif
