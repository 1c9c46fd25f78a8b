"""Piece meshes for the 3D data engine: two real sets from Debian's packages and procedural ones.

Every mesh comes out in one frame: z up, the base on z = 0, centred on the z axis, in units of one
board square; a knight looks along +x. A "set" maps each piece letter (P N B R Q K) to its mesh and its height relative to the king.

- `dreamchess`: the `.dcm` meshes of Debian's dreamchess-data (text: "DCM 0100", the vertex count
  n, then n positions, n normals and n UVs, then a count of index groups, each "STRIP k i..." or
  "TRIANGLES k i...").
- `brutalchess`: the OBJ meshes of Debian's brutalchess (y up, arbitrary units).
- `procedural(rng)`: pawns, bishops, rooks, queens and kings as surfaces of revolution of a random
  profile (a king gets a cross of two boxes); knights either from the real meshes, stretched, or
  built (`knight`): a revolved foot under a horse's head, a random silhouette extruded sideways
  and narrowed towards the muzzle.

Both packages are fetched by `img2fen_training.assets` into ASSETS/unpacked/deb.
"""

import math
from pathlib import Path

import numpy as np
import trimesh

KINDS = "PNBRQK"
NAMES = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}


def read_dcm(path: Path) -> trimesh.Trimesh:
    t = path.read_text().split()
    if t[0] != "DCM":
        raise ValueError(f"{path}: not a DCM mesh")
    n = int(t[2])
    pos = np.array(t[3 : 3 + 3 * n], dtype=np.float64).reshape(n, 3)
    i = 3 + 8 * n  # past positions, normals and UVs
    groups = int(t[i])
    i += 1
    faces = []
    for _ in range(groups):
        kind, k = t[i], int(t[i + 1])
        idx = [int(x) for x in t[i + 2 : i + 2 + k]]
        i += 2 + k
        if kind == "STRIP":
            for j in range(k - 2):
                a, b, c = idx[j], idx[j + 1], idx[j + 2]
                faces.append((a, b, c) if j % 2 == 0 else (b, a, c))
        elif kind == "TRIANGLES":
            faces.extend(zip(idx[0::3], idx[1::3], idx[2::3]))
        else:
            raise ValueError(f"{path}: unknown index group {kind}")
    mesh = trimesh.Trimesh(pos, np.array(faces), process=True)
    mesh.fix_normals()
    return mesh


def normalise(mesh: trimesh.Trimesh, up: str = "z") -> trimesh.Trimesh:
    """z up, base on z = 0, centred on the axis of its lowest tenth, height 1."""
    m = mesh.copy()
    if up == "y":
        m.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [1, 0, 0]))
    v = m.vertices
    z0, z1 = v[:, 2].min(), v[:, 2].max()
    base = v[v[:, 2] < z0 + 0.1 * (z1 - z0)]
    cx, cy = (base[:, 0].min() + base[:, 0].max()) / 2, (base[:, 1].min() + base[:, 1].max()) / 2
    m.apply_translation([-cx, -cy, -z0])
    m.apply_scale(1.0 / (z1 - z0))
    return m


def dreamchess(root: Path) -> dict:
    d = root / "usr/share/games/dreamchess/pieces/classic"
    # dreamchess's own proportions (its board squares are 1 unit), relative to its king.
    heights = (0.94, 1.3, 1.32, 1.04, 1.64, 1.86)
    return {k: (normalise(read_dcm(d / f"{NAMES[k]}.dcm")), h / heights[-1]) for k, h in zip(KINDS, heights)}


def brutalchess(root: Path) -> dict:
    d = root / "usr/share/games/brutalchess/models"
    out = {}
    for k in KINDS:
        m = trimesh.load(d / f"{NAMES[k]}.obj", force="mesh", process=True)
        m = normalise(m, up="y")
        if k == "N":  # its knight looks along -x after the turn: face +x like the others
            m.apply_transform(trimesh.transformations.rotation_matrix(math.pi, [0, 0, 1]))
        out[k] = m
    heights = (0.95, 1.2, 1.26, 1.05, 1.43, 1.56)  # brutalchess's own proportions
    return {k: (out[k], h / heights[-1]) for k, h in zip(KINDS, heights)}


def revolve(profile, sections=28) -> trimesh.Trimesh:
    """Surface of revolution of (radius, height) points, closed at both ends on the axis."""
    pts = [(0.0, profile[0][1])] + [tuple(p) for p in profile] + [(0.0, profile[-1][1])]
    return trimesh.creation.revolve(np.array(pts, dtype=np.float64), sections=sections)


def _foot(rng, r):
    h = rng.uniform(0.06, 0.12)
    return [(r, 0.0), (r, h * 0.5), (r * rng.uniform(0.85, 0.95), h), (r * rng.uniform(0.7, 0.8), h * 1.6)]


def _stem(rng, r, z0, z1, top):
    """A stem that narrows from the foot to `top` (radius fraction) with a slight curve."""
    pts = []
    for t in np.linspace(0, 1, 5)[1:]:
        pts.append((r * (0.72 + (top - 0.72) * t**rng.uniform(0.5, 1.2)), z0 + (z1 - z0) * t))
    return pts


def _ball(cx_r, zc, radius, n=8, start=-math.pi / 2, end=math.pi / 2):
    return [(max(1e-4, radius * math.cos(a)), zc + radius * math.sin(a)) for a in np.linspace(start, end, n)]


def _profile(rng, kind, r):
    """A random profile for a piece of height 1 and base radius r."""
    p = _foot(rng, r)
    z = p[-1][1]
    if kind == "P":
        neck = rng.uniform(0.45, 0.6)
        p += _stem(rng, r, z, neck, rng.uniform(0.3, 0.4))
        p += [(r * rng.uniform(0.5, 0.62), neck + 0.02), (r * 0.3, neck + 0.06)]
        hr = rng.uniform(0.17, 0.22)
        p += _ball(0, 1 - hr, hr)[1:]
    elif kind == "R":
        top = rng.uniform(0.72, 0.8)
        p += _stem(rng, r, z, top, rng.uniform(0.5, 0.62))
        rim = r * rng.uniform(0.72, 0.85)
        p += [(rim, top + 0.03), (rim, 1.0), (rim * 0.7, 1.0), (rim * 0.7, 0.93)]
    elif kind == "B":
        collar = rng.uniform(0.5, 0.6)
        p += _stem(rng, r, z, collar, rng.uniform(0.3, 0.38))
        p += [(r * rng.uniform(0.5, 0.6), collar + 0.02), (r * 0.3, collar + 0.05)]
        mr = rng.uniform(0.4, 0.5) * r
        top = 0.9
        p += [(mr * math.sin(t * math.pi) ** 0.8 + 1e-3, collar + 0.05 + (top - collar - 0.05) * t) for t in np.linspace(0.1, 1, 7)]
        p += _ball(0, 0.95, 0.05)[1:]
    else:  # Q and K
        collar = rng.uniform(0.68, 0.76)
        p += _stem(rng, r, z, collar, rng.uniform(0.28, 0.36))
        p += [(r * rng.uniform(0.5, 0.6), collar + 0.02), (r * 0.3, collar + 0.05)]
        crown_top = 0.86 if kind == "K" else rng.uniform(0.86, 0.9)
        flare = r * rng.uniform(0.5, 0.66)
        p += [(flare, crown_top), (flare * 0.75, crown_top + 0.02)]
        if kind == "Q":
            p += _ball(0, crown_top + 0.06, 1 - crown_top - 0.06)[2:]
        else:
            p += [(flare * 0.5, crown_top + 0.04), (1e-3, crown_top + 0.04)]
    return p


def _head_outline(rng):
    """A horse's head and neck seen from the side, facing +x, in a piece of height 1: a closed
    (x, z) outline from the back of the neck over the ears, down the face to the muzzle and back
    along the throat. Its proportions are drawn at random, as carvers' are."""
    neck = rng.uniform(0.3, 0.42)  # where the head meets the collar
    back = -rng.uniform(0.16, 0.24)
    front = rng.uniform(0.1, 0.18)
    poll = rng.uniform(0.86, 0.94)  # the top of the head, behind the ears
    brow = (rng.uniform(0.04, 0.12), rng.uniform(0.78, 0.88))
    muzzle = rng.uniform(0.26, 0.4)
    mouth = rng.uniform(0.5, 0.62)
    snout = rng.uniform(0.07, 0.12)  # the muzzle's height
    pts = [(back, neck)]
    # The mane: a curve up the back of the neck, with a few bumps on some sets.
    bumps = rng.choice([0, 0, 3, 4])
    for t in np.linspace(0.15, 0.85, 6):
        x = back * (1 - 0.55 * t**1.3) + (0.012 * math.sin(t * bumps * math.pi) if bumps else 0.0)
        pts.append((x, neck + (poll - neck) * t))
    ear_h = rng.uniform(0.04, 0.1)
    pts += [(back * 0.3, poll), (back * 0.1, poll + ear_h), (0.02, poll + ear_h * 0.3)]
    pts += [brow, ((brow[0] + muzzle) / 2 + rng.uniform(-0.02, 0.02), (brow[1] + mouth + snout) / 2 + 0.02)]
    pts += [(muzzle, mouth + snout), (muzzle + 0.015, mouth + snout * 0.4), (muzzle - 0.01, mouth)]
    jaw = (rng.uniform(0.08, 0.16), mouth - rng.uniform(0.0, 0.05))
    pts += [((muzzle + jaw[0]) / 2, mouth - 0.02), jaw]
    chest = rng.uniform(0.0, 0.06)  # how far the throat bulges forwards
    for t in np.linspace(0.3, 0.9, 3):
        pts.append((jaw[0] + (front - jaw[0]) * t + chest * math.sin(t * math.pi), jaw[1] + (neck - jaw[1]) * t))
    pts.append((front, neck))
    return pts


def knight(rng, r) -> trimesh.Trimesh:
    """A built knight of height 1 and base radius r, facing +x."""
    from shapely.geometry import Polygon  # only the data engine's venv has shapely

    outline = Polygon(_head_outline(rng)).buffer(0)
    width = rng.uniform(0.22, 0.32)
    head = trimesh.creation.extrude_polygon(outline, width)  # in x-y, extruded along z
    # Stand the silhouette up (x-y plane -> x-z plane) and centre its thickness on y = 0.
    head.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [1, 0, 0]))
    head.apply_translation([0, width / 2, 0])
    v = head.vertices.copy()
    # Narrower towards the muzzle and the top, as a head is.
    taper = 1 - rng.uniform(0.3, 0.5) * np.clip(v[:, 0] / 0.35, 0, 1) - 0.25 * np.clip((v[:, 2] - 0.6) / 0.4, 0, 1)
    v[:, 1] *= taper
    head.vertices = v
    collar = rng.uniform(0.3, 0.38)
    foot = _foot(rng, r)
    base = foot + _stem(rng, r, foot[-1][1], collar, rng.uniform(0.45, 0.6))
    base += [(r * rng.uniform(0.6, 0.72), collar + 0.02), (r * 0.4, collar + 0.05)]
    return normalise(trimesh.util.concatenate([revolve(base), head]))


def procedural(rng, knights) -> dict:
    """A random set: revolved pieces and a stretched copy of one of `knights` (normalised meshes)."""
    r = rng.uniform(0.17, 0.21)  # base radius, relative to the king's height
    heights = {"P": rng.uniform(0.48, 0.58), "R": rng.uniform(0.55, 0.66), "N": rng.uniform(0.62, 0.75),
               "B": rng.uniform(0.68, 0.8), "Q": rng.uniform(0.86, 0.95), "K": 1.0}
    out = {}
    for k in KINDS:
        h = heights[k]
        if k == "N" and rng.random() < 0.6:
            m = knight(rng, r / h)
        elif k == "N":
            m = knights[rng.randrange(len(knights))].copy()
            s = rng.uniform(0.9, 1.15)
            m.apply_scale([s, 1.0 / s, 1.0])
        else:
            m = revolve(_profile(rng, k, r / h * rng.uniform(0.9, 1.05)))
            if k == "K":
                w, t = rng.uniform(0.14, 0.2), rng.uniform(0.035, 0.05)
                cross = [trimesh.creation.box([t, t, w * 1.3]), trimesh.creation.box([w, t, t])]
                cross[0].apply_translation([0, 0, 0.9 + w * 0.65])
                cross[1].apply_translation([0, 0, 0.9 + w * 0.8])
                m = trimesh.util.concatenate([m] + cross)
            m = normalise(m)
        out[k] = (m, h)
    return out
