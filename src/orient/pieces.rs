//! The second witness: where the pieces stand (a logistic regression on seven features),
//! with faint coordinates added to its log-odds.

use super::*;

/// Whether the displayed pieces could come from a game, allowing for a misread square or two, by
/// counts that do not depend on the orientation: at most two kings, ten pawns and eighteen pieces
/// a side (a game has one, eight and sixteen), and no more than one of the oddities a game never
/// shows, a second king of a side or a pawn on the top or bottom row, among the squares the model
/// is `sure` of ([`SURE_ODDITY`]). A board editor's random layout is not, and where its pieces
/// stand says nothing of which side is at the bottom.
pub fn game_like(displayed: &[Option<Piece>; 64], sure: &[bool; 64]) -> bool {
    let count = |c: Color, role: Option<Role>, only_sure: bool| {
        (0..64)
            .filter(|&i| {
                displayed[i].is_some_and(|p| p.color == c && role.is_none_or(|r| p.role == r))
                    && (sure[i] || !only_sure)
            })
            .count()
    };
    let counts_fit = Color::ALL.iter().all(|&c| {
        count(c, Some(Role::King), false) <= 2 && count(c, Some(Role::Pawn), false) <= 10 && count(c, None, false) <= 18
    });
    let second_kings: usize = Color::ALL.iter().map(|&c| count(c, Some(Role::King), true).saturating_sub(1)).sum();
    let edge_pawns =
        (0..8).chain(56..64).filter(|&i| sure[i] && displayed[i].is_some_and(|p| p.role == Role::Pawn)).count();
    counts_fit && second_kings + edge_pawns <= 1
}

/// How sure the model must be of a square for [`game_like`] to count an oddity there: on a piece
/// design it has not seen, a rook read as a pawn on the back row is a misread (at 50-80%), not a
/// sign of a board editor's layout (read at 99%).
pub const SURE_ODDITY: f32 = 0.9;

/// The features [`from_pieces`] weighs, in the order of `models/orientation_weights.json`. Each is
/// a count over the displayed board that changes sign when the board is turned round, positive
/// when it says White is at the bottom.
pub const PIECE_FEATURES: [&str; 7] =
    ["pawn_height", "king_height", "piece_height", "pawns_facing", "pawns_diagonal", "pawns_home", "kings_home"];

/// Computes [`PIECE_FEATURES`] (as `scripts/img2fen_training/train/orientation.py` does, which fits their weights):
///
/// - `pawn_height`, `king_height`, `piece_height`: White's pawns (kings, other pieces) minus
///   Black's, each by its height from -1 on the top row to +1 on the bottom row;
/// - `pawns_facing`, `pawns_diagonal`: pairs of a White and a Black pawn on the same (adjacent)
///   file, +1 when White's stands lower, -1 when higher: pawns meet head on from their own sides;
/// - `pawns_home`: pawns on their own side's second row, White's second from the bottom and
///   Black's second from the top, minus pawns on the other side's;
/// - `kings_home`: kings on their own side's back row minus kings on the other's.
pub fn piece_features(displayed: &[Option<Piece>; 64]) -> [f32; 7] {
    let mut f = [0f32; 7];
    let height = |row: usize| (row as f32 - 3.5) / 3.5;
    let pawns = |c: Color| -> Vec<(usize, usize)> {
        (0..64)
            .filter(|&i| displayed[i] == Some(Piece { color: c, role: Role::Pawn }))
            .map(|i| (i / 8, i % 8))
            .collect()
    };
    let (white_pawns, black_pawns) = (pawns(Color::White), pawns(Color::Black));
    for (i, p) in displayed.iter().enumerate() {
        let Some(p) = p else { continue };
        let row = i / 8;
        let sign = if p.color == Color::White { 1.0 } else { -1.0 };
        let k = match p.role {
            Role::Pawn => 0,
            Role::King => 1,
            _ => 2,
        };
        f[k] += sign * height(row);
        if p.role == Role::King {
            let home = if p.color == Color::White { 7 } else { 0 };
            f[6] += f32::from(row == home) - f32::from(row == 7 - home);
        }
    }
    for &(wr, wc) in &white_pawns {
        for &(br, bc) in &black_pawns {
            let order = f32::from(wr > br) - f32::from(wr < br);
            match wc.abs_diff(bc) {
                0 => f[3] += order,
                1 => f[4] += order,
                _ => {}
            }
        }
    }
    let on_row = |pawns: &[(usize, usize)], row: usize| pawns.iter().filter(|&&(r, _)| r == row).count() as f32;
    f[5] = on_row(&white_pawns, 6) - on_row(&white_pawns, 1) + on_row(&black_pawns, 1) - on_row(&black_pawns, 6);
    f
}

/// The weights of [`PIECE_FEATURES`], fitted by `scripts/img2fen_training/train/orientation.py` on real positions, and
/// the prior log-odds for White at the bottom (books print diagrams from White's side and most
/// screens show the user's side as White), built in from `models/orientation_weights.json`.
pub(super) fn piece_weights() -> &'static ([f32; 7], f32) {
    static WEIGHTS: OnceLock<([f32; 7], f32)> = OnceLock::new();
    WEIGHTS.get_or_init(|| {
        let json: serde_json::Value = serde_json::from_str(include_str!("../../models/orientation_weights.json"))
            .expect("models/orientation_weights.json is valid JSON");
        let names: Vec<&str> =
            json["features"].as_array().expect("features").iter().filter_map(|v| v.as_str()).collect();
        assert_eq!(names, PIECE_FEATURES, "models/orientation_weights.json was fitted on other features");
        let w: Vec<f32> =
            json["weights"].as_array().expect("weights").iter().filter_map(|v| v.as_f64()).map(|v| v as f32).collect();
        let prior = json["white_prior"].as_f64().expect("white_prior") as f32;
        (w.try_into().expect("one weight per feature"), prior)
    })
}

/// How much coordinates too faint to decide alone (under [`COORDINATE_EVIDENCE`]) count beside
/// the pieces: their log-likelihood ratio is added to the pieces' log-odds as it is. Weights of
/// 0, 0.5, 0.7 and 1 were measured on two sets of rendered boards with coordinates (docs/experiments/2026-11-30-orientation-rendered.md); 1 got the most right on both.
pub const FAINT_COORDINATE_WEIGHT: f32 = 1.0;

/// The log-odds for White at the bottom that a book's convention adds to a diagram without
/// labels: books show White at the bottom unless they say otherwise (all 50 book diagrams of
/// realdata-dev do). ln 9, a prior of 90%: a diagram without labels is read from Black's side only
/// when the pieces say so at over 90%.
pub const BOOK_CONVENTION: f32 = 2.197_224_6;

/// Guesses the orientation from where the pieces stand, with a confidence in `[0.5, 1]`
/// ([`from_pieces_and_coordinates`] without coordinates).
pub fn from_pieces(displayed: &[Option<Piece>; 64]) -> (Orientation, f32) {
    let (o, _, conf) = from_pieces_and_coordinates(displayed, &[true; 64], None, 0.0);
    (o, conf)
}

/// Decides the orientation from the pieces and from coordinates too faint to decide alone, with
/// the witness that weighed most and a confidence in `[0.5, 1]`.
///
/// The log-odds of White at the bottom are the sum of:
/// - the prior (most pictures show White at the bottom);
/// - the weighted [`piece_features`], whose weights come from a logistic regression on real
///   positions shown both ways up. A layout that is not [`game_like`] (judged on the `sure`
///   squares) adds nothing: where a board editor's random pieces stand says nothing of the side
///   at the bottom;
/// - the coordinates' evidence times [`FAINT_COORDINATE_WEIGHT`];
/// - `convention`: what the kind of document adds for White (0 for a picture;
///   [`BOOK_CONVENTION`] for a book's diagram without labels).
///
/// On games the fit never saw, the pieces alone get 99.6% of positions from played games and 97.2%
/// of those with two pawns or more right; boards with fewer pawns carry little evidence and get
/// the prior, unless faint labels say otherwise.
pub fn from_pieces_and_coordinates(
    displayed: &[Option<Piece>; 64],
    sure: &[bool; 64],
    coords: Option<&CoordinateReading>,
    convention: f32,
) -> (Orientation, OrientationSource, f32) {
    let (weights, prior) = piece_weights();
    let prior = prior + convention;
    let pieces = if game_like(displayed, sure) {
        piece_features(displayed).iter().zip(weights).map(|(x, w)| x * w).sum::<f32>()
    } else {
        0.0
    };
    let labels = coords.map_or(0.0, |c| FAINT_COORDINATE_WEIGHT * c.total());
    let score = prior + pieces + labels;
    let orientation = if score < 0.0 { Orientation::Black } else { Orientation::White };
    // The labels are the witness when they point the chosen way and outweigh the prior and the
    // pieces together.
    let source = if labels != 0.0 && (labels < 0.0) == (score < 0.0) && labels.abs() > (prior + pieces).abs() {
        OrientationSource::Coordinates
    } else {
        OrientationSource::Pieces
    };
    (orientation, source, 1.0 / (1.0 + (-score.abs()).exp()))
}
