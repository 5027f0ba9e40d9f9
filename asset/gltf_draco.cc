// KHR_draco_mesh_compression through Debian's libdraco (C++): decode a mesh,
// then hand its attributes and faces to the C loader as doubles. Exceptions
// (allocation) are caught here; nothing C++ leaks past asset/draco_decode.h.
#include <cstdio>
#include <memory>
#include <new>

#include <draco/compression/decode.h>

#include "draco_decode.h"

struct _oak_draco_mesh {
    std::unique_ptr<draco::Mesh> mesh;
};

extern "C" int _oak_draco_decode(_oak_draco_mesh **out, const uint8_t *data, size_t size,
                                 uint32_t *points, uint32_t *faces, char *why, size_t why_size) {
    *out = nullptr;
    try {
        draco::DecoderBuffer buffer;
        buffer.Init(reinterpret_cast<const char *>(data), size);
        draco::Decoder decoder;
        auto geometry = draco::Decoder::GetEncodedGeometryType(&buffer);
        if (!geometry.ok() || geometry.value() != draco::TRIANGULAR_MESH) {
            std::snprintf(why, why_size, "not a Draco triangle mesh");
            return 1;
        }
        auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
        if (!decoded.ok()) {
            std::snprintf(why, why_size, "%s", decoded.status().error_msg());
            return 1;
        }
        auto *m = new _oak_draco_mesh;
        m->mesh = std::move(decoded).value();
        *points = m->mesh->num_points();
        *faces = m->mesh->num_faces();
        *out = m;
        return 0;
    } catch (const std::bad_alloc &) {
        std::snprintf(why, why_size, "out of memory decoding it");
    } catch (...) {
        std::snprintf(why, why_size, "the decoder failed");
    }
    return 1;
}

extern "C" int _oak_draco_attribute(const _oak_draco_mesh *m, uint32_t unique_id, uint32_t comps,
                                    double *out) {
    const draco::PointAttribute *a = m->mesh->GetAttributeByUniqueId(unique_id);
    if (!a) return 1;
    if (a->num_components() != comps) return 2;
    uint32_t n = m->mesh->num_points();
    for (uint32_t i = 0; i < n; i++) {
        draco::AttributeValueIndex v = a->mapped_index(draco::PointIndex(i));
        if (!a->ConvertValue<double>(v, static_cast<int8_t>(comps),
                                     out + static_cast<size_t>(i) * comps))
            return 2;
    }
    return 0;
}

extern "C" void _oak_draco_indices(const _oak_draco_mesh *m, double *out) {
    uint32_t n = m->mesh->num_faces();
    for (uint32_t f = 0; f < n; f++) {
        const draco::Mesh::Face &face = m->mesh->face(draco::FaceIndex(f));
        for (int k = 0; k < 3; k++) out[3 * static_cast<size_t>(f) + k] = face[k].value();
    }
}

extern "C" void _oak_draco_free(_oak_draco_mesh *m) {
    delete m;
}
