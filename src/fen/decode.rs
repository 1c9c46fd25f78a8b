//! Whole-board decoding: a board whose squares are read with doubt (a photo of a real set) taken
//! as the most probable position under the material a game allows and where pieces usually
//! stand, instead of square by square.
//!
//! The 64 squares are assigned to slots, each slot one piece a side may have: eight pawns, never
//! on rank 1 or 8; two knights, two rooks, a queen; two bishops, one on a light square and one
//! on a dark one; one king, which must be placed; and any number of empty squares. Each pawn
//! slot may hold a piece the pawn promoted to instead, at the cost [`PROMOTED_PIECE`], so that
//! promoted pieces never outnumber the missing pawns. A square's score for a slot is
//! the classifier's log-probability of the slot's class plus [`PRIOR_WEIGHT`] times the log of
//! how often real positions of one kind (a group of [`SquarePrior`]) hold that class on that
//! square (`models/square_prior.json`). The assignment with the highest total (Kuhn-Munkres),
//! over every group, is the reading. Measured on physical boards
//! in docs/experiments/2026-12-06-physical-whole-board.md.

use std::sync::OnceLock;

use pathfinding::prelude::{kuhn_munkres, Matrix};
use shakmaty::{Color, Piece, Rank, Role, Square};

use super::repair::{PROMOTED_PIECE, STARTING_SET};
use crate::classify::{class_index, CLASS_CHARS};

/// How much the square prior counts beside the classifier's log-probabilities. Chosen on rendered
/// held-out physical scenes: among 0.25, 0.5, 0.75 and 1 with one table of counts, and again
/// against 0.35 and 0.75 with the 12 groups (the experiment record's tables).
pub const PRIOR_WEIGHT: f32 = 0.5;

/// The lowest log-probability a class is given (1e-9).
const FLOOR: f32 = -20.7;

/// Scores are summed as integers in thousandths of a nat.
const SCALE: f32 = 1000.0;

/// A slot no square may take.
const FORBIDDEN: i64 = -1_000_000_000;

/// Where pieces stand in real positions, White at the bottom: groups of positions (k-means on
/// their boards, so that openings, middlegames and endgames each have their own), each with its
/// share of the positions and log P(class | square) within it, indexed by square (a1 = 0).
pub struct SquarePrior {
    groups: Vec<(f32, [[f32; 13]; 64])>,
}

impl SquarePrior {
    /// The prior from a `models/square_prior.json` text: groups, each with its number of positions
    /// and 64 rows (a8 first, h1 last) of 13 counts ([`crate::CLASSES`] order), one added to each.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let json: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if json["classes"].as_str() != Some(&CLASS_CHARS.iter().collect::<String>()) {
            return Err("the prior's classes are not img2fen's".into());
        }
        let parts = json["components"].as_array().filter(|p| !p.is_empty()).ok_or("a list of components")?;
        let total: f64 = parts.iter().filter_map(|p| p["positions"].as_f64()).sum();
        let mut groups = Vec::with_capacity(parts.len());
        for part in parts {
            let positions = part["positions"].as_f64().filter(|&n| n > 0.0).ok_or("positions in each component")?;
            let rows = part["counts"].as_array().filter(|r| r.len() == 64).ok_or("64 rows of counts")?;
            let mut log = [[0.0; 13]; 64];
            for (row, counts) in rows.iter().enumerate() {
                let c: Vec<f64> = counts
                    .as_array()
                    .filter(|c| c.len() == 13)
                    .ok_or("13 counts a square")?
                    .iter()
                    .map(|v| v.as_f64().map(|v| v + 1.0).ok_or("a count"))
                    .collect::<Result<_, _>>()?;
                let sum: f64 = c.iter().sum();
                // Row 0 is a8: rank 8, file a.
                let sq = Square::from_coords(shakmaty::File::new((row % 8) as u32), Rank::new(7 - (row / 8) as u32));
                log[sq as usize] = std::array::from_fn(|k| (c[k] / sum).ln() as f32);
            }
            groups.push(((positions / total).ln() as f32, log));
        }
        Ok(SquarePrior { groups })
    }

    /// The built-in prior, from `models/square_prior.json`.
    pub fn built_in() -> &'static SquarePrior {
        static PRIOR: OnceLock<SquarePrior> = OnceLock::new();
        PRIOR.get_or_init(|| {
            SquarePrior::from_json(include_str!("../../models/square_prior.json"))
                .expect("models/square_prior.json holds groups of 64 rows of 13 counts")
        })
    }

    /// How many groups of positions the prior has.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// log P(class | square) in group `group`.
    pub fn log_p(&self, group: usize, square: Square, class: usize) -> f32 {
        self.groups[group].1[square as usize][class]
    }

    /// log of the share of the positions in group `group`.
    pub fn log_share(&self, group: usize) -> f32 {
        self.groups[group].0
    }
}

/// One piece slot of the assignment: the classes it may hold, each with its extra score (a
/// promoted piece's cost) and whether it is a pawn (never on rank 1 or 8), the square colour it
/// needs (bishops), and whether it must be placed (kings).
struct Slot {
    choices: Vec<(usize, f32, bool)>,
    light: Option<bool>,
    required: bool,
}

/// The piece slots of both sides, as the module's documentation lists them: a side's eight
/// pawn slots each hold a pawn or a piece it promoted to, so that promoted pieces never
/// outnumber the missing pawns.
fn slots() -> Vec<Slot> {
    let mut out = Vec::new();
    for color in [Color::White, Color::Black] {
        let class = |role| class_index(Some(Piece { color, role }));
        let one = |role| Slot { choices: vec![(class(role), 0.0, false)], light: None, required: false };
        let mut pawn_or_promoted = vec![(class(Role::Pawn), 0.0, true)];
        pawn_or_promoted.extend(STARTING_SET.iter().map(|&(role, _)| (class(role), -PROMOTED_PIECE, false)));
        out.extend((0..8).map(|_| Slot { choices: pawn_or_promoted.clone(), light: None, required: false }));
        out.push(Slot { required: true, ..one(Role::King) });
        for &(role, n) in &STARTING_SET {
            if role == Role::Bishop {
                out.push(Slot { light: Some(true), ..one(role) });
                out.push(Slot { light: Some(false), ..one(role) });
            } else {
                out.extend((0..n).map(|_| one(role)));
            }
        }
    }
    out
}

/// The most probable whole board: for each of `squares` (class probabilities `probs[i]`, in
/// [`crate::CLASSES`] order) its class under the best assignment over every group of the prior,
/// and that assignment's score (the sum of the squares' log-probabilities, the weighted prior
/// with its group's share, and the promoted pieces' costs, in nats).
///
/// Each group's assignment puts the piece slots (rows) on squares or off the board (one column
/// per slot, worth nothing; a king may not take it), each worth its score over the square's
/// being empty. Groups are tried from the highest upper bound (every square its best class, no
/// rule) down, and those whose bound cannot beat the best board found are skipped.
pub fn most_probable_board(probs: &[crate::ClassProbs], squares: &[Square], prior: &SquarePrior) -> (Vec<usize>, f32) {
    let slots = slots();
    let n = squares.len();
    let log_p: Vec<[f32; 13]> = probs.iter().map(|p| p.map(|q| q.max(1e-9).ln().max(FLOOR))).collect();
    let share = |group: usize| PRIOR_WEIGHT * prior.log_share(group);
    // Each group's score of each class on each square, and its bound.
    let mut order: Vec<(f32, usize, Vec<[f32; 13]>)> = (0..prior.groups())
        .map(|g| {
            let s: Vec<[f32; 13]> = (0..n)
                .map(|i| std::array::from_fn(|c| log_p[i][c] + PRIOR_WEIGHT * prior.log_p(g, squares[i], c)))
                .collect();
            let bound = s.iter().map(|x| x.iter().copied().fold(f32::MIN, f32::max)).sum::<f32>() + share(g);
            (bound, g, s)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best: Option<(Vec<usize>, f32)> = None;
    for (bound, group, s) in order {
        if best.as_ref().is_some_and(|b| b.1 >= bound) {
            break;
        }
        // A slot's best class on a square, and its score over the square's being empty.
        let choose = |slot: &Slot, col: usize| -> Option<(usize, f32)> {
            let sq = squares[col];
            if slot.light.is_some_and(|light| light != sq.is_light()) {
                return None;
            }
            let back_rank = sq.rank() == Rank::First || sq.rank() == Rank::Eighth;
            slot.choices
                .iter()
                .filter(|&&(_, _, pawn)| !(pawn && back_rank))
                .map(|&(class, extra, _)| (class, s[col][class] + extra - s[col][0]))
                .max_by(|a, b| a.1.total_cmp(&b.1))
        };
        let weight = |slot: &Slot, col: usize| -> i64 {
            if col >= n {
                return if slot.required { FORBIDDEN } else { 0 };
            }
            choose(slot, col).map_or(FORBIDDEN, |(_, w)| (w * SCALE).round() as i64)
        };
        let cols = n + slots.len();
        let weights: Vec<i64> = slots.iter().flat_map(|slot| (0..cols).map(move |c| weight(slot, c))).collect();
        let matrix = Matrix::from_vec(slots.len(), cols, weights).expect("one weight a slot and column");
        let (over_empty, placed) = kuhn_munkres(&matrix);
        let mut classes = vec![0; n];
        for (slot, &col) in slots.iter().zip(&placed) {
            if col < n {
                classes[col] = choose(slot, col).expect("a placed slot has a class there").0;
            }
        }
        let total = s.iter().map(|x| x[0]).sum::<f32>() + over_empty as f32 / SCALE + share(group);
        if best.as_ref().is_none_or(|b| total > b.1) {
            best = Some((classes, total));
        }
    }
    best.expect("a prior has a group")
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
