#version 450
// The lamp grid, one invocation per cell: every lamp whose sphere of reach
// meets the cell's view-space box is listed, in view order, up to
// OAK_LIGHT_CELL_MAX; the rest are counted in grid_overflow. Lamps pass
// through shared memory 64 at a time. Mirrors backend/cpu/cpu_lightgrid.c.
#extension GL_GOOGLE_include_directive : require
#define OAK_LIGHT_GRID_WRITE 1
#include "common/light_grid.glsl"

#define OAK_GRID_GROUP 64
layout(local_size_x = OAK_GRID_GROUP) in;

shared vec4 lamps[OAK_GRID_GROUP]; // view-space centre, reach (0: everywhere)

void main() {
    uint cell = gl_GlobalInvocationID.x;
    bool live = cell < uint(OAK_LIGHT_GRID_CELLS);
    uint c = live ? cell : 0u;
    uint x = c % uint(OAK_LIGHT_GRID_X);
    uint y = (c / uint(OAK_LIGHT_GRID_X)) % uint(OAK_LIGHT_GRID_Y);
    uint z = c / uint(OAK_LIGHT_GRID_X * OAK_LIGHT_GRID_Y);
    float z0 = oak_grid_slice_depth(z), z1 = oak_grid_slice_depth(z + 1u);
    vec2 nlo = vec2(-1.0 + 2.0 * float(x) / float(OAK_LIGHT_GRID_X),
                    1.0 - 2.0 * float(y + 1u) / float(OAK_LIGHT_GRID_Y));
    vec2 nhi = vec2(-1.0 + 2.0 * float(x + 1u) / float(OAK_LIGHT_GRID_X),
                    1.0 - 2.0 * float(y) / float(OAK_LIGHT_GRID_Y));
    vec3 lo, hi;
    for (int a = 0; a < 2; a++) {
        float v0 = oak_grid_view_at(a, nlo[a], z0), v1 = oak_grid_view_at(a, nhi[a], z0);
        float v2 = oak_grid_view_at(a, nlo[a], z1), v3 = oak_grid_view_at(a, nhi[a], z1);
        lo[a] = min(min(v0, v1), min(v2, v3));
        hi[a] = max(max(v0, v1), max(v2, v3));
    }
    lo.z = -z1;
    hi.z = -z0;
    uint listed = 0u, over = 0u;
    uint base_out = uint(OAK_LIGHT_GRID_CELLS) + c * uint(OAK_LIGHT_CELL_MAX);
    for (uint b = grid_first; b < grid_count; b += uint(OAK_GRID_GROUP)) {
        uint i = b + gl_LocalInvocationID.x;
        if (i < grid_count) {
            oak_gpu_light l = lights[i];
            bool dir = uint(l.position.w) == 1u;
            lamps[gl_LocalInvocationID.x] =
                vec4((grid_view * vec4(l.position.xyz, 1.0)).xyz, dir ? 0.0 : l.direction.w);
        }
        barrier();
        uint n = min(uint(OAK_GRID_GROUP), grid_count - b);
        for (uint k = 0u; k < n; k++) {
            vec4 s = lamps[k];
            vec3 e = max(max(lo - s.xyz, s.xyz - hi), vec3(0.0));
            if (s.w > 0.0 && (dot(e, e) > s.w * s.w || !oak_grid_sphere_side(0, nlo.x, 1.0, s.xyz, s.w) ||
                              !oak_grid_sphere_side(0, nhi.x, -1.0, s.xyz, s.w) ||
                              !oak_grid_sphere_side(1, nlo.y, 1.0, s.xyz, s.w) ||
                              !oak_grid_sphere_side(1, nhi.y, -1.0, s.xyz, s.w)))
                continue;
            if (listed < uint(OAK_LIGHT_CELL_MAX)) {
                if (live) grid_words[base_out + listed] = b + k;
                listed++;
            } else {
                over++;
            }
        }
        barrier();
    }
    if (!live) return;
    grid_words[c] = listed;
    if (over > 0u) atomicAdd(grid_overflow, over);
}
