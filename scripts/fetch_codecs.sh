#!/usr/bin/env bash
# Fetch the native decoders for the pictures phones write, from PyPI wheels (no Python install
# needed beyond pip): libheif with libde265 for HEIC (pillow-heif's wheel) and libavif for AVIF
# (Pillow's wheel), into DEST (default target/release/codecs/, where img2fen looks; or point
# IMG2FEN_CODECS at DEST). img2fen reads every other format without them. Prints DEST.
set -euo pipefail
HEIF_VERSION="${PILLOW_HEIF_VERSION:-1.8.1}"
PILLOW_VERSION="${PILLOW_VERSION:-13.0.0}"
DEST="${1:-target/release/codecs}"
if ls "$DEST"/libheif* >/dev/null 2>&1 && ls "$DEST"/libavif* >/dev/null 2>&1; then
  echo "$DEST"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  "pillow-heif==$HEIF_VERSION" "pillow==$PILLOW_VERSION" -d "$tmp" >&2
mkdir -p "$DEST"
python3 - "$tmp" "$DEST" <<'PY'
import glob, os, sys, zipfile
# libheif loads libde265 (and libx265, for encoding) from its own folder: take them all.
wanted = {"pillow_heif-": ("pillow_heif.libs/",), "pillow-": ("pillow.libs/libavif",)}
for prefix, members in wanted.items():
    wheel = glob.glob(os.path.join(sys.argv[1], prefix + "*.whl"))[0]
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(members) and ".so" in name:
                out = os.path.join(sys.argv[2], os.path.basename(name))
                with open(out, "wb") as f:
                    f.write(z.read(name))
PY
echo "$DEST"
