#!/usr/bin/env python3
"""The 3D data engine: photos of physical chess sets on a table, rendered headless on CPU.

Each scene draws a piece set (dreamchess, brutalchess or a procedural one, see `meshes`), piece
materials (plastic, wood, lacquer; white/black, cream/red, natural/walnut...), a board (wood,
vinyl, painted; a border, with or without printed coordinates), a table, one to three lights
with shadows plus ambient light, and a camera from overhead to 60 degrees from vertical on any
side of the board, with a slight roll. Pieces stand on their squares with small random offsets
and turns. Then phone effects: white balance, noise, blur, JPEG.

Writes OUT/images/NNNNNN.jpg and OUT/manifest.jsonl in the format `img2fen dataset` reads, with
`corners` the playing area's corners a8, h8, h1, a1 in image pixels and `labels` the position
from White, rank 8 first (so the labels run in the corners' order); also the camera's angle from
vertical (`tilt`), the set, the side the camera stands on; OUT/labels.csv for `img2fen eval`
(`--by-band` groups it by camera angle) and OUT/scenes.jsonl for `img2fen eval-locate`.

Sets are split: `--split train` uses dreamchess and procedural sets with even seeds,
`--split heldout` brutalchess and procedural sets with odd seeds, with material palettes kept
apart the same way (see PALETTES); `--split all` draws from both halves (a model measured on real
photos alone).

Needs pyrender with PyOpenGL 3.1.7 and numpy < 2 (scripts/setup_3d.sh makes such a venv);
rendering uses EGL (PYOPENGL_PLATFORM=egl, software Mesa) unless told otherwise.

Usage: python3 -m img2fen_training.render.physical --out DIR --count N --seed S [--split train|heldout]
                                                  [--size 640x480] [--per-set M]

`--per-set M` renders groups of M scenes that share one set (board, pieces, palette, size), the
first of each group the starting position: what `img2fen eval-learn` learns a set from.
"""

import argparse
import io
import json
import math
import os
import random
import sys
from multiprocessing import Pool
from pathlib import Path

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

import numpy as np  # noqa: E402
import pyrender  # noqa: E402
import trimesh  # noqa: E402
from PIL import Image, ImageDraw, ImageFilter, ImageFont  # noqa: E402

from img2fen_training.paths import ASSETS  # noqa: E402
from img2fen_training.render import meshes  # noqa: E402
from img2fen_training.render.boards import fen_placement, load_positions, random_position  # noqa: E402

# Piece colours (linear-ish RGB 0..1) of the white and black side, with a roughness range.
# Even entries train, odd entries are held out.
PALETTES = [
    ((0.92, 0.88, 0.78), (0.06, 0.05, 0.05), (0.3, 0.6)),   # ivory / black plastic
    ((0.95, 0.93, 0.88), (0.10, 0.09, 0.09), (0.2, 0.5)),   # white / black plastic
    ((0.85, 0.68, 0.45), (0.20, 0.10, 0.05), (0.4, 0.8)),   # boxwood / walnut
    ((0.80, 0.62, 0.40), (0.13, 0.07, 0.04), (0.3, 0.7)),   # light / dark wood
    ((0.90, 0.84, 0.66), (0.45, 0.08, 0.06), (0.3, 0.6)),   # cream / red
    ((0.93, 0.90, 0.80), (0.30, 0.05, 0.04), (0.2, 0.5)),   # cream / dark red
    ((0.78, 0.78, 0.76), (0.18, 0.18, 0.20), (0.5, 0.9)),   # grey / graphite, matte
    ((0.96, 0.96, 0.96), (0.02, 0.02, 0.02), (0.1, 0.3)),   # glossy white / black
]

# Board square colours (light, dark), 0..255; even train, odd held out.
BOARD_COLOURS = [
    ((232, 205, 160), (140, 90, 50)),    # maple / walnut
    ((238, 220, 185), (110, 70, 40)),    # birch / dark wood
    ((240, 236, 214), (70, 130, 85)),    # vinyl green
    ((236, 232, 210), (60, 115, 80)),    # tournament green
    ((240, 228, 200), (150, 95, 60)),    # light wood
    ((220, 200, 165), (95, 55, 30)),     # old wood
    ((235, 235, 230), (40, 40, 45)),     # black / white
    ((230, 225, 215), (70, 95, 140)),    # blue vinyl
    ((236, 218, 180), (168, 120, 80)),   # pale wood
    ((226, 214, 190), (120, 60, 40)),    # mahogany
]

TABLES = [(185, 150, 110), (120, 80, 50), (90, 30, 25), (225, 225, 220), (60, 60, 60), (170, 175, 180),
          (200, 185, 160), (40, 30, 25), (150, 160, 120), (210, 200, 190)]

W, H = 640, 480
FONT = None


def font(size):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def grain(rng, w, h, base, strength, scale):
    """Wood-like grain: stretched noise along x, as a uint8 RGB array."""
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    lines = nrng.normal(0, 1, (h // 4 + 2, 1))
    lines = np.repeat(lines, 4, axis=0)[:h]
    fine = nrng.normal(0, 1, (h, w // 16 + 2))
    fine = np.array(Image.fromarray(((fine * 20) + 128).clip(0, 255).astype(np.uint8)).resize((w, h), Image.BILINEAR))
    wave = np.sin(np.linspace(0, scale * math.pi, h)[:, None] + (fine - 128) / 40.0)
    g = (lines * 0.6 + wave * 0.4) * strength
    img = np.array(base, dtype=np.float32)[None, None, :] * (1 + g[..., None] * 0.08)
    return img.clip(0, 255).astype(np.uint8)


def board_texture(rng, split, px=64):
    """The board's top: 8x8 squares and a border (in squares), as an RGB image, and the border."""
    light, dark = pick(rng, BOARD_COLOURS, split)
    j = lambda c: tuple(int(min(255, max(0, v + rng.randint(-14, 14)))) for v in c)
    light, dark = j(light), j(dark)
    border = rng.choice([0.0, 0.25, 0.4, 0.6, 0.8])
    n = int(round((8 + 2 * border) * px))
    off = int(round(border * px))
    woody = rng.random() < 0.55
    frame_col = rng.choice([dark, light, j((90, 55, 30)), j((30, 30, 30))])
    img = Image.new("RGB", (n, n), frame_col)
    if woody:
        img = Image.fromarray(grain(rng, n, n, frame_col, rng.uniform(0.5, 1.5), rng.uniform(8, 30)))
    tiles = {}
    for name, col in (("l", light), ("d", dark)):
        if woody:
            tiles[name] = [Image.fromarray(grain(rng, px, px, col, rng.uniform(0.4, 1.2), rng.uniform(2, 6)))
                           for _ in range(4)]
        else:
            tiles[name] = [Image.new("RGB", (px, px), col)]
    for r in range(8):
        for f in range(8):
            t = rng.choice(tiles["l" if (r + f) % 2 == 0 else "d"])
            if woody and rng.random() < 0.5:
                t = t.transpose(Image.ROTATE_90)
            img.paste(t, (off + f * px, off + r * px))
    d = ImageDraw.Draw(img)
    if rng.random() < 0.5:  # a thin line round the playing area
        lw = max(1, px // 24)
        d.rectangle([off - lw, off - lw, off + 8 * px + lw, off + 8 * px + lw], outline=j((40, 30, 20)), width=lw)
    if border >= 0.25 and rng.random() < 0.7:
        ink = dark if frame_col == light else light
        if rng.random() < 0.3:
            ink = j((20, 20, 20)) if sum(frame_col) > 380 else j((235, 230, 220))
        f = font(int(px * border * rng.uniform(0.45, 0.7)))
        upper = rng.random() < 0.3
        for i in range(8):
            letter = "ABCDEFGH"[i] if upper else "abcdefgh"[i]
            cx = off + (i + 0.5) * px
            for cy, rot in ((off + 8 * px + off / 2, 0), (off / 2, 180)):
                draw_rotated(img, letter, f, ink, (cx, cy), rot if rng.random() < 0.5 else 0)
            num = str(8 - i)
            cy = off + (i + 0.5) * px
            for cx2, rot in ((off / 2, 0), (off + 8 * px + off / 2, 180)):
                draw_rotated(img, num, f, ink, (cx2, cy), rot if rng.random() < 0.5 else 0)
    return img, border


def draw_rotated(img, text, f, ink, centre, rot):
    box = f.getbbox(text)
    w, h = box[2] - box[0] + 4, box[3] - box[1] + 4
    tile = Image.new("L", (w, h), 0)
    ImageDraw.Draw(tile).text((2 - box[0], 2 - box[1]), text, font=f, fill=255)
    if rot:
        tile = tile.rotate(rot, expand=True)
    x, y = int(centre[0] - tile.width / 2), int(centre[1] - tile.height / 2)
    img.paste(Image.new("RGB", tile.size, ink), (x, y), tile)


def pick(rng, items, split):
    """An item of the split's half: even indices train, odd are held out."""
    start = 1 if split == "heldout" else 0
    return items[rng.randrange(start, len(items), 2) if split != "all" else rng.randrange(len(items))]


def textured_quad(img, x0, y0, x1, y1, z, roughness=0.8):
    pos = np.array([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]], dtype=np.float32)
    uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)  # v = 0 is the image's bottom row
    # RGBA: rows of 4-byte pixels are always 4-byte aligned, as OpenGL unpacks them by default;
    # an RGB row whose length is no multiple of 4 would come out sheared.
    tex = pyrender.Texture(source=np.array(img.convert("RGBA")), source_channels="RGBA")
    mat = pyrender.MetallicRoughnessMaterial(baseColorTexture=tex, metallicFactor=0.0, roughnessFactor=roughness)
    prim = pyrender.Primitive(positions=pos, normals=np.tile([0, 0, 1], (4, 1)).astype(np.float32),
                              texcoord_0=uv, indices=np.array([[0, 1, 2], [0, 2, 3]], dtype=np.uint32),
                              material=mat)
    return pyrender.Mesh([prim])


SETS_CACHE = {}


def piece_set(rng, split, details=0.0, turned=0.0):
    """(name, {letter: (mesh, relative height, {part: mesh})}) for this split; `details`: the
    share of procedural sets with Staunton details (`meshes.staunton_parts`), `turned`: the share
    of those turned with Staunton profiles."""
    root = ASSETS / "unpacked/deb"
    if "knights" not in SETS_CACHE:
        SETS_CACHE["dreamchess"] = meshes.dreamchess(root)
        SETS_CACHE["brutalchess"] = meshes.brutalchess(root)
        SETS_CACHE["knights"] = [SETS_CACHE["dreamchess"]["N"][0], SETS_CACHE["brutalchess"]["N"][0]]
    real = "brutalchess" if split == "heldout" else "dreamchess"
    if rng.random() < 0.3:
        if split == "all":
            real = rng.choice(["dreamchess", "brutalchess"])
        return real, SETS_CACHE[real]
    seed = rng.randrange(1 << 20) * 2 + (1 if split == "heldout" else 0)
    knights = {"heldout": SETS_CACHE["knights"][1:], "train": SETS_CACHE["knights"][:1]}.get(split, SETS_CACHE["knights"])
    drng = random.Random(f"details {seed}") if details else None
    return f"procedural-{seed}", meshes.procedural(random.Random(seed), knights, details, drng, turned)


def look_at(eye, target, away, roll):
    """A camera pose (OpenGL: looking along -z, y up) at `eye` looking at `target`, with `away`
    (a direction in the board plane) pointing up the picture, turned by `roll` radians."""
    z = eye - target
    z /= np.linalg.norm(z)
    x = np.cross(away, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    c, s = math.cos(roll), math.sin(roll)
    x, y = c * x + s * y, -s * x + c * y
    pose = np.eye(4)
    pose[:3, 0], pose[:3, 1], pose[:3, 2], pose[:3, 3] = x, y, z, eye
    return pose


def project(pose, f, pts):
    """Image pixels of world points for a camera at `pose` with focal length f (pixels)."""
    inv = np.linalg.inv(pose)
    p = (inv[:3, :3] @ np.asarray(pts, dtype=np.float64).T).T + inv[:3, 3]
    return np.stack([W / 2 + f * p[:, 0] / -p[:, 2], H / 2 - f * p[:, 1] / -p[:, 2]], axis=1)


SIDES = ["white", "h-file", "black", "a-file"]  # where the camera stands
CORNERS = [(-4, 4, 0), (4, 4, 0), (4, -4, 0), (-4, -4, 0)]  # a8, h8, h1, a1


def camera(rng, board_half):
    """A pose, focal length, tilt (degrees from vertical) and side, framing the board."""
    tilt = math.radians(rng.uniform(0, 60))
    side = rng.randrange(4)  # 0: White's side, 1: h-file side, 2: Black's side, 3: a-file side
    az = -math.pi / 2 + side * math.pi / 2 + math.radians(rng.uniform(-45, 45))  # diagonal views too
    yfov = math.radians(rng.uniform(38, 65))
    f = (H / 2) / math.tan(yfov / 2)
    target = np.array([rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8), 0.0])
    away = -np.array([math.cos(az), math.sin(az), 0.0])
    roll = math.radians(rng.gauss(0, 4))
    fill = rng.uniform(0.55, 0.95)
    dist = board_half / math.tan(yfov / 2) / fill + 1.0
    for _ in range(40):
        eye = target + dist * np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), math.cos(tilt)])
        pose = look_at(eye, target, away, roll)
        c = project(pose, f, CORNERS)
        m = 0.02 * W
        if (c[:, 0] > m).all() and (c[:, 0] < W - m).all() and (c[:, 1] > m).all() and (c[:, 1] < H - m).all():
            break
        dist *= 1.08
    return pose, f, yfov, math.degrees(tilt), side, c


def piece_material(rng, colour, rough):
    col = np.clip(np.array(colour) * rng.uniform(0.9, 1.1), 0, 1)
    return pyrender.MetallicRoughnessMaterial(baseColorFactor=[*col, 1.0], metallicFactor=0.0,
                                              roughnessFactor=rng.uniform(*rough))


def start_cells():
    """The starting position as 64 display-order cells, rank 8 first."""
    back = "RNBQKBNR"
    return ["b" + c for c in back] + ["bP"] * 8 + [None] * 32 + ["wP"] * 8 + ["w" + c for c in back]


FELTS = [(0.05, 0.3, 0.12), (0.03, 0.18, 0.08), (0.35, 0.05, 0.05), (0.04, 0.04, 0.04), (0.25, 0.15, 0.08)]


def part_materials(name, mats):
    """The materials of the pieces' parts (`meshes.procedural`) for each side, drawn from the set's
    name alone so that the scene's other draws stay as they were."""
    r = random.Random(f"parts {name}")
    felt = np.array(r.choice(FELTS)) * r.uniform(0.8, 1.2)
    shared = {"groove": pyrender.MetallicRoughnessMaterial(baseColorFactor=[0.03, 0.025, 0.02, 1], roughnessFactor=1.0),
              "felt": pyrender.MetallicRoughnessMaterial(baseColorFactor=[*np.clip(felt, 0, 1), 1], roughnessFactor=1.0)}
    return {"w": {"contrast": mats["b"], **shared}, "b": {"contrast": mats["w"], **shared}}


KING_HEIGHT = (1.5, 2.4)  # the king's height in squares


def render_scene(idx, seed, split, positions, out, per_set=0, footprint=1.0, details=0.0, king_height=KING_HEIGHT,
                 turned=0.0):
    rng = random.Random(seed * 1_000_003 + idx)
    # With `per_set`, scenes come in groups of that many that share one set: board, table,
    # pieces, palette and size are drawn from the group's generator (the same draws for each
    # scene of the group); the first scene of a group shows the starting position.
    srng = (lambda: random.Random(seed * 7_919 + idx // per_set)) if per_set else (lambda: rng)
    group = srng()
    scene = pyrender.Scene(ambient_light=np.full(3, rng.uniform(0.15, 0.45)), bg_color=[*(np.array(rng.choice(TABLES)) / 255 * 0.7), 1])
    tex, border = board_texture(group, split)
    half = 4 + border
    scene.add(textured_quad(tex, -half, -half, half, half, 0.0, rng.uniform(0.4, 0.9)))
    thick = group.uniform(0.1, 0.4)
    side_box = trimesh.creation.box([2 * half, 2 * half, thick])
    side_box.apply_translation([0, 0, -thick / 2 - 0.03])  # clear of the top, or its shadow map bands it
    side_col = np.array(tex.getpixel((2, 2))) / 255 * 0.8
    scene.add(pyrender.Mesh.from_trimesh(side_box, material=pyrender.MetallicRoughnessMaterial(
        baseColorFactor=[*side_col, 1], roughnessFactor=0.8)))
    tcol = group.choice(TABLES)
    table = Image.fromarray(grain(group, 256, 256, tcol, group.uniform(0, 1.5), group.uniform(10, 40)))
    ts = 3 * half  # the table round the board (a larger one spreads the shadow map thin)
    scene.add(textured_quad(table, -ts, -ts, ts, ts, -thick - 0.03, 0.9))

    name, pset = piece_set(group, split, details, turned)
    wcol, bcol, rough = pick(group, PALETTES, split)
    if group.random() < 0.5:
        wcol, bcol = np.clip(np.array(wcol) * group.uniform(0.85, 1.05), 0, 1), np.clip(np.array(bcol) * group.uniform(0.7, 1.5), 0, 1)
    king_h = group.uniform(*KING_HEIGHT)
    if tuple(king_height) != KING_HEIGHT:
        # Another range, drawn from its own stream so that every other draw stays as it was.
        king_h = random.Random(f"king {seed} {idx // per_set if per_set else idx}").uniform(*king_height)
    width = group.uniform(0.9, 1.1)
    if footprint < 1.0:
        # Slimmer pieces on larger squares, as on club and tournament boards (a Staunton pawn's
        # foot is about half a square): the set's widths scaled by a factor in [footprint, 1],
        # drawn from its own stream so that every other draw of the scene stays as it was.
        width *= random.Random(f"footprint {seed} {idx // per_set if per_set else idx}").uniform(footprint, 1.0)
    cells = random_position(rng, dense_share=0.35, flip=False, positions=positions)
    if per_set:
        name = f"g{idx // per_set:03d}-{name}"
        if idx % per_set == 0:
            cells = start_cells()
    mats = {"w": piece_material(group, wcol, rough), "b": piece_material(group, bcol, rough)}
    part_mats = part_materials(name, mats)
    cache = {}
    for i, c in enumerate(cells):
        if not c:
            continue
        mesh, rel, parts = pset[c[1]]
        key = (c[1], c[0])
        if key not in cache:
            cache[key] = [pyrender.Mesh.from_trimesh(mesh, material=mats[c[0]], smooth=True)]
            for part, pmesh in parts.items():
                cache[key].append(pyrender.Mesh.from_trimesh(pmesh, material=part_mats[c[0]][part], smooth=part != "groove"))
        r, fl = i // 8, i % 8  # display row 0 is rank 8
        x, y = -3.5 + fl + rng.gauss(0, 0.05), 3.5 - r + rng.gauss(0, 0.05)
        turn = rng.uniform(-math.pi, math.pi) if c[1] != "N" else (1 if c[0] == "w" else -1) * math.pi / 2 + math.radians(rng.gauss(0, 40))
        s = king_h * rel
        pose = trimesh.transformations.rotation_matrix(turn, [0, 0, 1])
        pose = pose @ np.diag([s * width, s * width, s, 1.0])
        pose[:3, 3] = [x, y, 0]
        for pm in cache[key]:
            scene.add(pm, pose=pose)

    cam_pose, f, yfov, tilt, side, corners = camera(rng, half)
    scene.add(pyrender.PerspectiveCamera(yfov=yfov, aspectRatio=W / H), pose=cam_pose)
    for k in range(rng.randint(1, 3)):
        el = math.radians(rng.uniform(25, 85))
        a = rng.uniform(0, 2 * math.pi)
        d = np.array([math.cos(el) * math.cos(a), math.cos(el) * math.sin(a), math.sin(el)])
        lp = look_at(d * 10, np.zeros(3), np.array([0.0, 1.0, 0.0]) if abs(d[1]) < 0.9 else np.array([1.0, 0, 0]), 0)
        warm = rng.uniform(-0.12, 0.12)
        light = pyrender.DirectionalLight(color=[1 + warm, 1, 1 - warm], intensity=rng.uniform(1.5, 4.0) / (k + 1))
        scene.add(light, pose=lp)
    renderer = RENDERER.get("r")
    if renderer is None:
        renderer = RENDERER["r"] = pyrender.OffscreenRenderer(W, H)
    shadows = pyrender.RenderFlags.SHADOWS_DIRECTIONAL if rng.random() < 0.8 else pyrender.RenderFlags.NONE
    colour, _ = renderer.render(scene, flags=shadows)
    img = phone_effects(rng, Image.fromarray(colour))
    path = out / "images" / f"{idx:06d}.jpg"
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=rng.randint(60, 95))
    path.write_bytes(buf.getvalue())
    letters = [(c[1] if c[0] == "w" else c[1].lower()) if c else None for c in cells]
    return {"image": f"images/{idx:06d}.jpg", "corners": corners.round(2).tolist(),
            "labels": fen_placement(letters), "tilt": round(tilt, 1), "side": SIDES[side],
            "set": name, "king_height": round(king_h, 2)}


RENDERER = {}


def phone_effects(rng, img):
    a = np.asarray(img).astype(np.float32)
    wb = np.array([rng.uniform(0.9, 1.1), 1.0, rng.uniform(0.85, 1.1)])
    a = a * wb * rng.uniform(0.8, 1.2)
    a += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 6), a.shape)
    img = Image.fromarray(a.clip(0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    return img


POSITIONS = []


def init_worker():
    POSITIONS.extend(load_positions(ASSETS))


def work(args):
    idx, seed, split, out, per_set, footprint, details, king_height, turned = args
    return render_scene(idx, seed, split, POSITIONS, out, per_set, footprint, details, king_height, turned)


def main():
    global W, H
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--split", choices=["train", "heldout", "all"], default="train")
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--per-set", type=int, default=0,
                    help="scenes in groups of this many sharing one set, each group's first the starting position "
                         "(for img2fen eval-learn)")
    ap.add_argument("--size", default=f"{W}x{H}", help="picture size WxH (a phone's 4000x3000 for the speed benchmark)")
    ap.add_argument("--footprint", type=float, default=1.0,
                    help="smallest factor on each set's piece widths (1: the widths of the meshes as built)")
    ap.add_argument("--details", type=float, default=0.0,
                    help="share of procedural sets with Staunton details: battlements, coronets, mitre slits, "
                         "felt pads, finials in the other colour (0: none, the sets as before)")
    ap.add_argument("--turned", type=float, default=0.0,
                    help="share of the detailed sets (--details) with turned Staunton profiles: a plinth, a waisted "
                         "stem, a collar, and feet narrower for the smaller pieces")
    ap.add_argument("--king-height", default=",".join(str(v) for v in KING_HEIGHT),
                    help="range of the king's height in squares, LO,HI (the other pieces follow their set's proportions)")
    args = ap.parse_args()
    king_height = tuple(float(v) for v in args.king_height.split(","))
    W, H = (int(v) for v in args.size.split("x"))
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    jobs = [(i, args.seed, args.split, args.out, args.per_set, args.footprint, args.details, king_height, args.turned)
            for i in range(args.count)]
    with Pool(args.jobs, initializer=init_worker) as pool:
        rows = pool.map(work, jobs, chunksize=4)
    with (open(args.out / "manifest.jsonl", "w") as m, open(args.out / "labels.csv", "w") as c,
          open(args.out / "scenes.jsonl", "w") as sc):
        c.write("file,fen_field1,flipped,kind,notes\n")
        for r in rows:
            m.write(json.dumps(r) + "\n")
            sc.write(json.dumps({"image": r["image"], "kind": "physical", "boards": [{"corners": r["corners"]}]}) + "\n")
            band = "overhead" if r["tilt"] < 20 else "20-40" if r["tilt"] < 40 else "40-60"
            flipped = int(r["side"] == "black")  # from beside the board either answer is right
            c.write(f"{r['image']},{r['labels']},{flipped},physical,band {band}; set {r['set']}; side {r['side']}\n")
    print(f"wrote {len(rows)} scenes to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
