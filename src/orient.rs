//! Step 4: decide which side is at the bottom of the picture and turn the displayed grid into
//! a board seen from White.

use shakmaty::{Board, Color, File, Piece, Rank, Role, Square};

/// Which side's pieces start at the bottom of the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Orientation {
    /// White at the bottom: the bottom-left square is a1.
    White,
    /// Black at the bottom: the bottom-left square is h8.
    Black,
}

impl Orientation {
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

/// The board seen from White, from the 64 displayed cells.
pub fn to_board(displayed: &[Option<Piece>; 64], orientation: Orientation) -> Board {
    let mut board = Board::empty();
    for (i, p) in displayed.iter().enumerate() {
        if let Some(p) = p {
            board.set_piece_at(square_at(i, orientation), *p);
        }
    }
    board
}

/// Prior for White at the bottom, in vote units: books print diagrams from White's side and most
/// screens show the user's side as White, so Black at the bottom needs clear evidence.
const WHITE_PRIOR: f32 = 2.0;

/// Guesses the orientation from where the pieces stand, with a confidence in `[0.5, 1]`.
///
/// Each pawn and king votes for its own side being at the bottom when it stands in the bottom
/// half and against when in the top half, weighted by its distance from the middle; the other
/// pieces, which roam more, weigh half. [`WHITE_PRIOR`] is added for White.
pub fn from_pieces(displayed: &[Option<Piece>; 64]) -> (Orientation, f32) {
    let mut score = WHITE_PRIOR;
    for (i, p) in displayed.iter().enumerate() {
        let Some(p) = p else { continue };
        let y = ((i / 8) as f32 - 3.5) / 3.5; // -1 at the top row, +1 at the bottom row
        let w = match p.role {
            Role::Pawn | Role::King => 1.0,
            _ => 0.5,
        };
        score += if p.color == Color::White { w * y } else { -w * y };
    }
    let orientation = if score < 0.0 { Orientation::Black } else { Orientation::White };
    let confidence = 1.0 / (1.0 + (-score.abs()).exp());
    (orientation, confidence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn displayed_from(fen: &str, o: Orientation) -> [Option<Piece>; 64] {
        let board = fen.parse::<Fen>().unwrap().into_setup().board;
        std::array::from_fn(|i| board.piece_at(square_at(i, o)))
    }

    #[test]
    fn squares_map_both_ways() {
        assert_eq!(square_at(0, Orientation::White), Square::A8);
        assert_eq!(square_at(63, Orientation::White), Square::H1);
        assert_eq!(square_at(0, Orientation::Black), Square::H1);
        assert_eq!(square_at(56, Orientation::Black), Square::H8);
    }

    #[test]
    fn pieces_tell_the_side_at_the_bottom() {
        let fen = "r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1 w - - 0 1";
        for o in [Orientation::White, Orientation::Black] {
            let d = displayed_from(fen, o);
            let (got, conf) = from_pieces(&d);
            assert_eq!(got, o);
            assert!(conf > 0.9);
            assert_eq!(to_board(&d, o), fen.parse::<Fen>().unwrap().into_setup().board);
        }
    }
}
