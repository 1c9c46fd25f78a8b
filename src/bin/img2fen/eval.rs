//! Measurement on a labelled folder: `img2fen eval LABELS.csv`.
//!
//! The CSV has the columns `file,fen_field1,flipped,kind` (more are ignored): the image path
//! (relative to the CSV's folder), the true FEN field 1 seen from White, `1` when Black is at the
//! bottom of the picture, and the kind of picture (screenshot, book, ...). Optional columns
//! `to_move` (`w` or `b`) and `evidence` (what the picture shows of it: `last_move`, `check` or
//! `none`) add a table of the side to move as `--to-move auto` reads it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use shakmaty::fen::Fen;
use shakmaty::{Board, Color, Piece, Square};

use clap::Args;
use img2fen::orient::{square_at, square_shown, Orientation};
use img2fen::{fen, BoardKind, BoardReading, Options, Recognizer};

use crate::engine::EngineArgs;
use crate::read::KindArg;
use crate::{Failure, Outcome as RunOutcome};

/// Arguments of `img2fen eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// The labels CSV; image paths are relative to its folder
    labels: PathBuf,
    /// Also list every image that was not read exactly
    #[arg(long)]
    misses: bool,
    /// Squares whose best class is less probable than this count as flagged
    #[arg(long, default_value_t = img2fen::DEFAULT_MIN_CONFIDENCE, value_name = "P",
          value_parser = crate::read::parse_probability)]
    min_confidence: f32,
    /// Also print misreads flagged and flagged squares per exact board at these thresholds
    #[arg(long, value_delimiter = ',', value_name = "P,P,...")]
    sweep: Vec<f32>,
    /// Group rows by kind and camera-angle band (a "band B" in the notes column)
    #[arg(long)]
    by_band: bool,
    /// Also print how often the orientation and the side to move are right at each confidence
    #[arg(long)]
    reliability: bool,
    /// What kind of board the pictures show (as the reading command's --kind)
    #[arg(long, value_enum, default_value_t = KindArg::Auto)]
    kind: KindArg,
    #[command(flatten)]
    engine: EngineArgs,
}

/// Runs `img2fen eval`: reads every labelled picture and prints the accuracy tables.
pub fn run_command(args: &EvalArgs) -> Result<RunOutcome, Failure> {
    let mut rows = read_labels(&args.labels)?;
    if args.by_band {
        for r in &mut rows {
            if let Some(b) = r.band.clone() {
                r.kind = format!("{} {b}", r.kind);
            }
        }
    }
    let rec = Recognizer::new(Options {
        classifier: args.engine.classifier()?,
        // The side to move is read from the picture, as `--to-move auto` reads it: only the
        // side-to-move table depends on it.
        fen: img2fen::FenOptions { turn_from_picture: true, ..Default::default() },
        min_confidence: args.min_confidence,
        second_look: !args.engine.no_second_look,
        reduce_large_jpegs: !args.engine.full_resolution,
        kind: args.kind.choice(),
        ..Options::default()
    })?;
    let outcomes = run(&rec, &rows);
    println!("{} on {} ({} backend)", args.labels.display(), env!("CARGO_PKG_NAME"), rec.classifier().backend().name());
    print!("{}", report(&outcomes));
    if outcomes.iter().any(|o| o.row.to_move.is_some()) {
        println!("\nside to move (--to-move auto), boards found:\n");
        print!("{}", side_report(&outcomes));
    }
    if !args.sweep.is_empty() {
        println!("\nthreshold sweep:\n");
        print!("{}", sweep(&outcomes, &args.sweep));
    }
    if args.reliability {
        println!("\nreliability (boards found; the side to move over boards whose labels give it):\n");
        print!("{}", reliability(&outcomes));
    }
    if args.misses {
        println!();
        print!("{}", misses(&outcomes));
    }
    Ok(RunOutcome::Read)
}

/// One labelled picture.
#[derive(Debug, Clone)]
pub struct Row {
    pub file: PathBuf,
    pub board: Board,
    pub orientation: Orientation,
    pub kind: String,
    /// The camera-angle band the notes give ("band 20-40"), if any.
    pub band: Option<String>,
    /// The piece set the notes name ("set: wooden folding-box set (...)", "set brutalchess"),
    /// if any.
    pub set: Option<String>,
    /// Both kings, no pawn on rank 1/8, no side in impossible check (for some side to move).
    pub legal: bool,
    /// The side to move, and what the picture shows of it, when the labels say.
    pub to_move: Option<(Color, String)>,
}

/// What happened to one row.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub row: Row,
    pub ms: f64,
    pub error: Option<String>,
    /// Pieces read correctly in display order, with orientation.
    pub exact: bool,
    pub exact_ignoring_orientation: bool,
    pub squares_right: usize,
    pub orientation_right: bool,
    pub misread: usize,
    /// Misread squares the reading asks a person to check: uncertain ones, or all of them on a
    /// board to check as a whole ([`BoardReading::check_whole_board`]).
    pub misread_flagged: usize,
    /// Squares the reading asks a person to check: the uncertain ones, or all 64.
    pub flagged: usize,
    pub predicted: String,
    /// Per square of the board read: its probability, whether a broken rule flags it, whether
    /// it was misread (for [`sweep`]).
    pub squares: Vec<(f32, bool, bool)>,
    /// The board read is one to check square by square ([`BoardReading::check_whole_board`],
    /// which does not depend on the threshold).
    pub whole: bool,
    /// The side to move read (`--to-move auto`): its colour, source and confidence.
    pub side: Option<(Color, img2fen::TurnSource, f32)>,
    /// The orientation's source and confidence, as read.
    pub orientation: Option<(img2fen::OrientationSource, f32)>,
    /// The board says its side at the bottom is uncertain ([`BoardReading::orientation_uncertain`]).
    pub orientation_warned: bool,
}

impl Outcome {
    /// Which squares would be flagged at threshold `t`: those under it or suspected by a rule,
    /// or all of them on a board to check as a whole.
    fn flags_at(&self, t: f32) -> Vec<bool> {
        self.squares.iter().map(|&(p, suspect, _)| self.whole || p < t || suspect).collect()
    }
}

/// Reads the labels file.
pub fn read_labels(csv_path: &Path) -> Result<Vec<Row>, Failure> {
    let root = csv_path.parent().unwrap_or(Path::new("."));
    let mut rdr =
        csv::Reader::from_path(csv_path).map_err(|e| Failure::Usage(format!("{}: {e}", csv_path.display())))?;
    let headers = rdr.headers().map_err(|e| Failure::Usage(format!("{}: {e}", csv_path.display())))?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Failure::Usage(format!("{}: no '{name}' column", csv_path.display())))
    };
    let (cf, cp, cfl, ck) = (col("file")?, col("fen_field1")?, col("flipped")?, col("kind")?);
    let notes = col("notes").ok();
    let (to_move, evidence) = (col("to_move").ok(), col("evidence").ok());
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.map_err(|e| Failure::Usage(format!("{}: row {}: {e}", csv_path.display(), i + 2)))?;
        let bad = |m: String| Failure::Usage(format!("{}: row {}: {m}", csv_path.display(), i + 2));
        let board = rec[cp].parse::<Fen>().map_err(|e| bad(format!("bad FEN '{}': {e}", &rec[cp])))?.into_setup().board;
        let legal = [Color::White, Color::Black].iter().any(|&t| fen::check_board(&board, t).is_empty());
        rows.push(Row {
            file: root.join(&rec[cf]),
            board,
            orientation: if rec[cfl].trim() == "1" { Orientation::Black } else { Orientation::White },
            kind: rec[ck].to_string(),
            band: notes.and_then(|c| rec.get(c)).and_then(band_of),
            set: notes.and_then(|c| rec.get(c)).and_then(set_of),
            legal,
            to_move: match to_move.and_then(|c| rec.get(c)).map(str::trim) {
                Some("w") => Some((Color::White, evidence.and_then(|c| rec.get(c)).unwrap_or("none").to_string())),
                Some("b") => Some((Color::Black, evidence.and_then(|c| rec.get(c)).unwrap_or("none").to_string())),
                Some("") | None => None,
                Some(other) => return Err(bad(format!("to_move '{other}' is neither w nor b"))),
            },
        });
    }
    Ok(rows)
}

/// The camera-angle band a notes cell names: "band overhead" (under 20 degrees), "band 20-40".
fn band_of(notes: &str) -> Option<String> {
    let rest = &notes[notes.find("band ")? + 5..];
    let band = rest.split(|c: char| c == ';' || c.is_whitespace()).next()?;
    Some(if band == "overhead" { "0-20".to_string() } else { band.to_string() })
}

/// The piece set a notes cell names: what follows "set " or "set: " up to the next ';'.
fn set_of(notes: &str) -> Option<String> {
    let at = notes.split(';').map(str::trim).find(|p| p.starts_with("set ") || p.starts_with("set:"))?;
    Some(at[4..].trim_start_matches(':').trim().to_string()).filter(|s| !s.is_empty())
}

/// The board turned by `quarters` quarter turns about its centre.
fn turned(board: &Board, quarters: usize) -> Board {
    let mut b = board.clone();
    for _ in 0..quarters {
        b.rotate_90();
    }
    b
}

fn displayed(board: &Board, o: Orientation) -> [Option<Piece>; 64] {
    std::array::from_fn(|i| board.piece_at(square_at(i, o)))
}

/// Runs the recognizer on every row, one at a time (so the times are per image, decode included).
pub fn run(rec: &Recognizer, rows: &[Row]) -> Vec<Outcome> {
    rows.iter()
        .map(|row| {
            let t = Instant::now();
            let res = rec.read_file(&row.file);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            let mut out = Outcome {
                row: row.clone(),
                ms,
                error: None,
                exact: false,
                exact_ignoring_orientation: false,
                squares_right: 0,
                orientation_right: false,
                misread: 0,
                misread_flagged: 0,
                flagged: 0,
                predicted: String::new(),
                squares: Vec::new(),
                whole: false,
                side: None,
                orientation: None,
                orientation_warned: false,
            };
            match res {
                Err(e) => out.error = Some(e.to_string()),
                Ok(boards) => {
                    let b = BoardReading::primary(&boards).expect("a reading has at least one board");
                    let pred_board: Board = b.placement.parse::<Fen>().expect("own FEN parses").into_setup().board;
                    let want = displayed(&row.board, row.orientation);
                    let got = displayed(&pred_board, b.orientation);
                    out.squares_right = want.iter().zip(&got).filter(|(a, b)| a == b).count();
                    out.exact_ignoring_orientation = out.squares_right == 64;
                    out.orientation_right = b.orientation == row.orientation;
                    out.orientation = Some((b.orientation_source, b.orientation_confidence));
                    out.orientation_warned = b.orientation_uncertain();
                    if b.kind == BoardKind::Physical {
                        // A physical board may be read a quarter turn off (photographed from
                        // beside it): squares are counted at the turn that matches most, and
                        // the orientation is right when that turn is none.
                        let same =
                            |t: &Board| Square::ALL.iter().filter(|&&q| t.piece_at(q) == row.board.piece_at(q)).count();
                        let (best, right) = (0..4)
                            .map(|q| (q, same(&turned(&pred_board, q))))
                            .max_by_key(|&(q, n)| (n, q == 0))
                            .expect("four turns");
                        out.squares_right = right;
                        out.exact_ignoring_orientation = right == 64;
                        out.orientation_right = best == 0;
                    }
                    out.exact = pred_board == row.board;
                    out.predicted = b.placement.clone();
                    out.side = Some((b.side_to_move.color, b.side_to_move.source, b.side_to_move.confidence));
                    let whole = b.check_whole_board().is_some();
                    out.whole = whole;
                    out.flagged = if whole { 64 } else { b.uncertain().len() };
                    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                        let sq = square_shown(i, b.orientation, b.files_reversed);
                        let s = b.squares.iter().find(|s| s.square == sq).expect("64 squares");
                        // A physical board's squares are judged by name: its FEN as printed.
                        let (w, g) =
                            if b.kind == BoardKind::Physical { (&row.board.piece_at(sq), &s.piece) } else { (w, g) };
                        out.squares.push((s.p, s.suspect.is_some(), w != g));
                        if w != g {
                            out.misread += 1;
                            if whole || b.is_uncertain(s) {
                                out.misread_flagged += 1;
                            }
                        }
                    }
                }
            }
            out
        })
        .collect()
}

#[derive(Default)]
struct Tally {
    rows: usize,
    found: usize,
    exact: usize,
    exact_io: usize,
    squares: usize,
    orient: usize,
    misread: usize,
    flagged: usize,
    /// Uncertain squares on boards read exactly (ignoring orientation): needless reviews.
    flagged_on_exact: usize,
    /// Boards to check square by square, and those of them read exactly.
    whole: usize,
    whole_exact: usize,
    ms: Vec<f64>,
}

/// A table's row keys in order, with the "ALL" row last.
fn all_last<T>(rows: &BTreeMap<String, T>) -> Vec<String> {
    let mut keys: Vec<String> = rows.keys().filter(|k| *k != "ALL").cloned().collect();
    keys.push("ALL".into());
    keys
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

/// Markdown tables per kind: all rows, then legal rows only.
pub fn report(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    for (title, legal_only) in [("legal rows", true), ("all rows", false)] {
        let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
        for o in outcomes.iter().filter(|o| !legal_only || o.row.legal) {
            for key in [o.row.kind.clone(), "ALL".to_string()] {
                let t = by_kind.entry(key).or_default();
                t.rows += 1;
                t.ms.push(o.ms);
                if o.error.is_none() {
                    t.found += 1;
                    t.exact += o.exact as usize;
                    t.exact_io += o.exact_ignoring_orientation as usize;
                    t.squares += o.squares_right;
                    t.orient += o.orientation_right as usize;
                    t.misread += o.misread;
                    t.flagged += o.misread_flagged;
                    if o.exact_ignoring_orientation {
                        t.flagged_on_exact += o.flagged;
                    }
                    t.whole += o.whole as usize;
                    t.whole_exact += (o.whole && o.exact_ignoring_orientation) as usize;
                }
            }
        }
        let _ = writeln!(s, "\n{title}:\n");
        let _ = writeln!(s, "| kind | images | boards found | exact | exact ignoring orientation | squares | orientation | misreads flagged | flagged per exact board | median ms |");
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|");
        for kind in all_last(&by_kind) {
            let Some(t) = by_kind.get_mut(&kind) else { continue };
            t.ms.sort_by(f64::total_cmp);
            let med = if t.ms.is_empty() { 0.0 } else { t.ms[t.ms.len() / 2] };
            let _ = writeln!(
                s,
                "| {kind} | {} | {}/{} | {}/{} | {}/{} | {} | {} | {} | {} | {:.1} |",
                t.rows,
                t.found,
                t.rows,
                t.exact,
                t.rows,
                t.exact_io,
                t.rows,
                pct(t.squares, 64 * t.found),
                pct(t.orient, t.found),
                pct(t.flagged, t.misread),
                if t.exact_io == 0 {
                    "-".to_string()
                } else {
                    format!("{:.2}", t.flagged_on_exact as f64 / t.exact_io as f64)
                },
                med
            );
        }
        if let Some(all) = by_kind.get("ALL") {
            let _ = writeln!(
                s,
                "\nBoards to check square by square: {} ({} of them read exactly).",
                all.whole, all.whole_exact
            );
        }
    }
    s
}

/// The side to move as read against the labels, per evidence the picture shows: how often it is
/// right, how often a source other than `default` is claimed, and how often such a claim is
/// wrong, also at confidence 0.99 or more.
pub fn side_report(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| evidence shown | boards | side right | claimed (not default) | claims wrong | claims at >= 0.99 | of them wrong | by last move / check |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    #[derive(Default)]
    struct SideTally {
        boards: usize,
        right: usize,
        claimed: usize,
        claimed_wrong: usize,
        sure: usize,
        sure_wrong: usize,
        by_last_move: usize,
        by_check: usize,
    }
    let mut by: BTreeMap<String, SideTally> = BTreeMap::new();
    for o in outcomes {
        let (Some((want, evidence)), Some((got, source, p))) = (&o.row.to_move, o.side) else { continue };
        let claimed = source != img2fen::TurnSource::Default;
        let wrong = got != *want;
        for key in [evidence.clone(), "ALL".to_string()] {
            let t = by.entry(key).or_default();
            t.boards += 1;
            t.right += !wrong as usize;
            t.claimed += claimed as usize;
            t.claimed_wrong += (claimed && wrong) as usize;
            t.sure += (claimed && p >= 0.99) as usize;
            t.sure_wrong += (claimed && p >= 0.99 && wrong) as usize;
            t.by_last_move += (source == img2fen::TurnSource::LastMove) as usize;
            t.by_check += (source == img2fen::TurnSource::Check) as usize;
        }
    }
    for k in all_last(&by) {
        let Some(t) = by.get(&k) else { continue };
        let _ = writeln!(
            s,
            "| {k} | {} | {} | {} | {} | {} | {} | {} / {} |",
            t.boards,
            pct(t.right, t.boards),
            t.claimed,
            t.claimed_wrong,
            t.sure,
            t.sure_wrong,
            t.by_last_move,
            t.by_check
        );
    }
    s
}

/// Confidence bins for [`reliability`].
const BINS: [(f32, f32); 6] = [(0.5, 0.7), (0.7, 0.9), (0.9, 0.95), (0.95, 0.99), (0.99, 0.999), (0.999, 1.01)];

/// How often the orientation (per source) and the side to move (claims other than `default`)
/// are right at each confidence: whether a confidence means what it says.
pub fn reliability(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| decision | source | confidence | boards | right |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    let mut rows: BTreeMap<(String, String, usize), (usize, usize)> = BTreeMap::new();
    for o in outcomes.iter().filter(|o| o.error.is_none()) {
        let bin = |p: f32| BINS.iter().position(|&(lo, hi)| p >= lo && p < hi).unwrap_or(0);
        if let Some((source, p)) = o.orientation {
            let e = rows.entry(("orientation".into(), source.name().into(), bin(p))).or_default();
            e.0 += 1;
            e.1 += o.orientation_right as usize;
        }
        if let (Some((want, _)), Some((got, source, p))) = (&o.row.to_move, o.side) {
            if source != img2fen::TurnSource::Default {
                let e = rows.entry(("side to move".into(), source.name().into(), bin(p))).or_default();
                e.0 += 1;
                e.1 += (got == *want) as usize;
            }
        }
    }
    for ((what, source, bin), (n, right)) in rows {
        let (lo, hi) = BINS[bin];
        let _ = writeln!(s, "| {what} | {source} | [{lo}, {}) | {n} | {} |", hi.min(1.0), pct(right, n));
    }
    let wrong: Vec<&Outcome> = outcomes.iter().filter(|o| o.error.is_none() && !o.orientation_right).collect();
    let warned = wrong.iter().filter(|o| o.orientation_warned).count();
    let all_warned = outcomes.iter().filter(|o| o.error.is_none() && o.orientation_warned).count();
    let _ = writeln!(
        s,
        "\norientation wrong on {} boards, {warned} of them warned as uncertain; {all_warned} boards warned in all",
        wrong.len()
    );
    s
}

/// Misreads flagged and flagged squares per exactly read board (ignoring orientation) at each
/// threshold, for legal rows and for all rows: the measurement behind the default
/// `--min-confidence`.
pub fn sweep(outcomes: &[Outcome], thresholds: &[f32]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| min confidence | misreads flagged (legal rows) | flagged per exact board (legal rows) | misreads flagged (all rows) | flagged per exact board (all rows) |");
    let _ = writeln!(s, "|---|---|---|---|---|");
    for &t in thresholds {
        let mut cols = Vec::new();
        for legal_only in [true, false] {
            let (mut misread, mut caught, mut exact, mut needless) = (0, 0, 0, 0);
            for o in outcomes.iter().filter(|o| o.error.is_none() && (!legal_only || o.row.legal)) {
                let flags = o.flags_at(t);
                misread += o.squares.iter().filter(|q| q.2).count();
                caught += o.squares.iter().zip(&flags).filter(|(q, &f)| q.2 && f).count();
                if o.exact_ignoring_orientation {
                    exact += 1;
                    needless += flags.iter().filter(|&&f| f).count();
                }
            }
            cols.push(pct(caught, misread));
            cols.push(if exact == 0 { "-".into() } else { format!("{:.2}", needless as f64 / exact as f64) });
        }
        let _ = writeln!(s, "| {t:.2} | {} |", cols.join(" | "));
    }
    s
}

/// One line per miss: file, what went wrong.
pub fn misses(outcomes: &[Outcome]) -> String {
    let mut s = String::new();
    for o in outcomes {
        let name = o.row.file.display();
        if let Some(e) = &o.error {
            let _ = writeln!(s, "{name}: {e}");
        } else if !o.exact {
            let _ = writeln!(
                s,
                "{name}: {} squares wrong ({} flagged), orientation {}; got {} want {}",
                o.misread,
                o.misread_flagged,
                if o.orientation_right { "right" } else { "wrong" },
                o.predicted,
                fen::placement(&o.row.board)
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(fen: &str, flipped: bool, kind: &str) -> Row {
        let board = fen.parse::<Fen>().unwrap().into_setup().board;
        let legal = [Color::White, Color::Black].iter().any(|&t| fen::check_board(&board, t).is_empty());
        Row {
            file: PathBuf::from(format!("{kind}.png")),
            board,
            orientation: if flipped { Orientation::Black } else { Orientation::White },
            kind: kind.into(),
            band: None,
            set: None,
            legal,
            to_move: None,
        }
    }

    #[test]
    fn bands_come_from_the_notes() {
        assert_eq!(band_of("SkalskiP 0220; band 20-40; tilt 25 deg").as_deref(), Some("20-40"));
        assert_eq!(band_of("band overhead; tilt 6 deg").as_deref(), Some("0-20"));
        assert_eq!(band_of("band 40-60"), Some("40-60".into()));
        assert_eq!(band_of("no angle here"), None);
        assert_eq!(set_of("band 20-40; set brutalchess; side white").as_deref(), Some("brutalchess"));
        assert_eq!(
            set_of("tilt 6 deg; set: wooden box set (light table); start").as_deref(),
            Some("wooden box set (light table)")
        );
        assert_eq!(set_of("settled; no set here"), None);
    }

    #[test]
    fn four_quarter_turns_are_none_and_one_moves_a1_to_a8() {
        let board: Board = "8/8/8/8/8/8/8/R7".parse::<Fen>().unwrap().into_setup().board;
        assert_eq!(turned(&board, 4), board);
        let once = turned(&board, 1);
        assert_ne!(once, board);
        assert_eq!(once.occupied().count(), 1);
        let corner = once.occupied().first().unwrap();
        assert!([Square::A8, Square::H1].contains(&corner), "a1 went to {corner:?}");
    }

    fn outcome(
        row: Row,
        squares_right: usize,
        orientation_right: bool,
        misread_flagged: usize,
        flagged: usize,
    ) -> Outcome {
        Outcome {
            flagged,
            exact: squares_right == 64 && orientation_right,
            exact_ignoring_orientation: squares_right == 64,
            squares_right,
            orientation_right,
            misread: 64 - squares_right,
            misread_flagged,
            predicted: String::new(),
            squares: Vec::new(),
            whole: false,
            side: None,
            orientation: None,
            orientation_warned: false,
            ms: 10.0,
            error: None,
            row,
        }
    }

    #[test]
    fn labels_are_read_with_their_legality() {
        let dir = std::env::temp_dir().join(format!("img2fen-eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("labels.csv");
        std::fs::write(
            &csv,
            "file,fen_field1,flipped,kind,notes\n\
             a.png,rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR,1,screenshot,\"start, flipped\"\n\
             b.png,kkkkkkkk/8/8/8/8/8/8/KKKKKKKK,0,screenshot,editor\n",
        )
        .unwrap();
        let rows = read_labels(&csv).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].file, dir.join("a.png"));
        assert_eq!(rows[0].orientation, Orientation::Black);
        assert!(rows[0].legal);
        assert!(!rows[1].legal);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn report_counts_per_kind_and_legal_rows() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let outcomes = vec![
            // Read exactly, with one needless report.
            outcome(row(start, false, "book"), 64, true, 0, 1),
            outcome(row(start, false, "book"), 62, true, 1, 3),
            outcome(row("kk6/8/8/8/8/8/8/KK6", false, "screenshot"), 64, false, 0, 0),
        ];
        let r = report(&outcomes);
        let legal = r.split("all rows:").next().unwrap();
        assert!(legal.contains("| book | 2 | 2/2 | 1/2 | 1/2 | 98.4% | 100.0% | 50.0% | 1.00 | 10.0 |"), "{r}");
        assert!(!legal.contains("| screenshot |"), "{r}");
        assert!(r.contains("| screenshot | 1 | 1/1 | 0/1 | 1/1 | 100.0% | 0.0% | - | 0.00 | 10.0 |"), "{r}");
        assert!(legal.contains("Boards to check square by square: 0 (0 of them read exactly)."), "{r}");
        let mut sent_back = outcome(row(start, false, "book"), 64, true, 0, 64);
        sent_back.whole = true;
        let r = report(&[sent_back]);
        assert!(r.contains("Boards to check square by square: 1 (1 of them read exactly)."), "{r}");
    }

    #[test]
    fn sweep_counts_flags_at_each_threshold() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let mut exact = outcome(row(start, false, "book"), 64, true, 0, 0);
        exact.squares = vec![(0.99, false, false); 64];
        exact.squares[0] = (0.75, false, false); // needless below 0.8
        let mut wrong = outcome(row(start, false, "book"), 63, true, 0, 0);
        wrong.squares = vec![(0.99, false, false); 64];
        wrong.squares[5] = (0.65, false, true); // a misread caught from 0.7 up
        let r = sweep(&[exact.clone(), wrong.clone()], &[0.6, 0.7, 0.8]);
        assert!(r.contains("| 0.60 | 0.0% | 0.00 | 0.0% | 0.00 |"), "{r}");
        assert!(r.contains("| 0.70 | 100.0% | 0.00 |"), "{r}");
        assert!(r.contains("| 0.80 | 100.0% | 1.00 |"), "{r}");
        // A board to check as a whole has every square flagged at any threshold: its sure
        // misread is caught, and on a board read exactly all 64 are needless checks.
        let mut whole = outcome(row(start, false, "book"), 63, true, 0, 0);
        whole.squares = vec![(0.99, false, false); 64];
        whole.squares[9] = (0.98, false, true);
        whole.whole = true;
        let r = sweep(&[exact.clone(), whole], &[0.6]);
        assert!(r.contains("| 0.60 | 100.0% | 0.00 |"), "{r}");
        exact.whole = true;
        let r = sweep(&[exact, wrong], &[0.4, 0.6]);
        assert!(r.contains("| 0.40 | 0.0% | 64.00 |"), "{r}");
        assert!(r.contains("| 0.60 | 0.0% | 64.00 |"), "{r}");
    }
}
