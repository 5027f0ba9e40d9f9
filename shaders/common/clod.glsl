// Cluster LOD's cut (docs/ARCHITECTURE.md "Cluster LOD"): the GLSL twin of
// backend/gpu/meshcull.c's _oak_clod_over and _oak_clod_keep, for the
// GPUs' meshlet compute pass (meshcull.comp). A meshlet is drawn where its
// group's error projects to at most OAK_CLOD_THRESHOLD_PX pixels and its
// parent group's to more; an error (mesh units, times the draw's largest
// axis scale) projects over the distance from the eye to its sphere's
// nearest point, clamped at the near plane. The test is made without a
// division (e > threshold * distance) and operation for operation as the
// C side, `precise` so nothing is fused, so the cut is the CPU's bit for
// bit where sqrt is correctly rounded (lavapipe). Inputs as the C side's:
//   lod_px  0.5 * height * abs(proj[1][1]) (pixels of a unit 1 m away)
//   eye     the camera's position (world)
//   world   the draw's matrix, scale its largest axis scale
// A plain mesh's meshlets (error 0, parent error FLT_MAX) are always kept
// (the caller skips the test for them, as _oak_meshcull_test does).
#ifndef OAK_CLOD_GLSL
#define OAK_CLOD_GLSL

#define OAK_CLOD_THRESHOLD_PX 1.0
#define OAK_CLOD_ROOT_ERROR 3.402823466e38

bool oak_clod_over(mat4 world, float scale, vec3 eye, float lod_px, float znear, bool ortho,
                   vec4 sphere, float error) {
    if (error >= OAK_CLOD_ROOT_ERROR) return true; // a root: its parent is never drawn
    precise float e = error * scale * lod_px;
    if (ortho) return e > OAK_CLOD_THRESHOLD_PX;
    precise vec3 w;
    for (int r = 0; r < 3; r++)
        w[r] = world[0][r] * sphere.x + world[1][r] * sphere.y + world[2][r] * sphere.z + world[3][r];
    precise float dx = w.x - eye.x, dy = w.y - eye.y, dz = w.z - eye.z;
    precise float l2 = dx * dx + dy * dy + dz * dz;
    precise float d = sqrt(l2) - sphere.w * scale;
    precise float lim = OAK_CLOD_THRESHOLD_PX * max(d, znear);
    return e > lim;
}

bool oak_clod_keep(mat4 world, float scale, vec3 eye, float lod_px, float znear, bool ortho,
                   vec4 lod_sphere, float lod_error, vec4 parent_sphere, float parent_error) {
    return !oak_clod_over(world, scale, eye, lod_px, znear, ortho, lod_sphere, lod_error) &&
           oak_clod_over(world, scale, eye, lod_px, znear, ortho, parent_sphere, parent_error);
}

#endif
