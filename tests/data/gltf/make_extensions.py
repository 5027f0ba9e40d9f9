#!/usr/bin/env python3
"""Writes two small files made for oak's tests, each a unit card facing +Z.

pointer.gltf: KHR_animation_pointer and KHR_node_visibility on a small
scene (the card, a point lamp, a camera).

Nodes: 0 "holder" (children 1), 1 "card" (mesh), 2 "lamp" (light 0),
3 "eye" (camera 0), 4 "veil" (visible false at rest; children 5),
5 "under" (mesh, visible itself but under the hidden veil).
Animation "pointers", keys at 0, 1 and 2 s:
  /materials/0/pbrMetallicRoughness/baseColorFactor  red, green, blue (LINEAR)
  /materials/0/pbrMetallicRoughness/roughnessFactor  0.2, 0.6, 1.0
  /nodes/0/extensions/KHR_node_visibility/visible    1, 0, 0 (STEP, unsigned byte)
  /nodes/4/extensions/KHR_node_visibility/visible    0, 0, 1 (STEP)
  /extensions/KHR_lights_punctual/lights/0/intensity 10, 20, 40
  /cameras/0/perspective/yfov                        0.5, 1.0, 1.5
  /nodes/1/translation                               x = 0, 1, 2
  a texture-transform offset oak does not animate (skipped with a warning)

variants.gltf: KHR_materials_variants. Materials 0 "plain" (white),
1 "red paint", 2 "blue paint"; variants "red" (material 1), "blue"
(material 2) and "bare" (mapped by no primitive: the card's own, plain).
Two nodes share the mesh.

specgloss.gltf: KHR_materials_pbrSpecularGlossiness. Material 0 a
dielectric by factors (diffuse 0.5 grey, specular 0.04, glossiness 0.8),
1 a metal by factors (black diffuse, specular 0.9 0.6 0.3, glossiness 1),
2 textured: a 2x1 diffuse image (red, white) and a 2x1
specular-glossiness image (specular sRGB 10 grey with glossiness 204, then
specular 230 153 77 with glossiness 255), factors 1.

Run from this folder: python3 make_extensions.py"""
import base64
import json
import struct
import zlib

blob = bytearray()
views, accessors = [], []


def add(fmt, values, type_, ctype, count, minmax=False, target=None):
    while len(blob) % 4:
        blob.append(0)
    off = len(blob)
    blob.extend(struct.pack("<" + fmt * (len(values)), *values))
    view = {"buffer": 0, "byteOffset": off, "byteLength": len(blob) - off}
    if target:
        view["target"] = target
    views.append(view)
    acc = {"bufferView": len(views) - 1, "componentType": ctype, "count": count, "type": type_}
    if minmax:
        n = len(values) // count
        acc["min"] = [min(values[i::n]) for i in range(n)]
        acc["max"] = [max(values[i::n]) for i in range(n)]
    accessors.append(acc)
    return len(accessors) - 1


FLOAT, UBYTE, USHORT = 5126, 5121, 5123
pos = add("f", [-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0], "VEC3", FLOAT, 4, True, 34962)
nrm = add("f", [0, 0, 1] * 4, "VEC3", FLOAT, 4, False, 34962)
idx = add("H", [0, 1, 2, 0, 2, 3], "SCALAR", USHORT, 6, False, 34963)
times = add("f", [0, 1, 2], "SCALAR", FLOAT, 3, True)
color = add("f", [1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1], "VEC4", FLOAT, 3)
rough = add("f", [0.2, 0.6, 1.0], "SCALAR", FLOAT, 3)
vis0 = add("B", [1, 0, 0], "SCALAR", UBYTE, 3)
vis4 = add("B", [0, 0, 1], "SCALAR", UBYTE, 3)
inten = add("f", [10, 20, 40], "SCALAR", FLOAT, 3)
fov = add("f", [0.5, 1.0, 1.5], "SCALAR", FLOAT, 3)
move = add("f", [0, 0, 0, 1, 0, 0, 2, 0, 0], "VEC3", FLOAT, 3)
offs = add("f", [0, 0, 0.5, 0, 1, 0], "VEC2", FLOAT, 3)
uv = add("f", [0, 1, 1, 1, 1, 0, 0, 0], "VEC2", FLOAT, 4, False, 34962)

pointers = [
    ("/materials/0/pbrMetallicRoughness/baseColorFactor", color, "LINEAR"),
    ("/materials/0/pbrMetallicRoughness/roughnessFactor", rough, "LINEAR"),
    ("/nodes/0/extensions/KHR_node_visibility/visible", vis0, "STEP"),
    ("/nodes/4/extensions/KHR_node_visibility/visible", vis4, "STEP"),
    ("/extensions/KHR_lights_punctual/lights/0/intensity", inten, "LINEAR"),
    ("/cameras/0/perspective/yfov", fov, "LINEAR"),
    ("/nodes/1/translation", move, "LINEAR"),
    ("/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset",
     offs, "LINEAR"),
]
channels, samplers = [], []
for i, (ptr, out, interp) in enumerate(pointers):
    samplers.append({"input": times, "output": out, "interpolation": interp})
    channels.append({"sampler": i, "target": {"path": "pointer",
                     "extensions": {"KHR_animation_pointer": {"pointer": ptr}}}})

gltf = {
    "asset": {"version": "2.0", "generator": "oak tests/data/gltf/make_extensions.py"},
    "extensionsUsed": ["KHR_animation_pointer", "KHR_node_visibility", "KHR_lights_punctual"],
    "extensions": {"KHR_lights_punctual": {"lights": [
        {"type": "point", "color": [1, 1, 1], "intensity": 10}]}},
    "scene": 0,
    "scenes": [{"nodes": [0, 2, 3, 4]}],
    "nodes": [
        {"name": "holder", "children": [1]},
        {"name": "card", "mesh": 0},
        {"name": "lamp", "translation": [0, 0, 2],
         "extensions": {"KHR_lights_punctual": {"light": 0}}},
        {"name": "eye", "camera": 0, "translation": [0, 0, 3]},
        {"name": "veil", "children": [5], "extensions": {"KHR_node_visibility": {"visible": False}}},
        {"name": "under", "mesh": 0, "translation": [0, 1.5, 0],
         "extensions": {"KHR_node_visibility": {"visible": True}}},
    ],
    "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "NORMAL": nrm}, "indices": idx,
                                "material": 0}]}],
    "materials": [{"name": "paint", "pbrMetallicRoughness": {
        "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0.5}}],
    "cameras": [{"type": "perspective",
                 "perspective": {"yfov": 0.8, "znear": 0.1, "zfar": 100}}],
    "animations": [{"name": "pointers", "channels": channels, "samplers": samplers}],
    "buffers": [{"byteLength": len(blob),
                 "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}],
    "bufferViews": views,
    "accessors": accessors,
}
with open("pointer.gltf", "w") as f:
    f.write(json.dumps(gltf, indent=1) + "\n")


def paint(name, rgba):
    return {"name": name, "pbrMetallicRoughness": {
        "baseColorFactor": rgba, "metallicFactor": 0, "roughnessFactor": 0.7}}


variants = {
    "asset": {"version": "2.0", "generator": "oak tests/data/gltf/make_extensions.py"},
    "extensionsUsed": ["KHR_materials_variants"],
    "extensions": {"KHR_materials_variants": {"variants": [
        {"name": "red"}, {"name": "blue"}, {"name": "bare"}]}},
    "scene": 0,
    "scenes": [{"nodes": [0, 1]}],
    "nodes": [{"name": "left", "mesh": 0, "translation": [-0.6, 0, 0]},
              {"name": "right", "mesh": 0, "translation": [0.6, 0, 0]}],
    "meshes": [{"primitives": [{
        "attributes": {"POSITION": pos, "NORMAL": nrm}, "indices": idx, "material": 0,
        "extensions": {"KHR_materials_variants": {"mappings": [
            {"material": 1, "variants": [0]}, {"material": 2, "variants": [1]}]}}}]}],
    "materials": [paint("plain", [1, 1, 1, 1]), paint("red paint", [1, 0, 0, 1]),
                  paint("blue paint", [0, 0, 1, 1])],
    "buffers": gltf["buffers"],
    "bufferViews": views,
    "accessors": accessors,
}
with open("variants.gltf", "w") as f:
    f.write(json.dumps(variants, indent=1) + "\n")


def png(w, h, rgba):
    """A minimal RGBA8 PNG (filter 0 on every row)."""
    raw = b"".join(b"\0" + bytes(rgba[4 * w * y:4 * w * (y + 1)]) for y in range(h))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def data_uri(b):
    return "data:image/png;base64," + base64.b64encode(b).decode()


sg = lambda ext: {"name": "sg", "extensions": {"KHR_materials_pbrSpecularGlossiness": ext}}
specgloss = {
    "asset": {"version": "2.0", "generator": "oak tests/data/gltf/make_extensions.py"},
    "extensionsUsed": ["KHR_materials_pbrSpecularGlossiness"],
    "scene": 0,
    "scenes": [{"nodes": [0, 1, 2]}],
    "nodes": [{"mesh": m, "translation": [1.2 * (m - 1), 0, 0]} for m in range(3)],
    "meshes": [{"primitives": [{"attributes": {"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv},
                                "indices": idx, "material": m}]} for m in range(3)],
    "materials": [
        sg({"diffuseFactor": [0.5, 0.5, 0.5, 1], "specularFactor": [0.04, 0.04, 0.04],
            "glossinessFactor": 0.8}),
        sg({"diffuseFactor": [0, 0, 0, 1], "specularFactor": [0.9, 0.6, 0.3],
            "glossinessFactor": 1}),
        sg({"diffuseTexture": {"index": 0}, "specularGlossinessTexture": {"index": 1}}),
    ],
    "textures": [{"source": 0}, {"source": 1}],
    "images": [{"uri": data_uri(png(2, 1, [255, 0, 0, 255, 255, 255, 255, 255]))},
               {"uri": data_uri(png(2, 1, [10, 10, 10, 204, 230, 153, 77, 255]))}],
    "buffers": gltf["buffers"],
    "bufferViews": views,
    "accessors": accessors,
}
with open("specgloss.gltf", "w") as f:
    f.write(json.dumps(specgloss, indent=1) + "\n")


def fresh_card():
    """A new buffer holding only the unit card: its POSITION, NORMAL and
    index accessors."""
    global blob, views, accessors
    blob, views, accessors = bytearray(), [], []
    return (add("f", [-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0], "VEC3", FLOAT, 4,
                True, 34962),
            add("f", [0, 0, 1] * 4, "VEC3", FLOAT, 4, False, 34962),
            add("H", [0, 1, 2, 0, 2, 3], "SCALAR", USHORT, 6, False, 34963))


def own_buffer():
    return [{"byteLength": len(blob), "uri": "data:application/octet-stream;base64,"
             + base64.b64encode(bytes(blob)).decode()}]


def instancing_file(attrs, extra_nodes=True):
    """EXT_mesh_gpu_instancing on node 0 "rack" (the card, at z = -1 and
    scale 2); node 1 "plain" is the card alone at y = 1.5. attrs maps an
    attribute name to (fmt, values, type, component type, count, normalized)."""
    p, n, i = fresh_card()
    named = {}
    for name, (fmt, values, type_, ctype, count, norm) in attrs.items():
        named[name] = add(fmt, values, type_, ctype, count)
        if norm:
            accessors[named[name]]["normalized"] = True
    nodes = [{"name": "rack", "mesh": 0, "translation": [0, 0, -1], "scale": [2, 2, 2],
              "extensions": {"EXT_mesh_gpu_instancing": {"attributes": named}}}]
    if extra_nodes:
        nodes.append({"name": "plain", "mesh": 0, "translation": [0, 1.5, 0]})
    return {
        "asset": {"version": "2.0", "generator": "oak tests/data/gltf/make_extensions.py"},
        "extensionsUsed": ["EXT_mesh_gpu_instancing"],
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "NORMAL": n}, "indices": i,
                                    "material": 0}]}],
        "materials": [{"name": "paint", "pbrMetallicRoughness": {
            "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0.5}}],
        "buffers": own_buffer(),
        "bufferViews": views,
        "accessors": accessors,
    }


# instancing.gltf: three placements along x; the second turned 90 degrees
# about z by a normalized SHORT quaternion (23170 = 0.7071 * 32767) and
# half size, the third stretched (1, 2, 1): drawn at the cube root of 2.
SHORT = 5122
good = {
    "TRANSLATION": ("f", [-1, 0, 0, 0, 0, 0, 1, 0, 0], "VEC3", FLOAT, 3, False),
    "ROTATION": ("h", [0, 0, 0, 32767, 0, 0, 23170, 23170, 0, 0, 0, 32767], "VEC4", SHORT, 3, True),
    "SCALE": ("f", [1, 1, 1, 0.5, 0.5, 0.5, 1, 2, 1], "VEC3", FLOAT, 3, False),
}
for name, attrs in [
        ("instancing.gltf", good),
        # bad: the counts differ (3 placements, 2 scales)
        ("instancing_counts.gltf", dict(good, SCALE=("f", [1] * 6, "VEC3", FLOAT, 2, False))),
        # bad: a zero quaternion
        ("instancing_zero_rotation.gltf",
         dict(good, ROTATION=("f", [0] * 12, "VEC4", FLOAT, 3, False))),
        # bad: no attribute at all
        ("instancing_empty.gltf", {})]:
    with open(name, "w") as f:
        f.write(json.dumps(instancing_file(attrs), indent=1) + "\n")


def lod_file(ids=(1, 2), coverage=(0.5, 0.2, 0.01), roots=(0,)):
    """MSFT_lod: node 0 "high" (a white card) stands at lower detail as node
    1 "medium" (red) and node 2 "low" (green), each its own mesh; the
    coverage values go in node 0's extras."""
    p, n, i = fresh_card()
    high = {"name": "high", "mesh": 0, "extensions": {"MSFT_lod": {"ids": list(ids)}}}
    if coverage is not None:
        high["extras"] = {"MSFT_screencoverage": list(coverage)}
    colours = [[1, 1, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1]]
    return {
        "asset": {"version": "2.0", "generator": "oak tests/data/gltf/make_extensions.py"},
        "extensionsUsed": ["MSFT_lod"],
        "scene": 0,
        "scenes": [{"nodes": list(roots)}],
        "nodes": [high, {"name": "medium", "mesh": 1}, {"name": "low", "mesh": 2}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": p, "NORMAL": n}, "indices": i,
                                    "material": m}]} for m in range(3)],
        "materials": [{"name": "lod%d" % m, "pbrMetallicRoughness": {
            "baseColorFactor": colours[m], "metallicFactor": 0, "roughnessFactor": 0.5}}
            for m in range(3)],
        "buffers": own_buffer(),
        "bufferViews": views,
        "accessors": accessors,
    }


# lod.gltf: three levels shown down to 0.5, 0.2 and 0.01 of the view's
# height; lod_past.gltf (bad: a level past the nodes) fails; the others
# are drawn at the highest level alone, with a warning: lod_in_scene.gltf
# lists a level in the scene, lod_rising.gltf gives rising coverage.
for name, kw in [("lod.gltf", {}), ("lod_past.gltf", {"ids": (1, 9)}),
                 ("lod_in_scene.gltf", {"roots": (0, 1)}),
                 ("lod_rising.gltf", {"coverage": (0.2, 0.5, 0.01)})]:
    with open(name, "w") as f:
        f.write(json.dumps(lod_file(**kw), indent=1) + "\n")
