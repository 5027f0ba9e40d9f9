#!/usr/bin/env python3
"""Writes a skinned grid as .glb for measuring skinning cost: a strip of
N x N vertices bent by a chain of J joints (4 influences per vertex, one
looping rotation clip). Usage: make_skin_grid.py OUT.glb [N] [J]"""
import json, math, struct, sys

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
jn = int(sys.argv[3]) if len(sys.argv) > 3 else 32
pos, nrm, jnt, wgt, idx = bytearray(), bytearray(), bytearray(), bytearray(), bytearray()
for r in range(n):
    for c in range(n):
        y = r / (n - 1) * jn
        pos += struct.pack('<3f', c / (n - 1), y, 0)
        nrm += struct.pack('<3f', 0, 0, 1)
        j0 = min(int(y), jn - 1)
        js = [j0, min(j0 + 1, jn - 1), max(j0 - 1, 0), min(j0 + 2, jn - 1)]
        f = y - int(y)
        ws = [0.6 * (1 - f), 0.6 * f, 0.2, 0.2]
        jnt += struct.pack('<4H', *js)
        wgt += struct.pack('<4f', *ws)
for r in range(n - 1):
    for c in range(n - 1):
        a = r * n + c
        idx += struct.pack('<6I', a, a + 1, a + n, a + 1, a + n + 1, a + n)
times = struct.pack('<3f', 0, 1, 2)
rots = b''.join(struct.pack('<4f', 0, 0, math.sin(a / 2), math.cos(a / 2)) for a in (0, 0.2, 0))
ibm = b''.join(struct.pack('<16f', 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -j, 0, 1) for j in range(jn))
blobs = [pos, jnt, wgt, idx, ibm, times, rots, nrm]
views, off, binbuf = [], 0, bytearray()
for b in blobs:
    views.append({"buffer": 0, "byteOffset": off, "byteLength": len(b)})
    binbuf += b
    off += len(b)
nv = n * n
acc = [
    {"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3",
     "min": [0, 0, 0], "max": [1, jn, 0]},
    {"bufferView": 1, "componentType": 5123, "count": nv, "type": "VEC4"},
    {"bufferView": 2, "componentType": 5126, "count": nv, "type": "VEC4"},
    {"bufferView": 3, "componentType": 5125, "count": len(idx) // 4, "type": "SCALAR"},
    {"bufferView": 4, "componentType": 5126, "count": jn, "type": "MAT4"},
    {"bufferView": 5, "componentType": 5126, "count": 3, "type": "SCALAR", "min": [0], "max": [2]},
    {"bufferView": 6, "componentType": 5126, "count": 3, "type": "VEC4"},
    {"bufferView": 7, "componentType": 5126, "count": nv, "type": "VEC3"},
]
nodes = [{"mesh": 0, "skin": 0, "children": [1]}]
for j in range(jn):
    node = {"translation": [0, 1 if j else 0, 0]}
    if j + 1 < jn:
        node["children"] = [j + 2]
    nodes.append(node)
doc = {
    "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": nodes,
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 7, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                "indices": 3}]}],
    "skins": [{"joints": list(range(1, jn + 1)), "inverseBindMatrices": 4}],
    "animations": [{"name": "bend", "samplers": [{"input": 5, "output": 6}],
                    "channels": [{"sampler": 0, "target": {"node": 1 + j, "path": "rotation"}}
                                 for j in range(1)]}],
    "accessors": acc, "bufferViews": views, "buffers": [{"byteLength": len(binbuf)}],
}
js = json.dumps(doc).encode()
js += b' ' * (-len(js) % 4)
binbuf += b'\0' * (-len(binbuf) % 4)
total = 12 + 8 + len(js) + 8 + len(binbuf)
with open(out, 'wb') as f:
    f.write(struct.pack('<III', 0x46546C67, 2, total))
    f.write(struct.pack('<II', len(js), 0x4E4F534A) + js)
    f.write(struct.pack('<II', len(binbuf), 0x004E4942) + binbuf)
