//! The localisation benchmark: `img2fen eval-locate SCENES.jsonl` over pictures rendered by
//! `scripts/img2fen_training/render/scenes.py`, each with the exact corners of every board in it (or none).
//!
//! A true board is found when a located board's corners lie on average within half a square of
//! its corners; the corner error of a found board is the mean distance of its four corners from
//! the true ones, in squares. A located board that matches no true board is a false board.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::Deserialize;

use clap::Args;
use img2fen::geometry::{Point, Quad};
use img2fen::{cells, locate};

use crate::{Failure, Outcome};

/// Arguments of `img2fen eval-locate`.
#[derive(Args)]
pub struct EvalLocateArgs {
    /// scenes.jsonl; image paths are relative to its folder
    scenes: PathBuf,
    /// Also list the pictures with a missed or a false board
    #[arg(long)]
    misses: bool,
    /// Pictures located at once (1 gives undisturbed timings)
    #[arg(short = 'j', long, default_value_t = 1)]
    jobs: usize,
}

/// Runs `img2fen eval-locate` and prints its tables.
pub fn run_command(args: &EvalLocateArgs) -> Result<Outcome, Failure> {
    let outcomes = run(&args.scenes, args.jobs)?;
    println!("{}: board finder", args.scenes.display());
    print!("{}", report(&outcomes));
    if args.misses {
        println!();
        print!("{}", misses(&outcomes));
    }
    Ok(Outcome::Read)
}

#[derive(Debug, Deserialize)]
struct SceneBoard {
    corners: [[f64; 2]; 4],
}

#[derive(Debug, Deserialize)]
struct Scene {
    image: PathBuf,
    kind: String,
    boards: Vec<SceneBoard>,
}

/// What the board finder did on one picture.
#[derive(Debug, Clone)]
pub struct SceneOutcome {
    pub image: PathBuf,
    pub kind: String,
    pub size: (u32, u32),
    pub boards: usize,
    /// Corner error (in squares) of each true board found.
    pub found: Vec<f64>,
    pub false_boards: usize,
    /// False boards whose centre lies on a true board: that board, misplaced (a rank or a file
    /// off, a corner astray).
    pub misplaced: usize,
    /// Time of the locate step alone (grey picture in, boards out).
    pub locate_ms: f64,
    pub error: Option<String>,
}

/// Mean distance between corresponding corners, in squares of the true board, with the found
/// corners taken from whichever corner matches best: a board photographed from beside it has its
/// a8 corner anywhere, and which corner is which is the orientation step's business.
pub fn corner_error(truth: &Quad, found: &Quad) -> f64 {
    let square = truth.mean_side() / 8.0;
    (0..4)
        .map(|k| (0..4).map(|i| truth.0[i].dist(found.0[(i + k) % 4])).sum::<f64>() / 4.0 / square)
        .fold(f64::INFINITY, f64::min)
}

/// Runs the board finder on every scene listed in `path` (images relative to its folder), on
/// `jobs` threads (1 gives undisturbed timings).
pub fn run(path: &Path, jobs: usize) -> Result<Vec<SceneOutcome>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let root = path.parent().unwrap_or(Path::new("."));
    let scenes: Vec<Scene> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| Failure::Usage(format!("{}: line {}: {e}", path.display(), i + 1)))
        })
        .collect::<Result<_, _>>()?;
    let one = |s: &Scene| -> SceneOutcome {
        let mut out = SceneOutcome {
            image: s.image.clone(),
            kind: s.kind.clone(),
            size: (0, 0),
            boards: s.boards.len(),
            found: Vec::new(),
            false_boards: 0,
            misplaced: 0,
            locate_ms: 0.0,
            error: None,
        };
        let img = match img2fen::load_image(&root.join(&s.image)) {
            Ok(img) => img,
            Err(e) => {
                out.error = Some(e.to_string());
                return out;
            }
        };
        out.size = (img.width(), img.height());
        let grey = cells::grey(&img);
        let t = Instant::now();
        let located = locate::locate_all_colour(&img, &grey, &Default::default());
        out.locate_ms = t.elapsed().as_secs_f64() * 1000.0;
        drop(img);
        let truths: Vec<Quad> = s.boards.iter().map(|b| Quad(b.corners.map(|[x, y]| Point { x, y }))).collect();
        let mut used = vec![false; located.len()];
        for t in &truths {
            let best = located
                .iter()
                .enumerate()
                .filter(|(i, _)| !used[*i])
                .map(|(i, l)| (i, corner_error(t, &l.quad)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((i, err)) = best {
                if err < 0.5 {
                    used[i] = true;
                    out.found.push(err);
                }
            }
        }
        out.false_boards = used.iter().filter(|u| !**u).count();
        out.misplaced = located
            .iter()
            .zip(&used)
            .filter(|(l, u)| !**u && truths.iter().any(|t| t.contains(l.quad.centre())))
            .count();
        out
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start worker threads: {e}")))?;
    Ok(pool.install(|| scenes.par_iter().map(one).collect()))
}

fn percentile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The benchmark table, one row per kind of picture and one for all pictures with boards.
pub fn report(outcomes: &[SceneOutcome]) -> String {
    let mut by_kind: BTreeMap<&str, Vec<&SceneOutcome>> = BTreeMap::new();
    for o in outcomes {
        by_kind.entry(o.kind.as_str()).or_default().push(o);
        if o.boards > 0 {
            by_kind.entry("all with boards").or_default().push(o);
        }
    }
    let mut s = String::new();
    writeln!(
        s,
        "| kind | pictures | boards | found | corner error median | p90 | p99 | false boards (misplaced) | pictures with a false board | locate median ms | p90 ms |"
    )
    .unwrap();
    writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|").unwrap();
    for (kind, os) in by_kind {
        let boards: usize = os.iter().map(|o| o.boards).sum();
        let errs: Vec<f64> = os.iter().flat_map(|o| o.found.iter().copied()).collect();
        let falses: usize = os.iter().map(|o| o.false_boards).sum();
        let misplaced: usize = os.iter().map(|o| o.misplaced).sum();
        let with_false = os.iter().filter(|o| o.false_boards > 0).count();
        let ms: Vec<f64> = os.iter().filter(|o| o.error.is_none()).map(|o| o.locate_ms).collect();
        let found = if boards > 0 {
            format!("{} ({:.1}%)", errs.len(), 100.0 * errs.len() as f64 / boards as f64)
        } else {
            "-".into()
        };
        let e = |q| if errs.is_empty() { "-".to_string() } else { format!("{:.3}", percentile(&errs, q)) };
        writeln!(
            s,
            "| {kind} | {} | {boards} | {found} | {} | {} | {} | {falses} ({misplaced}) | {with_false} ({:.1}%) | {:.1} | {:.1} |",
            os.len(),
            e(0.5),
            e(0.9),
            e(0.99),
            100.0 * with_false as f64 / os.len() as f64,
            percentile(&ms, 0.5),
            percentile(&ms, 0.9)
        )
        .unwrap();
    }
    s
}

/// The pictures where a board was missed or a false one found, worst first.
pub fn misses(outcomes: &[SceneOutcome]) -> String {
    let mut s = String::new();
    for o in outcomes {
        if let Some(e) = &o.error {
            writeln!(s, "- {} ({}): {e}", o.image.display(), o.kind).unwrap();
        } else if o.found.len() < o.boards || o.false_boards > 0 {
            writeln!(
                s,
                "- {} ({}, {}x{}): {} of {} boards found, {} false ({} misplaced)",
                o.image.display(),
                o.kind,
                o.size.0,
                o.size.1,
                o.found.len(),
                o.boards,
                o.false_boards,
                o.misplaced
            )
            .unwrap();
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_error_is_in_squares() {
        let t = Quad::rect(0.0, 0.0, 800.0, 800.0);
        let mut f = t;
        f.0[0].x += 10.0; // a tenth of a square on one corner
        assert!((corner_error(&t, &f) - 0.025).abs() < 1e-9);
        assert_eq!(corner_error(&t, &t), 0.0);
    }
}
