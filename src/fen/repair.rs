//! Repair: the unsure squares of a reading that breaks a counting rule re-decided so that the
//! whole board is most probable under the rule (with a prior on material).

use super::*;

/// How many of each piece a side starts with, for the pieces a pawn can promote to: any more are
/// promoted pieces, each of which needs a missing pawn.
pub(super) const STARTING_SET: [(Role, usize); 4] =
    [(Role::Queen, 1), (Role::Rook, 2), (Role::Bishop, 2), (Role::Knight, 2)];

/// Squares whose best class is at least this probable are never changed by [`repair`].
pub const CONFIDENT: f32 = 0.9;

/// [`repair`] gives a square only a class the classifier gives at least this probability.
pub const PLAUSIBLE: f32 = 0.05;

/// The material prior's cost, in log-probability, of one piece beyond the starting set (a second
/// queen; a third rook, bishop or knight): ln 20. In real games such a piece is far
/// rarer (5 of the 8,735 positions `scripts/img2fen_training/assets.py` extracts from played games and
/// studies have one); 1 in 20 leaves room for endgame studies and problems.
pub const PROMOTED_PIECE: f32 = 3.0;

/// The cost of each unit of material no game can reach (a ninth pawn, a seventeenth piece, more
/// pieces beyond the starting set than missing pawns): large enough that any unsure square
/// changes first.
pub(super) const IMPOSSIBLE_MATERIAL: f32 = 1000.0;

/// More impossible or promoted material than this is a deliberate layout (a board editor), and
/// [`repair`] changes at most this many squares for material.
pub(super) const MAX_MATERIAL_REPAIRS: usize = 4;

/// How many of the cheapest candidate changes [`repair`] combines for material.
pub(super) const MATERIAL_CANDIDATES: usize = 24;

/// Depth-first over every set of at most [`MAX_MATERIAL_REPAIRS`] candidates from `from` on (one
/// change a square), keeping in `best` the set (indices into `cands`) with the highest board
/// score: `prior(classes)` less the log-probability the changes lose. `classes` is restored.
pub(super) fn search_changes(
    cands: &[(usize, usize, f32)],
    from: usize,
    chosen: &mut Vec<usize>,
    classes: &mut [usize],
    lost: f32,
    prior: &dyn Fn(&[usize]) -> f32,
    best: &mut (f32, Vec<usize>),
) {
    if chosen.len() == MAX_MATERIAL_REPAIRS {
        return;
    }
    for k in from..cands.len() {
        let (i, c, cost) = cands[k];
        // The prior is at most 0, so no set through this change can beat the best so far.
        if chosen.iter().any(|&j| cands[j].0 == i) || -(lost + cost) <= best.0 {
            continue;
        }
        let was = classes[i];
        classes[i] = c;
        chosen.push(k);
        let score = prior(classes) - lost - cost;
        if score > best.0 {
            *best = (score, chosen.clone());
        }
        search_changes(cands, k + 1, chosen, classes, lost + cost, prior, best);
        chosen.pop();
        classes[i] = was;
    }
}

/// For a board of classes ([`crate::CLASSES`] order): the material no game reaches, summed over
/// both sides (pawns and pieces beyond the starting set over 8, pieces over 16), and the number
/// of pieces beyond the starting set.
pub(super) fn material(classes: &[usize]) -> (usize, usize) {
    use crate::classify::CLASSES;
    // Pieces per side, by role (Role as index).
    let mut count = [[0usize; 7]; 2];
    for p in classes.iter().filter_map(|&c| CLASSES[c]) {
        count[p.color as usize][p.role as usize] += 1;
    }
    let (mut excess, mut promoted) = (0, 0);
    for side in count {
        let extra: usize = STARTING_SET.iter().map(|&(r, n)| side[r as usize].saturating_sub(n)).sum();
        excess += (side[Role::Pawn as usize] + extra).saturating_sub(8) + side.iter().sum::<usize>().saturating_sub(16);
        promoted += extra;
    }
    (excess, promoted)
}

/// Makes a recognised position obey the rules a misread most often breaks, changing only
/// squares the classifier is unsure of (best class under [`CONFIDENT`]):
///
/// - each side gets exactly one king: the pair of squares (one for each king) that makes the
///   whole board most probable is chosen, every other square taking its best non-king class; a
///   king needs at least [`PLAUSIBLE`] (5%) on its square, else the side stays without one (and
///   is reported);
/// - no pawn stands on rank 1 or 8: an unsure pawn there takes its best other class;
/// - material: a ninth pawn, a seventeenth piece or more promoted pieces than missing pawns is
///   impossible, and a piece beyond the starting set costs [`PROMOTED_PIECE`]; of every set of
///   up to four changes to unsure squares (each to a class with at least [`PLAUSIBLE`]), the
///   one that makes the whole board most probable is made (a second black queen read at 46%
///   where a white one has 41%, while White has none, becomes White's).
///
/// `probs[i]` are the class probabilities ([`crate::CLASSES`] order) of the square `squares[i]`;
/// `classes[i]` is the class chosen for it (the most probable), updated in place. Returns one
/// line per change. A deliberately illegal picture whose squares are all clear comes out as drawn.
pub fn repair(probs: &[crate::ClassProbs], squares: &[Square], classes: &mut [usize]) -> Vec<String> {
    use crate::classify::CLASS_CHARS;
    let reading = Reading::new(probs, squares, classes);
    reading.kings(classes);
    reading.back_rank_pawns(classes);
    reading.material(classes);
    let original = &reading.original;
    let name = |c: usize| if c == 0 { "empty".to_string() } else { CLASS_CHARS[c].to_string() };
    (0..classes.len())
        .filter(|&i| classes[i] != original[i])
        .map(|i| {
            format!(
                "{} read as {} ({:.0}%), taken as {} ({:.0}%): the rules and the usual material make that likelier",
                squares[i],
                name(original[i]),
                probs[i][original[i]] * 100.0,
                name(classes[i]),
                probs[i][classes[i]] * 100.0
            )
        })
        .collect()
}

/// A reading being repaired: the class probabilities of each square, the classes as first read,
/// and the class indices of the kings and pawns (White's, Black's).
struct Reading<'a> {
    probs: &'a [crate::ClassProbs],
    squares: &'a [Square],
    original: Vec<usize>,
    kings: [usize; 2],
    pawns: [usize; 2],
}

impl<'a> Reading<'a> {
    fn new(probs: &'a [crate::ClassProbs], squares: &'a [Square], classes: &[usize]) -> Self {
        use crate::classify::class_index;
        let of = |role| [Color::White, Color::Black].map(|color| class_index(Some(Piece { color, role })));
        Reading { probs, squares, original: classes.to_vec(), kings: of(Role::King), pawns: of(Role::Pawn) }
    }

    /// Whether square `i` was read surely ([`CONFIDENT`]): it is never changed.
    fn sure(&self, i: usize) -> bool {
        self.probs[i][self.original[i]] >= CONFIDENT
    }

    /// Square `i`'s most probable class other than `banned`.
    fn best_without(&self, i: usize, banned: &[usize]) -> usize {
        (0..13)
            .filter(|c| !banned.contains(c))
            .max_by(|&a, &b| self.probs[i][a].total_cmp(&self.probs[i][b]))
            .expect("13 classes")
    }

    /// Kings. Squares sure of a king keep it; two sure kings of one side leave the board as
    /// drawn. Otherwise the pair of squares (one per side) that makes the board most probable
    /// gets the kings, and every other unsure king its best other class.
    fn kings(&self, classes: &mut [usize]) {
        let (n, kings) = (classes.len(), self.kings);
        let sure_kings = kings.map(|k| (0..n).filter(|&i| self.original[i] == k && self.sure(i)).collect::<Vec<_>>());
        if sure_kings.iter().any(|v| v.len() > 1) {
            return;
        }
        // Candidates per side: the sure king, or every unsure square with at least 5% for it.
        let cands = [0, 1].map(|s| match sure_kings[s].first() {
            Some(&i) => vec![Some(i)],
            None => {
                let v: Vec<Option<usize>> =
                    (0..n).filter(|&i| !self.sure(i) && self.probs[i][kings[s]] >= PLAUSIBLE).map(Some).collect();
                if v.is_empty() {
                    vec![None]
                } else {
                    v
                }
            }
        });
        // Gain in log-probability of putting side s's king on square i instead of its best
        // non-king class.
        let gain = |s: usize, i: usize| {
            let other = self.best_without(i, &kings);
            (self.probs[i][kings[s]].max(1e-9) / self.probs[i][other].max(1e-9)).ln()
        };
        let mut best: Option<(f32, Option<usize>, Option<usize>)> = None;
        for &w in &cands[0] {
            for &b in &cands[1] {
                if w.is_some() && w == b {
                    continue;
                }
                let g = w.map_or(0.0, |i| gain(0, i)) + b.map_or(0.0, |i| gain(1, i));
                if best.is_none_or(|(bg, _, _)| g > bg) {
                    best = Some((g, w, b));
                }
            }
        }
        if let Some((_, w, b)) = best {
            for (i, class) in classes.iter_mut().enumerate() {
                if kings.contains(class) && !self.sure(i) {
                    *class = self.best_without(i, &kings);
                }
            }
            for (s, at) in [w, b].into_iter().enumerate() {
                if let Some(i) = at {
                    classes[i] = kings[s];
                }
            }
        }
    }

    /// Pawns on the back ranks: an unsure one takes its best class that is neither pawn nor king.
    fn back_rank_pawns(&self, classes: &mut [usize]) {
        let banned = [self.pawns[0], self.pawns[1], self.kings[0], self.kings[1]];
        for (i, class) in classes.iter_mut().enumerate() {
            let back_rank = matches!(self.squares[i].rank(), Rank::First | Rank::Eighth);
            if back_rank && self.pawns.contains(class) && !self.sure(i) {
                *class = self.best_without(i, &banned);
            }
        }
    }

    /// Material: the set of at most [`MAX_MATERIAL_REPAIRS`] changes to unsure squares that makes
    /// the whole board most probable under the material prior (every set of the cheapest
    /// candidate changes is tried: a wrong black queen may need to become White's on one square
    /// and a bishop on another).
    fn material(&self, classes: &mut [usize]) {
        let (start_excess, start_promoted) = material(classes);
        if (start_excess == 0 && start_promoted == 0)
            || start_excess > MAX_MATERIAL_REPAIRS
            || start_promoted > MAX_MATERIAL_REPAIRS
        {
            return;
        }
        let prior = |classes: &[usize]| {
            let (excess, promoted) = material(classes);
            -(excess as f32) * IMPOSSIBLE_MATERIAL - promoted as f32 * PROMOTED_PIECE
        };
        // Candidate changes (square, class, log-probability lost), cheapest first.
        let (probs, kings, pawns) = (self.probs, self.kings, self.pawns);
        let mut cands: Vec<(usize, usize, f32)> = Vec::new();
        for i in (0..classes.len()).filter(|&i| !self.sure(i) && !kings.contains(&classes[i])) {
            let back_rank = matches!(self.squares[i].rank(), Rank::First | Rank::Eighth);
            for c in (0..13).filter(|&c| {
                c != classes[i] && probs[i][c] >= PLAUSIBLE && !kings.contains(&c) && !(back_rank && pawns.contains(&c))
            }) {
                cands.push((i, c, (probs[i][classes[i]].max(1e-9) / probs[i][c]).ln()));
            }
        }
        cands.sort_by(|a, b| a.2.total_cmp(&b.2));
        cands.truncate(MATERIAL_CANDIDATES);
        let mut best = (prior(classes), Vec::new());
        let mut chosen: Vec<usize> = Vec::new();
        search_changes(&cands, 0, &mut chosen, classes, 0.0, &prior, &mut best);
        for &k in &best.1 {
            classes[cands[k].0] = cands[k].1;
        }
    }
}
