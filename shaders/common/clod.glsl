// Cluster LOD's cut (docs/ARCHITECTURE.md "Cluster LOD"): the GLSL twin of
// backend/gpu/meshcull.c's _oak_clod_project and _oak_clod_keep, for the
// GPUs' meshlet compute pass. A meshlet is drawn where its group's error
// projects to at most OAK_CLOD_THRESHOLD_PX pixels and its parent group's
// to more; an error (mesh units, times the draw's largest axis scale)
// projects over the distance from the eye to its sphere's nearest point,
// clamped at the near plane. Inputs as the C side's view and draw:
//   lod_px  0.5 * height * abs(proj[1][1]) (pixels of a unit 1 m away)
//   eye     the camera's position (world)
//   world   the draw's matrix, scale its largest axis scale
// A plain mesh's meshlets (error 0, parent error FLT_MAX) are always kept.
#ifndef OAK_CLOD_GLSL
#define OAK_CLOD_GLSL

#define OAK_CLOD_THRESHOLD_PX 1.0
#define OAK_CLOD_ROOT_ERROR 3.402823466e38

float oak_clod_project(mat4 world, float scale, vec3 eye, float lod_px, float znear, bool ortho,
                       vec4 sphere, float error) {
    if (error >= OAK_CLOD_ROOT_ERROR) return OAK_CLOD_ROOT_ERROR; // a root: never coarser
    float e = error * scale * lod_px;
    if (ortho) return e;
    vec3 w = (world * vec4(sphere.xyz, 1.0)).xyz;
    float d = length(w - eye) - sphere.w * scale;
    return e / max(d, znear);
}

bool oak_clod_keep(mat4 world, float scale, vec3 eye, float lod_px, float znear, bool ortho,
                   vec4 lod_sphere, float lod_error, vec4 parent_sphere, float parent_error) {
    return oak_clod_project(world, scale, eye, lod_px, znear, ortho, lod_sphere, lod_error) <=
               OAK_CLOD_THRESHOLD_PX &&
           oak_clod_project(world, scale, eye, lod_px, znear, ortho, parent_sphere,
                            parent_error) > OAK_CLOD_THRESHOLD_PX;
}

#endif
