#!/usr/bin/env python3
"""Writes oak's corpus of bad input files (tests/data/bad): images whose
headers claim more than their bytes hold or name formats oak does not read,
and scenes, OBJ and glTF files whose paths leave their folder or name a
folder. Run from this folder; the files are committed, so tests need not run
it. FIFOs and symbolic links cannot be committed: tests make those."""
import os
import struct
import zlib


def put(path, data):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_header_only(w, h, colour=6):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IEND", b"")


def jpeg_header_only(w, h, comps=3):
    sof = struct.pack(">BHHB", 8, h, w, comps) + b"".join(
        struct.pack(">BBB", i + 1, 0x11, 0) for i in range(comps))
    return b"\xff\xd8" + b"\xff\xc0" + struct.pack(">H", 2 + len(sof)) + sof + b"\xff\xd9"


RGBE = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n"

# ---- images -------------------------------------------------------------
# 52 bytes: an 8x8 run-length scanline whose counts are all zero; the system
# stb's decoder loops forever on it.
put("images/hdr_hang_52.hdr", (RGBE + "-Y 8 +X 8\n").encode() + b"\x02\x02\x00\x08" + b"\x00" * 3)
# Long enough for its claim, but the first run has a count of zero.
put("images/hdr_zero_run.hdr", (RGBE + "-Y 2 +X 8\n").encode() + b"\x02\x02\x00\x08" + b"\x00" * 40)
# A run longer than the scanline.
put("images/hdr_long_run.hdr",
    (RGBE + "-Y 2 +X 8\n").encode() + b"\x02\x02\x00\x08" + b"\x8f\x10" + b"\x00" * 40)
# Literal dumps that run out inside the first scanline.
put("images/hdr_cut_scanline.hdr",
    (RGBE + "-Y 2 +X 16\n").encode() + b"\x02\x02\x00\x10" + b"\x10" + b"\x40" * 16 + b"\x10" + b"\x40" * 8)
put("images/hdr_xyze.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n\x80\x80\x80\x80")
put("images/hdr_header_never_ends.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n" + "X" * 40)
put("images/hdr_16384.hdr", RGBE + "-Y 16384 +X 16384\n")
put("images/hdr_flipped.hdr", RGBE + "+Y 4 +X 4\n" + "\x80\x80\x80\x80" * 16)
put("images/png_100000.png", png_header_only(100000, 100000))
put("images/png_16384.png", png_header_only(16384, 16384))
put("images/png_8192_tiny.png", png_header_only(8192, 8192))
put("images/png_no_ihdr.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IEND", b""))
put("images/jpeg_16384.jpg", jpeg_header_only(16384, 16384))
put("images/jpeg_4096_tiny.jpg", jpeg_header_only(4096, 4096, 1))
put("images/jpeg_no_frame.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9")
put("images/jpeg_marker_past_end.jpg", b"\xff\xd8\xff\xe0\x7f\xff" + b"\x00" * 10)
put("images/ppm_16384.ppm", "P6\n16384 16384\n255\n" + "\x00" * 12)
put("images/psd_16384.psd", b"8BPS\x00\x01" + b"\x00" * 6 + struct.pack(">HIIHH", 3, 16384, 16384, 8, 3) + b"\x00" * 16)
put("images/tga_16384.tga", struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, 16384, 16384, 32, 8) + b"\x00" * 16)
put("images/gif_16384.gif", b"GIF89a" + struct.pack("<HH", 16384, 16384) + b"\x00\x00\x00;")
put("images/bmp_16384.bmp", b"BM" + struct.pack("<IHHIIiiHH", 54, 0, 0, 54, 40, 16384, 16384, 1, 24) + b"\x00" * 24)
put("images/text.png", "hello, not an image\n")
put("images/empty.jpg", b"")

# ---- paths --------------------------------------------------------------
# Folders named like files: dir.obj, dir.mtl, dir.png, dir.bin (each holds
# a README so git keeps it).
for d in ("dir.obj", "dir.mtl", "dir.png", "dir.bin"):
    put("paths/%s/README" % d, "A folder named like a file, for oak's bad-input tests.\n")
TRI = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"
put("paths/escape_mesh.json", '{ "oak_scene": 1, "meshes": [ { "source": "../../scene/models/two_parts.obj", "index": 0 } ] }\n')
put("paths/escape_texture.json", '{ "oak_scene": 1, "materials": [ { "name": "m", "base_color_tex": { "path": "../../scene/tile.png" } } ] }\n')
put("paths/absolute_texture.json", '{ "oak_scene": 1, "materials": [ { "name": "m", "base_color_tex": { "path": "/etc/passwd" } } ] }\n')
put("paths/dir_mesh.json", '{ "oak_scene": 1, "meshes": [ { "source": "dir.obj", "index": 0 } ] }\n')
put("paths/dir_texture.json", '{ "oak_scene": 1, "materials": [ { "name": "m", "base_color_tex": { "path": "dir.png" } } ] }\n')
put("paths/mtllib_dir.obj", "mtllib dir.mtl\n" + TRI)
put("paths/mtllib_escape.obj", "mtllib ../../obj/quad_tri.mtl\n" + TRI)
put("paths/map_escape.obj", "mtllib map_escape.mtl\nusemtl m\n" + TRI)
put("paths/map_escape.mtl", "newmtl m\nKd 1 1 1\nmap_Kd ../../obj/tex/checker.png\n")
put("paths/map_dir.obj", "mtllib map_dir.mtl\nusemtl m\n" + TRI)
put("paths/map_dir.mtl", "newmtl m\nKd 1 1 1\nmap_Kd dir.png\n")
GLTF_TRI = ('"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],'
            '"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],'
            '"bufferViews":[{"buffer":0,"byteLength":36}],'
            '"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3",'
            '"min":[0,0,0],"max":[1,1,0]}]')
put("paths/buffer_dir.gltf", '{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"dir.bin"}],%s}\n' % GLTF_TRI)
put("paths/buffer_escape.gltf", '{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"../../models/cube/cube.bin"}],%s}\n' % GLTF_TRI)
put("paths/buffer_escape_encoded.gltf", '{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"%%2E%%2E/%%2E%%2E/models/cube/cube.bin"}],%s}\n' % GLTF_TRI)
put("paths/image_dir.gltf", '{"asset":{"version":"2.0"},"images":[{"uri":"dir.png"}]}\n')
put("paths/image_escape.gltf", '{"asset":{"version":"2.0"},"images":[{"uri":"../../scene/tile.png"}]}\n')
put("paths/image_ppm.gltf", '{"asset":{"version":"2.0"},"images":[{"uri":"../images/ppm_16384.ppm"}]}\n')
# Scenes whose textures are bad images (load with --asset-root tests/data/bad).
put("paths/huge_texture.json", '{ "oak_scene": 1, "materials": [ { "name": "m", "base_color_tex": { "path": "../images/png_100000.png" } } ] }\n')
put("paths/hdr_hang_texture.json", '{ "oak_scene": 1, "materials": [ { "name": "m", "base_color_tex": { "path": "../images/hdr_hang_52.hdr", "format": "rgba32f" } } ] }\n')
# A drawable scene (a textured plane under a camera) whose mesh and texture lie
# outside its folder: refused alone, drawn with --asset-root tests/data.
put("paths/escape_drawable.json", """{
  "oak_scene": 1,
  "meshes": [ { "source": "../../scene/models/two_parts.obj", "index": 0 } ],
  "materials": [ { "name": "tile", "base_color_tex": { "path": "../../scene/tile.png" } } ],
  "entities": [
    { "name": "quad", "mesh_renderer": { "mesh": 0, "material": 0 } },
    { "name": "camera", "transform": { "position": [0, 0, 4] }, "camera": {} }
  ],
  "active_camera": 1
}
""")
# Found by fuzz_image: a 2x2 PNG whose deflate stream is cut short; stb 2.27
# reads zeros past its end and grows its output to 2 GiB.
import base64
put("images/png_deflate_runs_on.png", base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAE0lEQVR4nGP4z8AAAAACAAAAAggGAAAAcrZIRFIAABNJREFUrkJggg=="))
# The same class with its chunks intact: 64x64 RGBA rows deflated, then the
# stream cut after 40 bytes inside a well-formed IDAT.
rows = b"".join(b"\x00" + bytes((x * 7 + y * 13) & 255 for x in range(256)) for y in range(64))
cut = zlib.compress(rows, 9)[:40]
put("images/png_deflate_cut.png", b"\x89PNG\r\n\x1a\n" +
    png_chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 6, 0, 0, 0)) +
    png_chunk(b"IDAT", cut) + png_chunk(b"IEND", b""))
# A progressive JPEG of 100 empty scans: each scan decodes every block again,
# so 33 KB of such scans over 4096x4096 keep stb busy for 50 s.
def jseg(m, body):
    return b"\xff" + bytes([m]) + struct.pack(">H", len(body) + 2) + body
scans = b"\xff\xd8" + jseg(0xdb, b"\x00" + bytes([1] * 64))
scans += jseg(0xc2, struct.pack(">BHHB", 8, 64, 64, 1) + b"\x01\x11\x00")
scans += jseg(0xc4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")
scans += (jseg(0xda, b"\x01\x01\x00\x00\x00\x00") + b"\x00") * 100 + b"\xff\xd9"
put("images/jpeg_100_scans.jpg", scans)
