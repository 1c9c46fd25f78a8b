"""img2fen's training and data tools: render boards with exact labels, train the models, measure
them. Run each tool as `python3 -m img2fen_training.PART.TOOL --help`; docs/training.md lists them."""
