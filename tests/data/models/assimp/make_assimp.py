#!/usr/bin/env python3
"""Writes the FBX and Collada test models from the CC0 glTF ones beside
them (../SimpleSkin, ../cube), with assimp's exporter (Debian's
assimp-utils, 5.2.5):

  cube.fbx         ../cube/cube.gltf as ASCII FBX
  cube.dae         ../cube/cube.gltf as Collada
  simpleskin.fbx   ../SimpleSkin with named nodes, as ASCII FBX (skin and
                   weights; assimp's FBX exporter keeps one key per curve)
  simpleskin.dae   the same as Collada; the exporter names the animation's
                   sources without writing them, so this script writes them:
                   joint_b's 12 rotation keys as the matrices they make.

Run from this folder: python3 make_assimp.py"""
import json
import math
import struct
import base64
import subprocess

src = json.load(open("../SimpleSkin/SimpleSkin.gltf"))
for i, name in enumerate(["skinned", "joint_a", "joint_b"]):
    src["nodes"][i]["name"] = name
src["animations"][0]["name"] = "bend"
json.dump(src, open("/tmp/oak_simpleskin_named.gltf", "w"))


def export(inp, out, fmt):
    subprocess.run(["assimp", "export", inp, out, "-f" + fmt], check=True,
                   stdout=subprocess.DEVNULL)


export("../cube/cube.gltf", "cube.fbx", "fbxa")
export("../cube/cube.gltf", "cube.dae", "collada")
export("/tmp/oak_simpleskin_named.gltf", "simpleskin.fbx", "fbxa")
export("/tmp/oak_simpleskin_named.gltf", "simpleskin.dae", "collada")

# joint_b's keys, read from the glTF's buffers
bufs = [base64.b64decode(b["uri"].split(",", 1)[1]) for b in src["buffers"]]


def floats(accessor):
    a = src["accessors"][accessor]
    v = src["bufferViews"][a["bufferView"]]
    n = {"SCALAR": 1, "VEC4": 4}[a["type"]] * a["count"]
    off = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    return list(struct.unpack_from("<%df" % n, bufs[v["buffer"]], off))


sampler = src["animations"][0]["samplers"][0]
times, quats = floats(sampler["input"]), floats(sampler["output"])
mats = []
for k in range(len(times)):
    x, y, z, w = quats[4 * k:4 * k + 4]
    mats += [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0,
             2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0,
             2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0,
             0, 0, 0, 1]
fmt = lambda v: " ".join("%.7g" % f for f in v)
n = len(times)
sources = f"""      <source id="joint_b_matrix-input">
        <float_array id="joint_b_matrix-input-array" count="{n}">{fmt(times)}</float_array>
        <technique_common><accessor source="#joint_b_matrix-input-array" count="{n}" stride="1"><param name="TIME" type="float"/></accessor></technique_common>
      </source>
      <source id="joint_b_matrix-output">
        <float_array id="joint_b_matrix-output-array" count="{16 * n}">{fmt(mats)}</float_array>
        <technique_common><accessor source="#joint_b_matrix-output-array" count="{n}" stride="16"><param name="TRANSFORM" type="float4x4"/></accessor></technique_common>
      </source>
      <source id="joint_b_matrix-interpolation">
        <Name_array id="joint_b_matrix-interpolation-array" count="{n}">{" ".join(["LINEAR"] * n)}</Name_array>
        <technique_common><accessor source="#joint_b_matrix-interpolation-array" count="{n}" stride="1"><param name="INTERPOLATION" type="name"/></accessor></technique_common>
      </source>
"""
dae = open("simpleskin.dae").read()
anchor = '      <sampler id="joint_b_matrix-sampler">'
assert anchor in dae and "joint_b_matrix-input-array" not in dae
open("simpleskin.dae", "w").write(dae.replace(anchor, sources + anchor))
