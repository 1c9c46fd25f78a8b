#!/usr/bin/env bash
# The 3D data engine's environment: a venv in work/venv3d with pyrender, which needs PyOpenGL 3.1.7
# (its own pin, 3.1.0, fails on Python 3.11) and numpy < 2, shapely and mapbox-earcut (trimesh extrudes
# the built knights' heads with them), and the piece meshes of Debian's
# dreamchess-data and brutalchess (fetched with the other training assets).
# Rendering runs headless through EGL on Mesa's software rasteriser: apt-get install libegl1
# libegl-mesa0 libgl1-mesa-dri (or libosmesa6 with PYOPENGL_PLATFORM=osmesa).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv work/venv3d
work/venv3d/bin/pip install -q "numpy==1.26.4" "trimesh==5.2.0" "scipy==1.17.1" "networkx==3.6.1" \
  "pillow>=10" "chess==1.11.2" "pyglet==1.5.29" "imageio" "freetype-py" "six" \
  "shapely==2.0.7" "mapbox-earcut==1.0.3"
work/venv3d/bin/pip install -q --no-deps "pyrender==0.1.45" "PyOpenGL==3.1.7"
[ -d work/assets/unpacked/deb/usr/share/games/brutalchess ] || PYTHONPATH=scripts python3 -m img2fen_training.assets
echo "setup_3d: done; render with: PYTHONPATH=scripts work/venv3d/bin/python -m img2fen_training.render.physical --out DIR --count N" >&2
