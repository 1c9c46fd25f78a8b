//! Step 5: assemble the FEN. Field 1 comes from the recognised board; fields 2-6 from the
//! caller. Every rule a real position obeys is checked, because a recognised position that
//! breaks one most likely holds a misread square.

use std::fmt;
use std::str::FromStr;

use shakmaty::fen::Fen;
use shakmaty::{Bitboard, Board, CastlingMode, Chess, Color, Piece, PositionErrorKinds, Rank, Role, Square};

mod decode;
mod repair;
mod rules;
#[cfg(test)]
mod tests;
mod write;

pub use decode::*;
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
    /// Field 2: the side to move, unless [`FenOptions::turn_from_picture`] finds it in the
    /// picture.
    pub turn: Color,
    /// `turn` is the caller's word (`-w`, `-b`): it always wins, and is reported as
    /// [`TurnSource::Flag`]; else as [`TurnSource::Default`].
    pub turn_given: bool,
    /// Take the side to move from the picture when it shows it (`--to-move auto`): a highlighted
    /// last move or a king in check ([`crate::to_move`]). Ignored when `turn_given`.
    pub turn_from_picture: bool,
    /// Field 3.
    pub castling: Castling,
    /// Field 4.
    pub en_passant: Option<Square>,
    /// Field 4 from the picture (`--en-passant auto`): the square a highlighted two-square pawn
    /// advance passed, when a capture en passant is possible ([`crate::to_move`]).
    pub en_passant_from_picture: bool,
    /// Field 5: the halfmove clock.
    pub halfmove: u32,
    /// Field 6: the fullmove number.
    pub fullmove: u32,
}

impl Default for FenOptions {
    fn default() -> Self {
        FenOptions {
            turn: Color::White,
            turn_given: false,
            turn_from_picture: false,
            castling: Castling::None,
            en_passant: None,
            en_passant_from_picture: false,
            halfmove: 0,
            fullmove: 1,
        }
    }
}

/// What decided field 2, the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TurnSource {
    /// The caller said so (`-w`, `-b`).
    Flag,
    /// The last move, highlighted on the board: the piece standing on one of its two squares
    /// moved last, so the other side is to move.
    LastMove,
    /// One king stands in check: the side not to move cannot be, so its side is to move.
    Check,
    /// Nothing said: White (or the caller's `turn`).
    #[default]
    Default,
}

impl TurnSource {
    /// The name the CLI and JSON use: `flag`, `last_move`, `check` or `default`.
    pub fn name(self) -> &'static str {
        match self {
            TurnSource::Flag => "flag",
            TurnSource::LastMove => "last_move",
            TurnSource::Check => "check",
            TurnSource::Default => "default",
        }
    }
}

/// Parses an en passant argument: a square like `e3`, or `-`.
pub fn parse_en_passant(s: &str) -> Result<Option<Square>, String> {
    if s == "-" {
        return Ok(None);
    }
    s.parse::<Square>().map(Some).map_err(|_| format!("'{s}' is not a square (like e3) or '-'"))
}
