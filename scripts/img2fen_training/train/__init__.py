"""Training: the piece and coordinate models, calibration, the orientation weights."""
