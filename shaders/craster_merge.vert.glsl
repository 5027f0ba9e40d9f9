#version 450
// The compute raster's merge (craster_merge.frag): one triangle over the
// whole target.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

void main() {
    int i = int(OAK_VERTEX_INDEX);
    gl_Position = vec4(float((i << 1) & 2) * 2.0 - 1.0, float(i & 2) * 2.0 - 1.0, 0.0, 1.0);
}
