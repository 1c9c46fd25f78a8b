"""Measurement: the models on held-out cells, and realdata pictures turned, shaded or cropped."""
