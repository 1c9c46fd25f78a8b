"""Piece meshes for the 3D data engine: two real sets from Debian's packages and procedural ones.

Every mesh comes out in one frame: z up, the base on z = 0, centred on the z axis, in units of one
board square; a knight looks along +x. A "set" maps each piece letter (P N B R Q K) to its mesh, its height relative to the king and its parts.

- `dreamchess`: the `.dcm` meshes of Debian's dreamchess-data (text: "DCM 0100", the vertex count
  n, then n positions, n normals and n UVs, then a count of index groups, each "STRIP k i..." or
  "TRIANGLES k i...").
- `brutalchess`: the OBJ meshes of Debian's brutalchess (y up, arbitrary units).
- `procedural(rng)`: pawns, bishops, rooks, queens and kings as surfaces of revolution of a random
  profile (a king gets a cross of two boxes); knights either from the real meshes, stretched, or
  built (`knight`): a revolved foot under a horse's head, a random silhouette extruded sideways
  and narrowed towards the muzzle. With `details`, a share of sets carries what real Staunton and
  club sets show (`staunton_parts`): a rook's battlements, a queen's coronet of points or of balls
  on stalks, a bishop's mitre slit, a felt pad under every piece, and finials (the queen's balls,
  the king's cross) turned in the other side's colour as many wooden sets turn them.

Every set's entries are (mesh, height relative to the king, `{part: mesh}`): the parts, in the
piece's frame, each drawn in its own material (`contrast`: the other side's colour; `groove`: a
dark cut; `felt`: the pad's cloth); the real sets and plain procedural ones have none.

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


def _normalising(v: np.ndarray) -> np.ndarray:
    """The transform that puts vertices `v` (z up) base on z = 0, centred on the axis of their
    lowest tenth, height 1."""
    z0, z1 = v[:, 2].min(), v[:, 2].max()
    base = v[v[:, 2] < z0 + 0.1 * (z1 - z0)]
    cx, cy = (base[:, 0].min() + base[:, 0].max()) / 2, (base[:, 1].min() + base[:, 1].max()) / 2
    t = np.diag([1.0 / (z1 - z0)] * 3 + [1.0])
    t[:3, 3] = np.array([-cx, -cy, -z0]) / (z1 - z0)
    return t


def normalise(mesh: trimesh.Trimesh, up: str = "z") -> trimesh.Trimesh:
    """z up, base on z = 0, centred on the axis of its lowest tenth, height 1."""
    m = mesh.copy()
    if up == "y":
        m.apply_transform(trimesh.transformations.rotation_matrix(math.pi / 2, [1, 0, 0]))
    m.apply_transform(_normalising(m.vertices))
    return m


def normalise_parts(mesh: trimesh.Trimesh, parts: dict) -> tuple:
    """`normalise` for a piece drawn in several materials: one transform, from all its parts."""
    t = _normalising(np.concatenate([mesh.vertices] + [p.vertices for p in parts.values()]))
    out = mesh.copy()
    out.apply_transform(t)
    moved = {}
    for name, p in parts.items():
        moved[name] = p.copy()
        moved[name].apply_transform(t)
    return out, moved


def dreamchess(root: Path) -> dict:
    d = root / "usr/share/games/dreamchess/pieces/classic"
    # dreamchess's own proportions (its board squares are 1 unit), relative to its king.
    heights = (0.94, 1.3, 1.32, 1.04, 1.64, 1.86)
    return {k: (normalise(read_dcm(d / f"{NAMES[k]}.dcm")), h / heights[-1], {}) for k, h in zip(KINDS, heights)}


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
    return {k: (out[k], h / heights[-1], {}) for k, h in zip(KINDS, heights)}


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


def _profile(rng, kind, r, drng=None):
    """A random profile for a piece of height 1 and base radius r, and where its head is
    (`anchors`: the radius and height that `staunton_parts` builds on). With `drng` (a set with
    details), the rook's rim stops short of its battlements and the queen's crown is a low dome
    under its coronet, their draws from `drng`, so that a set without them is drawn as always."""
    details = drng is not None
    p = _foot(rng, r)
    z = p[-1][1]
    anchors = {}
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
        lip = drng.uniform(0.88, 0.92) if details else 1.0  # the battlements stand on the lip
        p += [(rim, top + 0.03), (rim, lip), (rim * 0.7, lip), (rim * 0.7, lip - 0.07)]
        anchors = {"rim": rim, "lip": lip}
    elif kind == "B":
        collar = rng.uniform(0.5, 0.6)
        p += _stem(rng, r, z, collar, rng.uniform(0.3, 0.38))
        p += [(r * rng.uniform(0.5, 0.6), collar + 0.02), (r * 0.3, collar + 0.05)]
        mr = rng.uniform(0.4, 0.5) * r
        top = 0.9
        p += [(mr * math.sin(t * math.pi) ** 0.8 + 1e-3, collar + 0.05 + (top - collar - 0.05) * t) for t in np.linspace(0.1, 1, 7)]
        p += _ball(0, 0.95, 0.05)[1:]
        anchors = {"mitre": mr, "bottom": collar + 0.05, "top": top}
    else:  # Q and K
        collar = rng.uniform(0.68, 0.76)
        p += _stem(rng, r, z, collar, rng.uniform(0.28, 0.36))
        p += [(r * rng.uniform(0.5, 0.6), collar + 0.02), (r * 0.3, collar + 0.05)]
        crown_top = 0.86 if kind == "K" else rng.uniform(0.86, 0.9)
        flare = r * rng.uniform(0.5, 0.66)
        p += [(flare, crown_top), (flare * 0.75, crown_top + 0.02)]
        if kind == "Q" and details:
            p += [(flare * 0.45, crown_top + 0.05), (1e-3, crown_top + 0.06)]
        elif kind == "Q":
            p += _ball(0, crown_top + 0.06, 1 - crown_top - 0.06)[2:]
        else:
            p += [(flare * 0.5, crown_top + 0.04), (1e-3, crown_top + 0.04)]
        anchors = {"flare": flare, "crown": crown_top}
    return p, anchors


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


def _cylinder_between(a, b, radius):
    """A thin cylinder from point a to point b."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return trimesh.creation.cylinder(radius=radius, segment=np.stack([a, b]), sections=8)


def _ball_at(centre, radius):
    m = trimesh.creation.icosphere(subdivisions=1, radius=radius)
    m.apply_translation(centre)
    return m


# A Staunton set's feet against the king's (pawn 29 mm, minor pieces and rook 33-36 mm, queen 38 mm,
# king 40 mm on a tournament set): a pawn is narrower than a king, not only shorter.
FOOT = {"P": (0.68, 0.8), "N": (0.8, 0.92), "B": (0.78, 0.9), "R": (0.82, 0.95), "Q": (0.88, 1.0), "K": (1.0, 1.0)}


def _waist(drng, r, z0, r0, z1, r1, n=5):
    """A stem from (r0, z0) to (r1, z1), curved inwards as a turned stem is."""
    bend = drng.uniform(0.1, 0.3)
    return [(r0 + (r1 - r0) * t - bend * r * math.sin(t * math.pi) * 0.5, z0 + (z1 - z0) * t) for t in np.linspace(0, 1, n)[1:]]


def staunton_profile(drng, kind, r):
    """A turned Staunton profile for a piece of height 1 and foot radius r: a plinth with a bead
    and a cove, a waisted stem, a collar, then the piece's head. Returns it with the anchors of
    `_profile`."""
    f = drng.uniform(0.035, 0.06)  # the plinth's height
    p = [(r, 0.0), (r, f), (r * 0.93, f + 0.015), (r * 0.97, f + 0.03), (r * 0.82, f + 0.05), (r * 0.72, f + 0.08)]
    z = f + 0.08
    anchors = {}

    def collar(zc, width):
        return [(r * width, zc), (r * width, zc + 0.03), (r * 0.32, zc + 0.05)]

    if kind == "P":
        neck = drng.uniform(0.5, 0.58)
        p += _waist(drng, r, z, r * 0.72, neck, r * 0.34) + collar(neck, drng.uniform(0.58, 0.7))
        hr = drng.uniform(0.19, 0.23)
        p += _ball(0, 1 - hr, hr)[1:]
    elif kind == "R":
        top = drng.uniform(0.72, 0.8)
        rim = r * drng.uniform(0.78, 0.9)
        lip = drng.uniform(0.88, 0.92)
        mid = r * drng.uniform(0.55, 0.65)
        p += _waist(drng, r * 0.3, z, r * 0.72, (z + top) / 2, mid) + _waist(drng, r * 0.3, (z + top) / 2, mid, top, rim * 0.92)
        p += [(rim, top + 0.02), (rim, lip), (rim * 0.7, lip), (rim * 0.7, lip - 0.07)]
        anchors = {"rim": rim, "lip": lip}
    elif kind == "B":
        neck = drng.uniform(0.5, 0.58)
        p += _waist(drng, r, z, r * 0.7, neck, r * 0.3) + collar(neck, drng.uniform(0.55, 0.66))
        lo, top, mr = neck + 0.05, drng.uniform(0.88, 0.92), r * drng.uniform(0.42, 0.52)
        # The mitre: an egg, widest below its middle, drawn to a point.
        p += [(mr * math.sin(t * math.pi * 0.9 + 0.1) ** 0.7 * (1 - 0.35 * t) + 1e-3, lo + (top - lo) * t) for t in np.linspace(0.05, 1, 8)]
        p += _ball(0, top + 0.045, 0.05)[1:]
        anchors = {"mitre": mr, "bottom": lo, "top": top}
    else:  # Q and K: a flared cup of a crown on a tall stem
        neck = drng.uniform(0.58, 0.64)
        p += _waist(drng, r, z, r * 0.7, neck, r * 0.3) + collar(neck, drng.uniform(0.55, 0.66))
        crown = drng.uniform(0.8, 0.84)
        flare = r * drng.uniform(0.5, 0.62)
        p += [(r * 0.3, neck + 0.06), (flare * 0.8, crown - 0.04), (flare, crown), (flare * 0.85, crown + 0.02)]
        if kind == "Q":
            p += [(flare * 0.45, crown + 0.06), (1e-3, crown + 0.075)]
        else:
            p += [(flare * 0.55, crown + 0.06), (r * 0.15, crown + 0.08), (1e-3, crown + 0.085)]
        anchors = {"flare": flare, "crown": crown}
    return p, anchors


def staunton_options(drng, turned=0.0) -> dict:
    """Which details a set carries: drawn once per set; `turned`: the share with turned Staunton
    profiles and feet (`staunton_profile`)."""
    return {"contrast": drng.random() < 0.4, "queen": drng.choice(["points", "points", "stalks"]),
            "slit": drng.random() < 0.8, "battlements": drng.random() < 0.85, "felt": drng.random() < 0.5,
            "turned": drng.random() < turned}


def staunton_parts(drng, kind, anchors, opts) -> tuple:
    """(meshes in the piece's own material, {part: mesh}) that make a revolved piece of height
    about 1 look like a Staunton or club set's: battlements, a coronet, a mitre slit, finials in
    the other side's colour (`contrast`) or the piece's own."""
    same, finials, parts = [], [], {}
    if kind == "R" and opts["battlements"]:
        rim, lip = anchors["rim"], anchors["lip"]
        n = drng.choice([4, 5, 6, 8])
        dr, tall = rim * drng.uniform(0.25, 0.4), 1.0 - lip + drng.uniform(0.0, 0.03)
        wide = 2 * math.pi * rim / n * drng.uniform(0.45, 0.6)
        for i in range(n):
            a = 2 * math.pi * i / n
            b = trimesh.creation.box([dr, wide, tall])
            b.apply_translation([rim - dr / 2, 0, lip + tall / 2])
            b.apply_transform(trimesh.transformations.rotation_matrix(a, [0, 0, 1]))
            same.append(b)
    elif kind == "Q":
        crown, flare = anchors["crown"], anchors["flare"]
        if opts["queen"] == "points":
            n = drng.randint(6, 9)
            for i in range(n):
                a = 2 * math.pi * i / n
                c = trimesh.creation.cone(radius=flare * drng.uniform(0.18, 0.26), height=drng.uniform(0.06, 0.09), sections=8)
                c.apply_translation([flare * 0.85 * math.cos(a), flare * 0.85 * math.sin(a), crown])
                same.append(c)
            finials.append(_ball_at([0, 0, crown + 0.08], drng.uniform(0.035, 0.05)))
        else:  # balls on stalks, as on many folding-box sets
            n = drng.randint(4, 6)
            length, el = drng.uniform(0.16, 0.26), math.radians(drng.uniform(35, 60))
            ball, stalk = drng.uniform(0.035, 0.055), drng.uniform(0.012, 0.018)
            base = np.array([0.0, 0.0, crown + 0.04])
            tips = [base + [0, 0, length * 0.9]]
            for i in range(n):
                a = 2 * math.pi * i / n
                tips.append(base + length * np.array([math.cos(el) * math.cos(a), math.cos(el) * math.sin(a), math.sin(el)]))
            for t in tips:
                same.append(_cylinder_between(base, t, stalk))
                finials.append(_ball_at(t, ball))
    elif kind == "B" and opts["slit"]:
        mr, lo, hi = anchors["mitre"], anchors["bottom"], anchors["top"]
        slope = math.radians(drng.uniform(30, 50))
        g = trimesh.creation.box([mr * 1.4, mr * 1.9, 0.02])
        g.apply_transform(trimesh.transformations.rotation_matrix(-slope, [0, 1, 0]))
        g.apply_translation([mr * 0.35, 0, lo + (hi - lo) * drng.uniform(0.55, 0.7)])
        parts["groove"] = g
    if finials:
        if opts["contrast"]:
            parts["contrast"] = trimesh.util.concatenate(finials)
        else:
            same += finials
    return same, parts


def felt_pad(mesh: trimesh.Trimesh, thick: float) -> trimesh.Trimesh:
    """A cloth pad under a normalised piece, just wider than its foot, `thick` high."""
    v = mesh.vertices
    foot = v[v[:, 2] < 0.03]
    r = float(np.sqrt(foot[:, 0] ** 2 + foot[:, 1] ** 2).max()) * 1.015
    pad = trimesh.creation.cylinder(radius=r, height=thick, sections=28)
    pad.apply_translation([0, 0, thick / 2 - 0.002])
    return pad


def procedural(rng, knights, details=0.0, drng=None, turned=0.0) -> dict:
    """A random set: revolved pieces and a stretched copy of one of `knights` (normalised meshes).
    With `drng`, a share `details` of sets gets `staunton_parts` and perhaps felt pads, drawn from
    `drng` alone: `rng` makes the same set with or without them; a share `turned` of those has
    turned Staunton profiles too."""
    r = rng.uniform(0.17, 0.21)  # base radius, relative to the king's height
    heights = {"P": rng.uniform(0.48, 0.58), "R": rng.uniform(0.55, 0.66), "N": rng.uniform(0.62, 0.75),
               "B": rng.uniform(0.68, 0.8), "Q": rng.uniform(0.86, 0.95), "K": 1.0}
    opts = staunton_options(drng, turned) if drng is not None and drng.random() < details else None
    pad = drng.uniform(0.012, 0.025) if opts and opts["felt"] else 0.0  # relative to the king's height
    out = {}
    for k in KINDS:
        h = heights[k]
        parts = {}
        if k == "N" and rng.random() < 0.6:
            m = knight(rng, r / h)
        elif k == "N":
            m = knights[rng.randrange(len(knights))].copy()
            s = rng.uniform(0.9, 1.15)
            m.apply_scale([s, 1.0 / s, 1.0])
        else:
            foot = r / h * rng.uniform(0.9, 1.05)
            if opts and opts["turned"]:
                profile, anchors = staunton_profile(drng, k, foot * drng.uniform(*FOOT[k]))
            else:
                profile, anchors = _profile(rng, k, foot, drng if opts else None)
            m = revolve(profile)
            same = []
            if k == "K":
                w, t = rng.uniform(0.14, 0.2), rng.uniform(0.035, 0.05)
                cross = [trimesh.creation.box([t, t, w * 1.3]), trimesh.creation.box([w, t, t])]
                cross[0].apply_translation([0, 0, 0.9 + w * 0.65])
                cross[1].apply_translation([0, 0, 0.9 + w * 0.8])
                if opts and opts["contrast"]:
                    parts["contrast"] = trimesh.util.concatenate(cross)
                else:
                    same += cross
            if opts:
                more, extra = staunton_parts(drng, k, anchors, opts)
                same += more
                parts.update(extra)
            m, parts = normalise_parts(trimesh.util.concatenate([m] + same), parts)
        if pad:
            parts["felt"] = felt_pad(m, pad / h)
        out[k] = (m, h, parts)
    return out
