//! The rules a real position obeys, and which squares of a reading that breaks a counting rule
//! are its likeliest misreads.

use super::*;

/// Every rule of a real chess position that `board` breaks, in plain words.
pub fn check_board(board: &Board, turn: Color) -> Vec<String> {
    let mut out = Vec::new();
    if board.occupied().is_empty() {
        out.push("the board is empty".to_string());
        return out;
    }
    for color in Color::ALL {
        let count = |role: Role| (board.by_color(color) & board.by_role(role)).count();
        match count(Role::King) {
            1 => {}
            0 => out.push(format!("{color} has no king")),
            n => out.push(format!("{color} has {n} kings")),
        }
        let pawns = count(Role::Pawn);
        if pawns > 8 {
            out.push(format!("{color} has {pawns} pawns (at most 8)"));
        }
        let back = board.by_color(color)
            & board.by_role(Role::Pawn)
            & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth));
        for sq in back {
            out.push(format!("{color} pawn on {sq} (pawns never stand on rank 1 or 8)"));
        }
        // Each piece beyond the starting set must be a promoted pawn.
        let promoted = count(Role::Queen).saturating_sub(1)
            + count(Role::Rook).saturating_sub(2)
            + count(Role::Bishop).saturating_sub(2)
            + count(Role::Knight).saturating_sub(2);
        if pawns <= 8 && pawns + promoted > 8 {
            out.push(format!(
                "{color} has more pieces than promotions allow ({pawns} pawns and {promoted} extra pieces)"
            ));
        }
        let total = board.by_color(color).count();
        if total > 16 {
            out.push(format!("{color} has {total} pieces (at most 16)"));
        }
    }
    // The side not to move must not be in check.
    let waiting = !turn;
    if let Some(king) = board.king_of(waiting) {
        let checkers = board.attacks_to(king, turn, board.occupied());
        if checkers.any() {
            let by: Vec<String> = checkers.into_iter().map(|s| s.to_string()).collect();
            out.push(format!("{waiting} is in check (from {}) but it is {turn} to move", by.join(", ")));
        }
    }
    out
}

/// The pieces giving check to `side`'s king (empty when it has none or is not in check).
pub fn checkers(board: &Board, side: Color) -> Bitboard {
    board.king_of(side).map_or(Bitboard::EMPTY, |king| board.attacks_to(king, !side, board.occupied()))
}

/// The side that must be to move when the side not to move (`!turn`) is in check and the side
/// to move is not: the picture most likely shows the other side to move. `None` otherwise.
pub fn side_to_move_from_check(board: &Board, turn: Color) -> Option<Color> {
    let in_check = |side: Color| checkers(board, side).any();
    (in_check(!turn) && !in_check(turn)).then_some(!turn)
}

/// The squares most likely misread on a board that breaks a counting rule, each with the rule.
/// A side with two kings, nine pawns or more pieces than promotions allow holds at least one
/// misread square even when every square looks sure:
///
/// - two kings or more, or more of a piece than promotions allow: every piece of that role (a
///   misread that adds a piece most often adds it to a role already full; which of them is wrong
///   the probabilities often cannot tell);
/// - more than eight pawns, a pawn on rank 1 or 8, more than 16 pieces: the least probable (by
///   `p`) of the squares involved.
///
/// A rule broken by more than four pieces (a board editor's 32 kings) is a deliberate layout, not
/// a misread, and flags nothing. Check is left out: a side in check more often means the picture's
/// side to move differs from the flag than a misread.
pub fn suspects(board: &Board, p: impl Fn(Square) -> f32) -> Vec<(Square, String)> {
    let mut out: Vec<(Square, String)> = Vec::new();
    let mut add = |squares: Bitboard, why: &str| {
        // More than a few: a deliberate layout (a board editor), not a misread.
        if squares.count() > MAX_SUSPECTS {
            return;
        }
        for sq in squares {
            if !out.iter().any(|(s, _)| *s == sq) {
                out.push((sq, why.to_string()));
            }
        }
    };
    let least = |squares: Bitboard| {
        squares.into_iter().min_by(|&a, &b| p(a).total_cmp(&p(b))).map_or(Bitboard::EMPTY, Bitboard::from_square)
    };
    for color in Color::ALL {
        let mine = board.by_color(color);
        let of = |role: Role| mine & board.by_role(role);
        let kings = of(Role::King);
        if kings.count() > 1 {
            add(kings, &format!("{color} has {} kings", kings.count()));
        }
        let pawns = of(Role::Pawn);
        for sq in pawns & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth)) {
            add(Bitboard::from_square(sq), &format!("{color} pawn on rank {}", sq.rank().char()));
        }
        if pawns.count() > 8 {
            add(least(pawns), &format!("{color} has {} pawns", pawns.count()));
        }
        let promoted: usize = STARTING_SET.iter().map(|&(r, n)| of(r).count().saturating_sub(n)).sum();
        if pawns.count() <= 8 && pawns.count() + promoted > 8 {
            let why = format!("{color} has {} pawns and {promoted} pieces beyond the starting set", pawns.count());
            for (r, n) in STARTING_SET {
                if of(r).count() > n {
                    add(of(r), &why);
                }
            }
        }
        if mine.count() > 16 {
            add(least(mine), &format!("{color} has {} pieces", mine.count()));
        }
    }
    out
}

/// A counting rule broken by more pieces than this is not a misread: [`suspects`] flags none of
/// them. More kings of a side than this make a board editor's layout ([`deliberate_layout`]).
pub(super) const MAX_SUSPECTS: usize = 4;

/// Whether a board shows more than four kings of one side: a board editor's layout, drawn on
/// purpose, where the counting rules say nothing about misreads. Other counts do not tell such a
/// layout from a misread design as surely: a whole back rank read as the other colour gives a
/// side five knights or rooks.
pub fn deliberate_layout(board: &Board) -> bool {
    Color::ALL.into_iter().any(|color| (board.by_color(color) & board.kings()).count() > MAX_SUSPECTS)
}

/// The side without a king when the other has one: no game reaches that, so a reading that shows
/// it has misread a king (most often as a piece of the other colour). A board with no king at all
/// is another matter: a diagram of how a piece moves.
pub fn kingless_side(board: &Board) -> Option<Color> {
    let has_king = |c: Color| (board.by_color(c) & board.kings()).any();
    match (has_king(Color::White), has_king(Color::Black)) {
        (true, false) => Some(Color::Black),
        (false, true) => Some(Color::White),
        _ => None,
    }
}

/// Whether the only counting rule a board breaks is a second king of one side, both read at
/// `sure` or more, with the other side's king on the board: `suspects` ([`suspects`]) are
/// exactly those two kings.
pub fn sure_second_king_only(
    board: &Board,
    suspects: &[(Square, String)],
    p: impl Fn(Square) -> f32,
    sure: f32,
) -> bool {
    Color::ALL.into_iter().any(|color| {
        let kings = board.by_color(color) & board.kings();
        let theirs = board.by_color(!color) & board.kings();
        kings.count() == 2
            && theirs.count() == 1
            && suspects.len() == 2
            && suspects.iter().all(|(sq, _)| kings.contains(*sq))
            && kings.into_iter().all(|sq| p(sq) >= sure)
    })
}
