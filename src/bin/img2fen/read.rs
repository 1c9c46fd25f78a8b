//! The default command, `img2fen [OPTIONS] FILE...`: read every input, write one record each,
//! report on stderr what a person should check.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{ArgAction, Args, ValueEnum};
use img2fen::{fen, BoardKind, BoardReading, Castling, FenOptions, Options, Orientation, Recognizer, TurnSource};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shakmaty::Color;

use crate::batch::{self, InputResult, ReadOptions, Summary};
use crate::engine::EngineArgs;
use crate::inputs::{self, Input};
use crate::output::{self, Format};
use crate::resume::OutputFile;
use crate::{review, Failure, Outcome};

/// `--orientation`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrientationArg {
    /// Decide from the picture
    Auto,
    /// White at the bottom
    White,
    /// Black at the bottom
    Black,
}

/// `--kind`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindArg {
    /// Decide for each board from the picture
    Auto,
    /// A diagram, screen or print: pieces drawn inside their squares
    Flat,
    /// A real set on a table: pieces standing up
    Physical,
}

impl KindArg {
    /// The recognizer's option: `None` decides for each board.
    pub fn choice(self) -> Option<BoardKind> {
        match self {
            KindArg::Auto => None,
            KindArg::Flat => Some(BoardKind::Flat),
            KindArg::Physical => Some(BoardKind::Physical),
        }
    }
}

/// `--progress`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Progress {
    /// When stderr is a terminal and there are several inputs
    Auto,
    /// Always
    Always,
    /// Never
    Never,
}

/// The default command's arguments. User options come first in `--help`; the inference options
/// (`EngineArgs`) after them.
#[derive(Args)]
pub struct ReadArgs {
    /// Images to read: files, folders (every image below them, found by content) or - for stdin
    #[arg(required_unless_present = "files_from", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// White to move (the default)
    #[arg(short = 'w', long, conflicts_with = "black_to_move", help_heading = "Position")]
    white_to_move: bool,
    /// Black to move
    #[arg(short = 'b', long, help_heading = "Position")]
    black_to_move: bool,
    /// The side to move: w, b, or auto (from the picture: a highlighted last move or a king in
    /// check; White when it shows neither). -w and -b win over auto
    #[arg(long, value_name = "SIDE", value_parser = parse_to_move, help_heading = "Position")]
    to_move: Option<ToMove>,
    /// Castling rights: some of KQkq, '-', or 'auto' (every right whose king and rook are home)
    #[arg(long, default_value = "-", value_parser = parse_castling, help_heading = "Position")]
    castling: Castling,
    /// En passant target square (e.g. e3), '-', or 'auto' (from a highlighted two-square pawn
    /// advance, when a capture en passant is possible)
    #[arg(long, default_value = "-", value_parser = parse_en_passant, value_name = "SQ", help_heading = "Position")]
    en_passant: EnPassant,
    /// Halfmove clock
    #[arg(long, default_value_t = 0, value_name = "N", help_heading = "Position")]
    halfmove: u32,
    /// Fullmove number
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..),
          help_heading = "Position")]
    fullmove: u32,
    /// Which side is at the bottom of the picture
    #[arg(long, value_enum, default_value_t = OrientationArg::Auto, help_heading = "Position")]
    orientation: OrientationArg,
    /// What kind of board the pictures show
    #[arg(long, value_enum, default_value_t = KindArg::Auto, help_heading = "Position")]
    kind: KindArg,
    /// Learn a piece set from the first picture, whose position is FEN (field 1, from White; the
    /// starting position without one), and read every picture with it: frames or photos of one game
    #[arg(long, value_name = "FEN", num_args = 0..=1, require_equals = true, default_missing_value = "", conflicts_with = "set",
          help_heading = "Learned sets")]
    learn_first: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Fen, help_heading = "Output")]
    format: Format,
    /// Write the records to this file as each image is done, instead of to standard output
    #[arg(short = 'o', long, value_name = "FILE", help_heading = "Output")]
    output: Option<PathBuf>,
    /// Keep the records already in --output and skip the inputs they name
    #[arg(long, requires = "output", conflicts_with = "force", help_heading = "Output")]
    resume: bool,
    /// Replace an existing --output file
    #[arg(long, requires = "output", help_heading = "Output")]
    force: bool,
    /// Squares whose best class is less probable than this are reported as uncertain (0 to 1)
    #[arg(long, default_value_t = img2fen::DEFAULT_MIN_CONFIDENCE, value_name = "P", value_parser = parse_probability,
          help_heading = "Output")]
    min_confidence: f32,
    /// Exit with status 3 when every input was read but some board has squares to check or an uncertain side at the bottom
    #[arg(long, help_heading = "Output")]
    strict: bool,
    /// Only records on stdout and errors on stderr: no warnings, uncertain squares, progress or summary
    #[arg(short = 'q', long, conflicts_with = "verbose", help_heading = "Output")]
    quiet: bool,
    /// Also say, per board, where it was found and what decided its orientation
    #[arg(short = 'v', long, action = ArgAction::Count, help_heading = "Output")]
    verbose: u8,
    /// Write a review page to this folder: per board, the picture beside the board redrawn
    /// from the FEN (uncertain squares outlined), and index.html for the whole batch
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    review: Option<PathBuf>,
    /// Write what each step saw (corners and grid on the input, the warped board) to this folder
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    debug: Option<PathBuf>,
    /// Also read the images listed in this file, one path a line (- for stdin)
    #[arg(long, value_name = "LIST", help_heading = "Batch")]
    files_from: Option<PathBuf>,
    /// Pages of PDFs and multi-page TIFFs to read, e.g. 3-40,55 or 10- (default: every page)
    #[arg(long, value_name = "PAGES", value_parser = inputs::PageSet::parse, help_heading = "Batch")]
    pages: Option<inputs::PageSet>,
    /// Read PDF pages from their pictures alone: diagrams a book sets in a chess font are
    /// otherwise read from its text layer (exact), and checked against the picture
    #[arg(long, help_heading = "Batch")]
    no_text_layer: bool,
    /// Read only the Nth board of each picture (1 = first in reading order); default: all
    #[arg(long, value_name = "N", value_parser = parse_board, help_heading = "Batch")]
    board: Option<usize>,
    /// Images read at once (default: one per core)
    #[arg(short = 'j', long, value_name = "N", help_heading = "Batch")]
    jobs: Option<usize>,
    /// Progress bar on stderr: auto = when stderr is a terminal and there are several inputs
    #[arg(long, value_enum, default_value_t = Progress::Auto, help_heading = "Batch")]
    progress: Progress,
    #[command(flatten)]
    engine: EngineArgs,
}

fn parse_castling(s: &str) -> Result<Castling, String> {
    s.parse()
}

fn parse_board(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}' is not a board number (1, 2, ...)")),
    }
}

/// A probability: a number from 0 to 1 (not NaN).
pub fn parse_probability(s: &str) -> Result<f32, String> {
    match s.parse::<f32>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("'{s}' is not a probability (a number from 0 to 1)")),
    }
}

/// `--en-passant`: a square, none for `-`, or from the picture for `auto`.
#[derive(Clone, Copy)]
enum EnPassant {
    Given(Option<shakmaty::Square>),
    Auto,
}

fn parse_en_passant(s: &str) -> Result<EnPassant, String> {
    if s == "auto" {
        return Ok(EnPassant::Auto);
    }
    fen::parse_en_passant(s).map(EnPassant::Given).map_err(|e| format!("{e}, or 'auto'"))
}

/// `--to-move`: a side, or from the picture.
#[derive(Clone, Copy)]
enum ToMove {
    Given(Color),
    Auto,
}

fn parse_to_move(s: &str) -> Result<ToMove, String> {
    match s {
        "w" | "white" => Ok(ToMove::Given(Color::White)),
        "b" | "black" => Ok(ToMove::Given(Color::Black)),
        "auto" => Ok(ToMove::Auto),
        _ => Err(format!("'{s}' is not a side to move: use w, b or auto")),
    }
}

impl ReadArgs {
    /// The side to move the flags give: `-w` or `-b`, else `--to-move w|b`.
    fn turn_given(&self) -> Option<Color> {
        match (self.white_to_move, self.black_to_move, self.to_move) {
            (true, _, _) => Some(Color::White),
            (_, true, _) => Some(Color::Black),
            (_, _, Some(ToMove::Given(c))) => Some(c),
            _ => None,
        }
    }

    fn options(&self) -> Result<Options, img2fen::Error> {
        Ok(Options {
            classifier: self.engine.classifier()?,
            orientation: match self.orientation {
                OrientationArg::Auto => None,
                OrientationArg::White => Some(Orientation::White),
                OrientationArg::Black => Some(Orientation::Black),
            },
            fen: FenOptions {
                turn: self.turn_given().unwrap_or(Color::White),
                turn_given: self.turn_given().is_some(),
                turn_from_picture: matches!(self.to_move, Some(ToMove::Auto)),
                castling: self.castling.clone(),
                en_passant: match self.en_passant {
                    EnPassant::Given(sq) => sq,
                    EnPassant::Auto => None,
                },
                en_passant_from_picture: matches!(self.en_passant, EnPassant::Auto),
                halfmove: self.halfmove,
                fullmove: self.fullmove,
            },
            min_confidence: self.min_confidence,
            second_look: !self.engine.no_second_look,
            reduce_large_jpegs: !self.engine.full_resolution,
            kind: self.kind.choice(),
            text_layer: !self.no_text_layer,
            ..Options::default()
        })
    }
}

/// Refuses an output file that would destroy something: an existing file without `--resume` or
/// `--force`, or one of the inputs.
fn check_output(path: &Path, args: &ReadArgs, inputs: &[Input]) -> Result<(), Failure> {
    let Ok(out) = path.canonicalize() else { return Ok(()) };
    for input in inputs {
        let file = match input {
            Input::File(p) => Some(p.as_path()),
            Input::Page(source, _) => source.path(),
            _ => None,
        };
        if let Some(p) = file {
            if p.canonicalize().is_ok_and(|p| p == out) {
                return Err(Failure::Usage(format!(
                    "{}: the output file is also an input; writing it would destroy that input",
                    path.display()
                )));
            }
        }
    }
    if !args.resume && !args.force {
        return Err(Failure::Usage(format!(
            "{}: the output file exists; pass --resume to keep its records and read only what is missing, \
             or --force to replace it",
            path.display()
        )));
    }
    Ok(())
}

/// `--learn-first`: the set learned from the first input, whose position is `fen` (the starting
/// position when empty), with a recognizer built from `options`.
fn learn_from_first(first: &Input, fen: &str, options: Options, quiet: bool) -> Result<img2fen::LearnedSet, Failure> {
    let Input::File(path) = first else {
        return Err(Failure::Usage("--learn-first needs the first input to be a picture file".into()));
    };
    let base = Recognizer::new(options)?;
    let image = base.load_for_reading(path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?;
    let placement = Some(fen.trim().to_string()).filter(|f| !f.is_empty());
    let pictures = [img2fen::learn::LearnPicture { path: path.clone(), image: &image, placement }];
    let t = Instant::now();
    let name = path.file_stem().map_or_else(|| "first".into(), |s| s.to_string_lossy().into_owned());
    let set = img2fen::learn::learn(&base, &pictures, &name, &img2fen::learn::LearnOptions::default())
        .map_err(crate::learn::learn_failure)?;
    if !quiet {
        let q = set.quality;
        eprintln!(
            "img2fen: learned the set '{name}' from {} in {:.1} s (held-out squares: model {}/{n}, set {}/{n})",
            path.display(),
            t.elapsed().as_secs_f64(),
            q.model_right,
            q.cross_validated_right,
            n = q.squares
        );
    }
    Ok(set)
}

/// Runs the default command.
pub fn run(args: &ReadArgs) -> Result<Outcome, Failure> {
    let (inputs, skipped) = inputs::expand(&args.files, args.files_from.as_deref())?;
    let mut inputs = inputs::open_documents(inputs, args.pages.as_ref());
    if let Some(line) = skipped.describe().filter(|_| !args.quiet) {
        eprintln!("img2fen: {line}");
    }
    if inputs.is_empty() {
        let list = args.files_from.as_deref().map_or("-".into(), |p| p.display().to_string());
        return Err(Failure::Usage(format!("{list}: the list of files is empty")));
    }
    let several = inputs.len() > 1;
    let first = inputs[0].clone();
    let mut summary = Summary::default();
    let mut output = match &args.output {
        Some(path) => {
            check_output(path, args, &inputs)?;
            let (file, done) = OutputFile::open(path, args.format, args.resume)?;
            let before = inputs.len();
            // An input is done when the file names it as given or names the same file another
            // way (`./dir/a.png` after a run on `dir`). A recorded name that is itself one of
            // the inputs stands for that input alone: a file named twice (`a.png` and a link
            // to it) keeps a record for each name.
            let given: std::collections::HashSet<String> = inputs.iter().map(Input::name).collect();
            let done_files: std::collections::HashSet<(PathBuf, Option<usize>)> = done
                .iter()
                .filter(|n| !given.contains(*n))
                .filter_map(|n| {
                    let (file, page) = match n.rsplit_once("#page=") {
                        Some((file, page)) if page.parse::<usize>().is_ok() => (file, page.parse().ok()),
                        _ => (n.as_str(), None),
                    };
                    Some((Path::new(file).canonicalize().ok()?, page))
                })
                .collect();
            inputs.retain(|i| {
                let same_file = match i {
                    Input::File(p) => p.canonicalize().is_ok_and(|c| done_files.contains(&(c, None))),
                    Input::Page(source, page) => source
                        .path()
                        .and_then(|p| p.canonicalize().ok())
                        .is_some_and(|c| done_files.contains(&(c, Some(page + 1)))),
                    _ => false,
                };
                !done.contains(&i.name()) && !same_file
            });
            summary.skipped = before - inputs.len();
            Some(file)
        }
        None => None,
    };
    let mut options = args.options()?;
    if let Some(fen) = &args.learn_first {
        options.classifier.set = Some(learn_from_first(&first, fen, options.clone(), args.quiet)?);
    }
    let rec = Recognizer::new(options)?;
    prepare_folders(args)?;
    let bar = progress_bar(args, inputs.len());
    let read_opts = ReadOptions { board: args.board, debug: args.debug.clone(), review: args.review.clone() };
    let mut review = Vec::new();
    let with_name = several || output.is_some();
    let started = Instant::now();
    let mut write_error = None;
    let mut to_check = 0usize;
    // An output file gets its CSV header when it is created (resume::OutputFile); standard
    // output gets it here.
    if output.is_none() && args.format == Format::Csv {
        if let Err(e) = write_stdout(&(output::CSV_HEADER.join(",") + "\n")) {
            write_error = stdout_failure(e);
        }
    }
    batch::run(
        args.jobs.unwrap_or(0),
        &inputs,
        |i, input| batch::read_input(&rec, i, input, &read_opts),
        |i, result| {
            let name = inputs[i].name();
            summary.add(&result);
            if matches!(inputs[i], Input::Page(..)) {
                summary.pages += 1;
                summary.pages_without_boards += usize::from(result.as_ref().is_ok_and(|r| r.boards.is_empty()));
            }
            if let Ok(boards) = &result {
                to_check += boards.iter().filter(|b| b.needs_checking()).count();
            }
            if args.review.is_some() {
                review.push(review::Entry::of(i, &name, &result));
            }
            if !args.quiet {
                bar.suspend(|| diagnostics(&name, &result, args.verbose));
            } else if let Err(e) = &result {
                eprintln!("img2fen: {name}: {e}");
            }
            bar.inc(1);
            let page = match &inputs[i] {
                Input::Page(source, page) => Some(output::PageOf {
                    file: source.name(),
                    number: page + 1,
                    dpi: result.as_ref().ok().and_then(|r| r.dpi),
                }),
                _ => None,
            };
            let text = output::record(args.format, &name, with_name, page.as_ref(), &result);
            match &mut output {
                Some(file) => match file.write(&text) {
                    Ok(()) => true,
                    Err(e) => {
                        write_error = Some(e);
                        false
                    }
                },
                // A closed pipe (e.g. `| head`) ends the run quietly; any other write error
                // (a full disk) ends it with a message.
                None => match write_stdout(&text) {
                    Ok(()) => write_error.is_none(),
                    Err(e) => {
                        write_error = stdout_failure(e);
                        false
                    }
                },
            }
        },
    )?;
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some(dir) = &args.review {
        write_review_page(dir, &review, args.quiet)?;
    }
    if (several || summary.skipped > 0) && !args.quiet {
        eprintln!("img2fen: {}", summary.line(started.elapsed().as_secs_f64()));
    }
    Ok(if summary.failed > 0 {
        Outcome::SomeFailed
    } else if args.strict && to_check > 0 {
        Outcome::NeedsChecking
    } else {
        Outcome::Read
    })
}

/// Creates the debug and review folders, and clears an earlier review out of the review folder
/// so that its page shows this run's boards only.
fn prepare_folders(args: &ReadArgs) -> Result<(), Failure> {
    for (dir, what) in [(&args.debug, "debug"), (&args.review, "review")] {
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| Failure::Output(format!("{}: cannot create {what} folder: {e}", dir.display())))?;
        }
    }
    if let Some(dir) = &args.review {
        review::clear(dir).map_err(|e| Failure::Output(format!("{}: cannot clear old review: {e}", dir.display())))?;
    }
    Ok(())
}

/// Writes the review page of the batch to `dir/index.html`.
fn write_review_page(dir: &Path, entries: &[review::Entry], quiet: bool) -> Result<(), Failure> {
    let page = dir.join("index.html");
    std::fs::write(&page, review::index_html(entries))
        .map_err(|e| Failure::Output(format!("{}: cannot write: {e}", page.display())))?;
    if !quiet {
        eprintln!("img2fen: review page: {}", page.display());
    }
    Ok(())
}

/// Writes to standard output; false when it is closed (e.g. `| head`).
fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes()).and_then(|_| out.flush())
}

/// What a failed write to standard output ends the run with: nothing for a closed pipe (a
/// reader such as `head` has all it wants), else a write error.
fn stdout_failure(e: std::io::Error) -> Option<Failure> {
    (e.kind() != std::io::ErrorKind::BrokenPipe).then(|| Failure::Output(format!("standard output: write error: {e}")))
}

fn progress_bar(args: &ReadArgs, inputs: usize) -> ProgressBar {
    let show = match args.progress {
        _ if args.quiet => false,
        Progress::Auto => inputs > 1 && std::io::stderr().is_terminal(),
        Progress::Always => true,
        Progress::Never => false,
    };
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(inputs as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} images, {rate}, {eta} left")
            .expect("a valid template")
            .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", state.per_sec());
            }),
    );
    bar
}

/// One input's diagnostics on stderr: a failure, or each board's warnings and uncertain squares
/// (and with `-v`, where it was found and what decided its orientation).
fn diagnostics(name: &str, result: &InputResult, verbose: u8) {
    match result {
        Ok(boards) => {
            for (n, b) in boards.iter().enumerate() {
                let which = if boards.len() > 1 { format!("{name}: board {}", n + 1) } else { name.to_string() };
                if verbose > 0 {
                    eprintln!("{which}: {}", details(b));
                }
                for w in &b.warnings {
                    eprintln!("{which}: warning: {w}");
                }
                if let Some(hint) = side_to_move_hint(b) {
                    eprintln!("{which}: hint: {hint}");
                }
                if let Some(why) = b.check_whole_board() {
                    eprintln!("{which}: check every square: {why}");
                }
                if let Some(u) = b.uncertain_summary() {
                    eprintln!("{which}: {u}");
                }
            }
        }
        Err(e) => eprintln!("img2fen: {name}: {e}"),
    }
}

/// `-v`'s line for a board: where it was found and what decided its orientation.
fn details(b: &BoardReading) -> String {
    let corners: Vec<String> = b.corners.0.iter().map(|p| format!("({:.0},{:.0})", p.x, p.y)).collect();
    format!(
        "{} board, corners {}, {}/49 grid corners seen; {} at the bottom, from the {} ({:.0}%); {} to move, from the {} ({:.0}%); lowest square {:.0}%",
        b.kind.name(),
        corners.join(" "),
        b.corners_found,
        b.orientation.name(),
        b.orientation_source.name(),
        b.orientation_confidence * 100.0,
        b.side_to_move.color,
        b.side_to_move.source.name().replace('_', " "),
        b.side_to_move.confidence * 100.0,
        b.min_p() * 100.0
    )
}

/// When the side not to move is in check, the flag that says the other side is to move; none
/// when the picture decided (`--to-move auto` reads the check itself).
fn side_to_move_hint(b: &BoardReading) -> Option<String> {
    if !matches!(b.side_to_move.source, TurnSource::Default | TurnSource::Flag) {
        return None;
    }
    let setup: shakmaty::fen::Fen = b.fen.parse().ok()?;
    let setup = setup.as_setup();
    let mover = fen::side_to_move_from_check(&setup.board, setup.turn)?;
    let flag = if mover == Color::Black { "-b (--black-to-move)" } else { "-w (--white-to-move)" };
    let or_auto = if b.side_to_move.source == TurnSource::Default { ", or --to-move auto" } else { "" };
    Some(format!("{} gives check: if {mover} is to move, pass {flag}{or_auto}", !mover))
}
