"""Where things are: the repository's root, its git-ignored scratch folder `work/`, and the
assets `img2fen_training.assets` fetches into it."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORK = ROOT / "work"
ASSETS = WORK / "assets"
