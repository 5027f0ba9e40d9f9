/* Private to liboak: instance streams posed from a pose bank (issue 15;
 * docs/ARCHITECTURE.md "Pose banks"). The CPU's one posing path: the
 * frontend samples each instance's palette here, the CPU backend and
 * oak_stream_instance_points skin with _oak_pose_skin, and
 * shaders/common/pose.glsl is their twin on the GPUs. */
#ifndef OAK_RENDER_POSE_STREAM_H
#define OAK_RENDER_POSE_STREAM_H

#include <oak/anim.h>
#include <oak/render.h>

#include "asset/pose_rows.h"

/* The bank frames around a posed instance's phase (oak_instance.phase: clip
   and seconds) as indices into the bank's data, and the second's weight:
   every step as pose.glsl's oak_pose_frames takes it. */
void _oak_pose_frames(const oak_pose_bank *bank, float phase, uint32_t *f0, uint32_t *f1, float *w);
/* A phase that blends two clips (oak_pose_blend_phase: a negative
   integer, -2^24 .. -1). */
bool _oak_pose_is_blend(float phase);
/* A phase that poses from an override palette (oak_pose_override_phase:
   below -2^24), and its slot. */
static inline bool _oak_pose_is_override(float phase) {
    return phase < -16777216.0f;
}
static inline uint32_t _oak_pose_override_slot(float phase) {
    return (uint32_t)((-(double)phase - 16777216.0) * 0.5) - 1u;
}
/* The bank clips a phase poses from (clips: the bank's) and clip[1]'s
   share: one clip's phase names it twice at share 0, a blend its two
   (pose.glsl's clamping); an override phase names clip 0. */
void _oak_pose_clips(uint32_t clips, float phase, uint32_t clip[2], float *share);
/* The palette (joints x 12 floats) at phase: the two frames' matrices
   lerped element by element (for a blend, each clip's, then the two); an
   override phase copies its slot of `overrides` (slots palettes; a slot
   past them, which oak_stream_write refuses, reads the bank's first frame). */
void _oak_pose_palette(const oak_pose_bank *bank, const float *overrides, uint32_t slots,
                       float phase, float *palette);
/* v turned by quaternion q (x, y, z, w): v + w t + q x t with t = 2 q x v;
   a non-unit q scales as well. */
void _oak_quat_rotate(const float q[4], const float v[3], float out[3]);
/* _oak_pose_skin and _oak_pose_apply: asset/pose_rows.h */
/* An impostor card (oak_stream_desc.impostor_lod; pose.glsl's
   oak_impostor_rows and oak_impostor_cell are the twins): the rows that
   turn the card about the instance's +y toward eye (in its mesh space) and
   the view its angle there picks, nearest of OAK_IMPOSTOR_VIEWS (view k is
   baked from yaw 2 pi k / VIEWS, from +z toward +x). */
void _oak_impostor_rows(const oak_instance *rec, const float eye[3], float rows[12],
                        uint32_t *view);
/* The walk frame nearest the phase's share of its clip, of OAK_IMPOSTOR_FRAMES. */
uint32_t _oak_impostor_frame(const oak_pose_bank *bank, float phase);
/* An impostor instance's palettes (OAK_DRAW_IMPOSTOR; joints >= 2, each
   palette joints x 12 floats): this frame's card rows at joint 0 and its
   cell's uv offset in joint 1's first two floats; last frame's rows (its
   previous record, the same eye: a stated approximation) after them. */
void _oak_impostor_pose(const oak_pose_bank *bank, const oak_instance *rec,
                        const oak_instance *prev, const float eye[3], float *palette);
/* The sphere (mesh space: centre, radius) around every vertex of mesh in
   every frame of the bank; false when the mesh is not skinned for it (a
   one-line error). */
bool _oak_pose_sphere(const oak_pose_bank *bank, oak_mesh mesh, float out[4]);

#endif
