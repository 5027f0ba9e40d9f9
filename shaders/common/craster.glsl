// The compute raster's shared pieces (craster.comp, craster_shadow.comp;
// docs/ARCHITECTURE.md "Compute rasterization"), for 64-bit integers.
#ifndef OAK_CRASTER_GLSL
#define OAK_CRASTER_GLSL

// A top-left edge (after the winding is made positive, y down) takes the
// samples on it; any other needs them strictly inside.
int64_t oak_edge_bias(ivec2 a, ivec2 b) {
    ivec2 d = b - a;
    return (d.y < 0 || (d.y == 0 && d.x > 0)) ? int64_t(0) : int64_t(-1);
}

int64_t oak_edge(ivec2 a, ivec2 b, ivec2 p) {
    return int64_t(b.x - a.x) * int64_t(p.y - a.y) - int64_t(b.y - a.y) * int64_t(p.x - a.x);
}

// The instance's world matrix, once per work group for the first and last
// instance of its 64 items (with 64 triangles a mesh or more, every item
// but those of a third instance between): the bend is the costly part.
shared mat4 oak_craster_world[2];

mat4 oak_craster_instance(uint s, uint list, uint p) {
    uint rec = stream_heads[s].info.z + (stream_words[list + p] & OAK_GPU_ID_TRIANGLE_MASK);
    return oak_instance_world(stream_records[rec], s);
}
#endif
