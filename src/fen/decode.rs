//! Whole-board decoding: a board whose squares are read with doubt (a photo of a real set) taken
//! as the most probable position under the material a game allows and where pieces usually
//! stand, instead of square by square.
//!
//! The 64 squares are assigned to slots, each slot one piece a side may have: eight pawns, never
//! on rank 1 or 8; two knights, two rooks, a queen; two bishops, one on a light square and one
//! on a dark one; one king, which must be placed; one promoted knight, bishop, rook and queen at
//! the cost [`PROMOTED_PIECE`]; and any number of empty squares. A square's score for a slot is
//! the classifier's log-probability of the slot's class plus [`PRIOR_WEIGHT`] times the log of
//! how often real positions hold that class on that square (`models/square_prior.json`). The
//! assignment with the highest total (Kuhn-Munkres) is the reading. Measured on physical boards
//! in docs/experiments/2026-12-06-physical-whole-board.md.

use std::sync::OnceLock;

use pathfinding::prelude::{kuhn_munkres, Matrix};
use shakmaty::{Color, Piece, Rank, Role, Square};

use super::repair::{PROMOTED_PIECE, STARTING_SET};
use crate::classify::{class_index, CLASS_CHARS};

/// How much the square prior counts beside the classifier's log-probabilities. Chosen on rendered
/// held-out physical scenes among 0.25, 0.5, 0.75 and 1 (the experiment record's table).
pub const PRIOR_WEIGHT: f32 = 0.5;

/// How many pieces beyond the starting set of each kind (knight, bishop, rook, queen) a side may
/// get, each at [`PROMOTED_PIECE`].
pub const PROMOTED_SLOTS: usize = 1;

/// What placing a side's king is worth: more than any square's log-probabilities can lose
/// (they are floored at [`FLOOR`]), so that each side always gets one.
const KING_BONUS: f32 = 50.0;

/// The lowest log-probability a class is given (1e-9).
const FLOOR: f32 = -20.7;

/// Scores are summed as integers in thousandths of a nat.
const SCALE: f32 = 1000.0;

/// A slot no square may take.
const FORBIDDEN: i64 = -1_000_000_000;

/// log P(class | square) over real positions, White at the bottom, indexed by square (a1 = 0).
pub struct SquarePrior {
    log: [[f32; 13]; 64],
}

impl SquarePrior {
    /// The prior from the counts in a `models/square_prior.json` text: 64 rows (a8 first, h1
    /// last) of 13 counts ([`crate::CLASSES`] order), one added to each.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let json: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if json["classes"].as_str() != Some(&CLASS_CHARS.iter().collect::<String>()) {
            return Err("the prior's classes are not img2fen's".into());
        }
        let rows = json["counts"].as_array().filter(|r| r.len() == 64).ok_or("64 rows of counts")?;
        let mut log = [[0.0; 13]; 64];
        for (row, counts) in rows.iter().enumerate() {
            let c: Vec<f64> = counts
                .as_array()
                .filter(|c| c.len() == 13)
                .ok_or("13 counts a square")?
                .iter()
                .map(|v| v.as_f64().map(|v| v + 1.0).ok_or("a count"))
                .collect::<Result<_, _>>()?;
            let total: f64 = c.iter().sum();
            // Row 0 is a8: rank 8, file a.
            let sq = Square::from_coords(shakmaty::File::new((row % 8) as u32), Rank::new(7 - (row / 8) as u32));
            log[sq as usize] = std::array::from_fn(|k| (c[k] / total).ln() as f32);
        }
        Ok(SquarePrior { log })
    }

    /// The built-in prior, from `models/square_prior.json`.
    pub fn built_in() -> &'static SquarePrior {
        static PRIOR: OnceLock<SquarePrior> = OnceLock::new();
        PRIOR.get_or_init(|| {
            SquarePrior::from_json(include_str!("../../models/square_prior.json"))
                .expect("models/square_prior.json holds 64 rows of 13 counts")
        })
    }

    /// log P(class | square).
    pub fn log_p(&self, square: Square, class: usize) -> f32 {
        self.log[square as usize][class]
    }
}

/// One slot of the assignment: a class, the square colour it needs (bishops), its extra score.
struct Slot {
    class: usize,
    light: Option<bool>,
    extra: f32,
}

/// The slots of both sides and the empty squares, as the module's documentation lists them.
fn slots(n_squares: usize) -> Vec<Slot> {
    let mut out = Vec::new();
    for color in [Color::White, Color::Black] {
        let class = |role| class_index(Some(Piece { color, role }));
        let plain = |class, extra| Slot { class, light: None, extra };
        out.extend((0..8).map(|_| plain(class(Role::Pawn), 0.0)));
        out.push(plain(class(Role::King), KING_BONUS));
        for &(role, n) in &STARTING_SET {
            if role == Role::Bishop {
                out.push(Slot { class: class(role), light: Some(true), extra: 0.0 });
                out.push(Slot { class: class(role), light: Some(false), extra: 0.0 });
            } else {
                out.extend((0..n).map(|_| plain(class(role), 0.0)));
            }
            out.extend((0..PROMOTED_SLOTS).map(|_| plain(class(role), -PROMOTED_PIECE)));
        }
    }
    out.extend((0..n_squares).map(|_| Slot { class: 0, light: None, extra: 0.0 }));
    out
}

/// The most probable whole board: for each of `squares` (class probabilities `probs[i]`, in
/// [`crate::CLASSES`] order) its class under the assignment, and that assignment's score (the sum
/// of the squares' log-probabilities, the weighted prior and the promoted pieces' costs, in nats).
pub fn most_probable_board(probs: &[crate::ClassProbs], squares: &[Square], prior: &SquarePrior) -> (Vec<usize>, f32) {
    let slots = slots(squares.len());
    let pawns = [Color::White, Color::Black].map(|color| class_index(Some(Piece { color, role: Role::Pawn })));
    let score = |i: usize, slot: &Slot| -> i64 {
        let sq = squares[i];
        let back_rank = sq.rank() == Rank::First || sq.rank() == Rank::Eighth;
        if slot.light.is_some_and(|light| light != sq.is_light()) || (pawns.contains(&slot.class) && back_rank) {
            return FORBIDDEN;
        }
        let log_p = probs[i][slot.class].max(1e-9).ln().max(FLOOR);
        ((log_p + PRIOR_WEIGHT * prior.log_p(sq, slot.class) + slot.extra) * SCALE).round() as i64
    };
    let weights: Vec<i64> =
        (0..squares.len()).flat_map(|i| slots.iter().map(move |s| (i, s))).map(|(i, s)| score(i, s)).collect();
    let matrix = Matrix::from_vec(squares.len(), slots.len(), weights).expect("one score a square and slot");
    let (total, assigned) = kuhn_munkres(&matrix);
    // Both kings are always placed: their bonus is no evidence.
    let total = total as f32 / SCALE - 2.0 * KING_BONUS;
    (assigned.iter().map(|&j| slots[j].class).collect(), total)
}

/// Decodes the whole board ([`most_probable_board`]): `probs[i]` are the class probabilities
/// ([`crate::CLASSES`] order) of the square `squares[i]`, `classes[i]` its class as read (the
/// most probable), replaced by the decoded one. Returns one line naming the squares changed, if
/// any.
pub fn decode_whole_board(
    probs: &[crate::ClassProbs],
    squares: &[Square],
    classes: &mut [usize],
    prior: &SquarePrior,
) -> Vec<String> {
    let (decoded, _) = most_probable_board(probs, squares, prior);
    let name = |c: usize| if c == 0 { "empty".to_string() } else { CLASS_CHARS[c].to_string() };
    let mut changes = Vec::new();
    for (i, &class) in decoded.iter().enumerate() {
        if class != classes[i] {
            changes.push(format!(
                "{} {} ({:.0}%, read {} {:.0}%)",
                squares[i],
                name(class),
                probs[i][class] * 100.0,
                name(classes[i]),
                probs[i][classes[i]] * 100.0
            ));
            classes[i] = class;
        }
    }
    if changes.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "read as a whole board (the material a game allows, where pieces usually stand): {}",
        changes.join(", ")
    )]
}
