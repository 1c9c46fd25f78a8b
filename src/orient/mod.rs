//! Step 4: decide which side is at the bottom of the picture and turn the displayed grid into
//! a board seen from White.
//!
//! The first witness is the coordinates drawn at the board's edge. [`label_patches`] cuts small
//! patches where boards put them: the corners of the 28 edge squares next to the board's edge
//! (lichess, chess.com and most apps draw them there) and a band one square wide around the board
//! (books, ChessBase). A small ONNX model reads each patch as a rank digit, a file letter or
//! nothing ([`LABEL_CLASSES`]), and [`from_coordinates`] weighs every reading against the two
//! ways the board can face. A digit `d` read in display row `r` says White is at the bottom when
//! `r == 8 - d` and Black when `r == d - 1`; a letter in display column `c` says White when it is
//! the `c`-th letter and Black when it is the `(7 - c)`-th. No position is both, so every read
//! label is evidence, wherever it sits. The training patches are cut by the same functions
//! (`img2fen dataset --labels`).
//!
//! Without readable coordinates, [`from_pieces`] decides from where the pieces stand.

use std::sync::OnceLock;

use image::GrayImage;
use ndarray::Array4;
use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

use crate::geometry::{Homography, Point, Quad};
use crate::warp::Warper;

mod coordinates;
mod pieces;
#[cfg(test)]
mod tests;

pub use coordinates::*;
pub use pieces::*;

/// Which side's pieces start at the bottom of the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// White at the bottom: the bottom-left square is a1.
    White,
    /// Black at the bottom: the bottom-left square is h8.
    Black,
}

impl Orientation {
    /// The name the CLI and JSON use: `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Orientation::White => "white",
            Orientation::Black => "black",
        }
    }
}

/// What decided the orientation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrientationSource {
    /// Rank and file labels drawn at the board's edge.
    Coordinates,
    /// Where the pieces stand (pawn direction, kings, development).
    Pieces,
    /// The user said so (`--orientation`).
    Flag,
}

impl OrientationSource {
    /// The name the CLI and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            OrientationSource::Coordinates => "coordinates",
            OrientationSource::Pieces => "pieces",
            OrientationSource::Flag => "flag",
        }
    }
}

/// The square shown at display position `index` (row by row from the top left).
pub fn square_at(index: usize, orientation: Orientation) -> Square {
    let (row, col) = ((index / 8) as u32, (index % 8) as u32);
    match orientation {
        Orientation::White => Square::from_coords(File::new(col), Rank::new(7 - row)),
        Orientation::Black => Square::from_coords(File::new(7 - col), Rank::new(row)),
    }
}

/// The square shown at display position `index` on a board whose files run the other way than
/// its ranks say when `files_reversed` (a mirrored diagram: h to a under White's ranks).
pub fn square_shown(index: usize, orientation: Orientation, files_reversed: bool) -> Square {
    let sq = square_at(index, orientation);
    if files_reversed {
        sq.flip_horizontal()
    } else {
        sq
    }
}

/// The board seen from White, from the 64 displayed cells.
pub fn to_board(displayed: &[Option<Piece>; 64], orientation: Orientation, files_reversed: bool) -> Board {
    let mut board = Board::empty();
    for (i, p) in displayed.iter().enumerate() {
        if let Some(p) = p {
            board.set_piece_at(square_shown(i, orientation, files_reversed), *p);
        }
    }
    board
}
