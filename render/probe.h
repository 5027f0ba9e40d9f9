/* Reflection probes' arithmetic, shared by every backend: the box projection
 * (parallax correction) of a reflection direction, a probe's weight across its
 * box's margin, and the specular ambient among the probes in view with the sky
 * light where no box holds the point (docs/SHADING.md "Reflection probes"). */
#ifndef OAK_PROBE_H
#define OAK_PROBE_H

#include <stdint.h>

#include "shaders/common/oak_gpu.h"

/* The direction from the probe's capture point to where the ray from P along
   r (unit) leaves the probe's box: the direction to look the hit up in the
   probe's map. P must lie in the box (the weight is 0 elsewhere); r is
   returned unchanged where the box has no extent along it. */
void _oak_probe_box_dir(const oak_gpu_probe *p, const float P[3], const float r[3], float out[3]);

/* 1 deeper in the box than its margin, falling linearly to 0 at the faces; 0
   outside; with margin 0, 1 anywhere inside. */
float _oak_probe_weight(const oak_gpu_probe *p, const float P[3]);

/* The GGX-prefiltered radiance of one probe map (OAK_GPU_PROBE_MAP_TEXELS
   vec4 texels) around direction d for a roughness, as _oak_sky_specular. */
void _oak_probe_map_specular(const float *map, const float d[3], float roughness, float out[3]);

/* The specular ambient at a surface point P with reflection direction r (unit):
   the probes in order each take their weight of what the earlier ones left,
   and the sky light (_oak_sky_specular of `sky`) takes the rest. maps holds
   the probes' maps by slot (lo[3]). The normal plays no part: the box
   projection needs only the point and the ray. */
void _oak_probe_specular(const oak_gpu_probe *probes, uint32_t count, const float *maps,
                         const float *sky, const float P[3], const float r[3], float roughness,
                         float out[3]);

#endif
