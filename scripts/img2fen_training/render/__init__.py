"""Renderers: boards, coordinates, LaTeX diagrams, real board UIs, scenes, testdata."""
