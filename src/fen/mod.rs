//! Step 5: assemble the FEN. Field 1 comes from the recognised board; fields 2-6 from the
//! caller. Every rule a real position obeys is checked, because a recognised position that
//! breaks one most likely holds a misread square.

use std::fmt;
use std::str::FromStr;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Piece, PositionErrorKinds, Rank, Role, Square};

mod repair;
mod rules;
#[cfg(test)]
mod tests;
mod write;

pub use repair::*;
pub use rules::*;
pub use write::*;

/// Castling rights requested by the user.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Castling {
    /// `-`: no rights.
    #[default]
    None,
    /// Every right whose king and rook stand on their home squares.
    Auto,
    /// Some of `KQkq`.
    #[allow(missing_docs)] // K, Q, k, q.
    Rights { white_king: bool, white_queen: bool, black_king: bool, black_queen: bool },
}

impl FromStr for Castling {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "-" | "none" => return Ok(Castling::None),
            "auto" => return Ok(Castling::Auto),
            _ => {}
        }
        let mut r = [false; 4];
        for ch in s.chars() {
            let i = "KQkq".find(ch).ok_or_else(|| format!("'{s}' is not a castling field: use KQkq, -, or auto"))?;
            if r[i] {
                return Err(format!("'{s}' repeats '{ch}'"));
            }
            r[i] = true;
        }
        Ok(Castling::Rights { white_king: r[0], white_queen: r[1], black_king: r[2], black_queen: r[3] })
    }
}

/// Fields 2-6 of the FEN.
#[derive(Debug, Clone)]
pub struct FenOptions {
    /// Field 2: the side to move.
    pub turn: Color,
    /// Field 3.
    pub castling: Castling,
    /// Field 4.
    pub en_passant: Option<Square>,
    /// Field 5: the halfmove clock.
    pub halfmove: u32,
    /// Field 6: the fullmove number.
    pub fullmove: u32,
}

impl Default for FenOptions {
    fn default() -> Self {
        FenOptions { turn: Color::White, castling: Castling::None, en_passant: None, halfmove: 0, fullmove: 1 }
    }
}

/// Parses an en passant argument: a square like `e3`, or `-`.
pub fn parse_en_passant(s: &str) -> Result<Option<Square>, String> {
    if s == "-" {
        return Ok(None);
    }
    s.parse::<Square>().map(Some).map_err(|_| format!("'{s}' is not a square (like e3) or '-'"))
}
