/* Private to the asset layer: KHR_draco_mesh_compression's decoder, a small
 * C++ file (asset/gltf_draco.cc) over Debian's libdraco behind C calls. No
 * exception crosses it; every failure is a non-zero return with a reason. */
#ifndef OAK_ASSET_DRACO_DECODE_H
#define OAK_ASSET_DRACO_DECODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _oak_draco_mesh _oak_draco_mesh;

/* Decodes a Draco mesh; why gets the reason on failure (non-zero). */
int _oak_draco_decode(_oak_draco_mesh **out, const uint8_t *data, size_t size, uint32_t *points,
                      uint32_t *faces, char *why, size_t why_size);
/* The attribute with this unique id as comps doubles per point (points *
   comps of them); 1: no such attribute, 2: it has another component count. */
int _oak_draco_attribute(const _oak_draco_mesh *mesh, uint32_t unique_id, uint32_t comps,
                         double *out);
/* The faces' corners, faces * 3 point indices. */
void _oak_draco_indices(const _oak_draco_mesh *mesh, double *out);
void _oak_draco_free(_oak_draco_mesh *mesh);

#ifdef __cplusplus
}
#endif

#endif
