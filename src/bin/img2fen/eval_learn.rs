//! `img2fen eval-learn LABELS.csv`: measures learned sets. Rows are grouped by piece set (the
//! notes' "set ..." or, without one, the kind column: `labels-by-set.csv` names the set there);
//! from each group a set is learned from its first picture of the starting position (else its
//! first picture), and the group's other pictures are read with the model alone and with the
//! set.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use img2fen::learn::{self, LearnOptions, LearnPicture, START_PLACEMENT};
use img2fen::{Options, Recognizer};

use crate::engine::EngineArgs;
use crate::eval::{self, Outcome, Row};
use crate::read::KindArg;
use crate::{Failure, Outcome as RunOutcome};

/// Arguments of `img2fen eval-learn`.
#[derive(Args)]
pub struct EvalLearnArgs {
    /// The labels CSV; image paths are relative to its folder
    labels: PathBuf,
    /// Pictures of each set to learn from
    #[arg(long, default_value_t = 1, value_name = "N")]
    learn_from: usize,
    /// Groups with fewer pictures than this are left out
    #[arg(long, default_value_t = 3, value_name = "N")]
    min_rows: usize,
    /// Also write each group's set file into this folder
    #[arg(long, value_name = "DIR")]
    save_sets: Option<PathBuf>,
    /// Cuts of each board learned from (as found, then jittered)
    #[arg(long, default_value_t = LearnOptions::default().copies, value_name = "N")]
    copies: usize,
    /// How far the jittered cuts move each corner, in squares
    #[arg(long, default_value_t = LearnOptions::default().jitter, value_name = "SQUARES")]
    jitter: f64,
    /// The L2 penalties cross-validation chooses from, strongest first
    #[arg(long, value_delimiter = ',', value_name = "L2,L2,...")]
    penalties: Vec<f32>,
    /// What kind of board the pictures show (as the reading command's --kind)
    #[arg(long, value_enum, default_value_t = KindArg::Auto)]
    kind: KindArg,
    #[command(flatten)]
    engine: EngineArgs,
}

#[derive(Default, Clone, Copy)]
struct Tally {
    rows: usize,
    found: usize,
    squares: usize,
    exact: usize,
}

impl Tally {
    fn add(&mut self, outcomes: &[Outcome]) {
        for o in outcomes {
            self.rows += 1;
            if o.error.is_none() {
                self.found += 1;
                self.squares += o.squares_right;
                self.exact += o.exact as usize;
            }
        }
    }

    fn merge(&mut self, t: Tally) {
        self.rows += t.rows;
        self.found += t.found;
        self.squares += t.squares;
        self.exact += t.exact;
    }

    fn squares_pct(&self) -> f64 {
        100.0 * self.squares as f64 / (64 * self.found).max(1) as f64
    }
}

/// The rows a set is learned from: starting positions first, then in file order.
fn learn_rows(rows: &[Row], n: usize) -> Vec<usize> {
    let start: shakmaty::Board = START_PLACEMENT.parse().expect("the starting position");
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| (rows[i].board != start, i));
    order.truncate(n);
    order
}

/// Runs `img2fen eval-learn`.
pub fn run_command(args: &EvalLearnArgs) -> Result<RunOutcome, Failure> {
    let rows = eval::read_labels(&args.labels)?;
    let mut groups: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for r in rows {
        groups.entry(r.set.clone().unwrap_or_else(|| r.kind.clone())).or_default().push(r);
    }
    let mut classifier = args.engine.classifier()?;
    classifier.set = None;
    let options = Options {
        classifier,
        second_look: !args.engine.no_second_look,
        reduce_large_jpegs: !args.engine.full_resolution,
        kind: args.kind.choice(),
        ..Options::default()
    };
    let base = Recognizer::new(options.clone())?;
    let mut learn_opts = LearnOptions { copies: args.copies, jitter: args.jitter, ..LearnOptions::default() };
    if !args.penalties.is_empty() {
        learn_opts.penalties = args.penalties.clone();
    }
    println!(
        "{} on {} ({} backend)\n",
        args.labels.display(),
        env!("CARGO_PKG_NAME"),
        base.classifier().backend().name()
    );
    println!("| set | learned from | its squares: model / set (CV) | learn s | others | found | squares: model → set | exact: model → set |");
    println!("|---|---|---|---|---|---|---|---|");
    let (mut all_model, mut all_set) = (Tally::default(), Tally::default());
    let mut seconds = vec![];
    for (name, rows) in &groups {
        if rows.len() < args.min_rows.max(args.learn_from + 1) {
            continue;
        }
        // The first pictures the set is learned from; one refused (no board found, or not
        // agreeing with its position) makes way for the next, as a user would pick another.
        let order = learn_rows(rows, rows.len());
        let mut chosen: Vec<usize> = vec![];
        let mut images = vec![];
        let mut refusals = vec![];
        let mut secs: f64 = 0.0;
        let mut learned = None;
        for &i in &order {
            if chosen.len() == args.learn_from || rows.len() - chosen.len() - refusals.len() <= 1 {
                break;
            }
            // The set is learned from the pictures chosen so far and this one; the last set
            // learned is the group's.
            images.push(base.load_for_reading(&rows[i].file)?);
            let pictures: Vec<LearnPicture> = chosen
                .iter()
                .chain([&i])
                .zip(&images)
                .map(|(&k, image)| LearnPicture {
                    path: rows[k].file.clone(),
                    image,
                    placement: Some(rows[k].board.board_fen().to_string()),
                })
                .collect();
            let t = Instant::now();
            let result = learn::learn(&base, &pictures, name, &learn_opts);
            drop(pictures);
            match result {
                Ok(set) => {
                    secs = t.elapsed().as_secs_f64();
                    chosen.push(i);
                    learned = Some(set);
                }
                Err(e) => {
                    images.pop();
                    refusals.push((i, e.to_string()));
                }
            }
        }
        let skipped: Vec<usize> = chosen.iter().chain(refusals.iter().map(|(i, _)| i)).copied().collect();
        let others: Vec<Row> = (0..rows.len()).filter(|i| !skipped.contains(i)).map(|i| rows[i].clone()).collect();
        let file = |i: usize| rows[i].file.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let mut files: Vec<String> = chosen.iter().map(|&i| file(i)).collect();
        files.extend(refusals.iter().map(|(i, e)| {
            format!("(refused {}: {})", file(*i), e.trim_start_matches("cannot learn from this picture: "))
        }));
        let mut model = Tally::default();
        model.add(&eval::run(&base, &others));
        let set = match learned {
            None => {
                // No picture could be learned from: the group is read by the model alone.
                println!("| {name} | {} | no set | | {} | | | |", files.join(" "), others.len());
                all_model.merge(model);
                all_set.merge(model);
                continue;
            }
            Some(set) => set,
        };
        seconds.push(secs);
        if let Some(dir) = &args.save_sets {
            std::fs::create_dir_all(dir).map_err(|e| Failure::Output(format!("{}: {e}", dir.display())))?;
            let file: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).take(40).collect();
            set.save(&dir.join(format!("{file}.set.json")))?;
        }
        let q = set.quality;
        let mut with = options.clone();
        with.classifier.set = Some(set);
        let rec = Recognizer::new(with)?;
        let mut read = Tally::default();
        read.add(&eval::run(&rec, &others));
        println!(
            "| {name} | {} | {:.1}% / {:.1}% | {secs:.2} | {} | {} | {:.1}% → {:.1}% | {} → {} |",
            files.join(" "),
            100.0 * q.model_right as f64 / q.squares.max(1) as f64,
            100.0 * q.cross_validated_right as f64 / q.squares.max(1) as f64,
            others.len(),
            read.found,
            model.squares_pct(),
            read.squares_pct(),
            model.exact,
            read.exact
        );
        all_model.merge(model);
        all_set.merge(read);
    }
    println!(
        "| ALL | | | {:.2} (max) | {} | {} | {:.2}% → {:.2}% | {} → {} |",
        seconds.iter().copied().fold(0.0, f64::max),
        all_set.rows,
        all_set.found,
        all_model.squares_pct(),
        all_set.squares_pct(),
        all_model.exact,
        all_set.exact
    );
    Ok(RunOutcome::Read)
}
