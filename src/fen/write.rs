//! Writing the FEN: field 1 from the board, fields 2-6 from the options, with impossible
//! castling rights and en passant squares dropped and every broken rule reported.

use super::*;

/// An assembled FEN with the reasons it may be wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Assembled {
    /// All six fields.
    pub fen: String,
    /// Field 1 alone.
    pub placement: String,
    /// Every broken rule and every dropped flag, in plain words.
    pub warnings: Vec<String>,
}

impl fmt::Display for Assembled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen)
    }
}

/// Field 1 of the FEN for `board`.
pub fn placement(board: &Board) -> String {
    board.board_fen().to_string()
}

pub(super) const CASTLES: [(char, Color, Square, Square); 4] = [
    ('K', Color::White, Square::E1, Square::H1),
    ('Q', Color::White, Square::E1, Square::A1),
    ('k', Color::Black, Square::E8, Square::H8),
    ('q', Color::Black, Square::E8, Square::A8),
];

/// Builds the FEN for `board` with `opts`, dropping castling rights and an en passant square
/// that the position cannot have (each with a warning), and reporting every broken rule.
pub fn assemble(board: &Board, opts: &FenOptions) -> Assembled {
    let mut warnings = check_board(board, opts.turn);

    let wanted: [bool; 4] = match opts.castling {
        Castling::None => [false; 4],
        Castling::Auto => [true; 4],
        Castling::Rights { white_king, white_queen, black_king, black_queen } => {
            [white_king, white_queen, black_king, black_queen]
        }
    };
    let mut castling = String::new();
    for (want, (ch, color, king, rook)) in wanted.iter().zip(CASTLES) {
        if !want {
            continue;
        }
        let king_home = board.piece_at(king) == Some(Piece { color, role: Role::King });
        let rook_home = board.piece_at(rook) == Some(Piece { color, role: Role::Rook });
        if king_home && rook_home {
            castling.push(ch);
        } else if opts.castling != Castling::Auto {
            let missing = match (king_home, rook_home) {
                (false, false) => format!("the {color} king is not on {king} and no {color} rook is on {rook}"),
                (false, true) => format!("the {color} king is not on {king}"),
                _ => format!("no {color} rook is on {rook}"),
            };
            warnings.push(format!("castling right '{ch}' dropped: {missing}"));
        }
    }
    if castling.is_empty() {
        castling.push('-');
    }

    let ep = match opts.en_passant {
        None => "-".to_string(),
        Some(sq) => match en_passant_problem(board, opts.turn, sq) {
            None => sq.to_string(),
            Some(why) => {
                warnings.push(format!("en passant square {sq} dropped: {why}"));
                "-".to_string()
            }
        },
    };

    let placement = placement(board);
    let turn = if opts.turn == Color::White { 'w' } else { 'b' };
    let fen = format!("{placement} {turn} {castling} {ep} {} {}", opts.halfmove, opts.fullmove.max(1));

    // shakmaty's own verdict catches what the checks above do not spell out.
    if let Ok(parsed) = fen.parse::<Fen>() {
        if let Err(e) = parsed.into_position::<Chess>(CastlingMode::Standard) {
            if e.kinds().contains(PositionErrorKinds::IMPOSSIBLE_CHECK) {
                warnings.push("the side to move is checked in a way no legal move can produce".into());
            }
        }
    }
    Assembled { fen, placement, warnings }
}

/// Why `sq` cannot be the en passant square with `turn` to move, if it cannot.
pub(super) fn en_passant_problem(board: &Board, turn: Color, sq: Square) -> Option<String> {
    let (rank, pawn_rank, from_rank) = match turn {
        Color::White => (Rank::Sixth, Rank::Fifth, Rank::Seventh),
        Color::Black => (Rank::Third, Rank::Fourth, Rank::Second),
    };
    if sq.rank() != rank {
        return Some(format!("with {turn} to move it must be on rank {}", rank.char()));
    }
    let pawn_sq = Square::from_coords(sq.file(), pawn_rank);
    let mover = !turn;
    if board.piece_at(pawn_sq) != Some(Piece { color: mover, role: Role::Pawn }) {
        return Some(format!("no {mover} pawn on {pawn_sq} that could have just advanced two squares"));
    }
    if board.piece_at(sq).is_some() || board.piece_at(Square::from_coords(sq.file(), from_rank)).is_some() {
        return Some(format!("the pawn could not have passed through {sq}: a square on its path is occupied"));
    }
    None
}
