//! The `img2fen` command: argument parsing and output; the pipeline lives in the library.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use img2fen::batch::{self, Format, OutputFile, ReadOptions, Summary};
use img2fen::{
    dataset, eval, fen, Backend, BoardReading, Castling, ClassifierOptions, FenOptions, Options, Orientation,
    Recognizer,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use shakmaty::Color;

// Keeps freed pages for the next picture instead of returning them to the OS: with the system
// allocator every picture page-faults its decode buffers back in (about 8 ms for 1920x1080).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "img2fen",
    version,
    about = "Read a chess position out of a picture and print it as FEN",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    read: ReadArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Measure accuracy on a labelled folder (CSV columns: file,fen_field1,flipped,kind)
    Eval {
        /// The labels CSV; image paths are relative to its folder
        labels: PathBuf,
        /// Also list every image that was not read exactly
        #[arg(long)]
        misses: bool,
        /// Squares whose best class is less probable than this count as flagged
        #[arg(long, default_value_t = img2fen::DEFAULT_MIN_CONFIDENCE, value_name = "P")]
        min_confidence: f32,
        /// Also print misreads flagged and flagged squares per exact board at these thresholds
        #[arg(long, value_delimiter = ',', value_name = "P,P,...")]
        sweep: Vec<f32>,
        #[command(flatten)]
        engine: EngineArgs,
    },
    /// Measure the board finder on rendered scenes with known corners (scripts/make_scenes.py)
    EvalLocate {
        /// scenes.jsonl; image paths are relative to its folder
        scenes: PathBuf,
        /// Also list the pictures with a missed or a false board
        #[arg(long)]
        misses: bool,
        /// Pictures located at once (1 gives undisturbed timings)
        #[arg(short = 'j', long, default_value_t = 1)]
        jobs: usize,
    },
    /// Cut training cells from rendered boards with the pipeline's own geometry
    Dataset {
        /// JSON Lines manifest: {"image": PATH, "corners": [[x,y]x4], "labels": 64 classes}
        #[arg(long)]
        manifest: PathBuf,
        /// Output folder for cells.npy, labels.npy, boards.npy
        #[arg(long)]
        out: PathBuf,
        /// Largest corner displacement, in squares
        #[arg(long, default_value_t = 0.06)]
        jitter: f64,
        /// Cuts per board (the first is exact when more than one)
        #[arg(long, default_value_t = 2)]
        copies: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Cut coordinate-label patches (from the manifest's "glyphs") instead of cells
        #[arg(long)]
        labels: bool,
    },
}

#[derive(Args)]
struct EngineArgs {
    /// Inference engine: auto = ONNX Runtime when its library is found, else tract
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Path to libonnxruntime (else $IMG2FEN_ORT_LIB, $ORT_DYLIB_PATH, or next to the executable)
    #[arg(long, value_name = "PATH")]
    ort_lib: Option<PathBuf>,
    /// Piece model (ONNX) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    model: Option<PathBuf>,
    /// Coordinate model (ONNX) to use instead of the built-in one
    #[arg(long, value_name = "PATH")]
    coords_model: Option<PathBuf>,
    /// Classify each cell once: no second look at the unsure ones from slightly moved boards
    #[arg(long)]
    no_second_look: bool,
}

impl EngineArgs {
    fn classifier(&self) -> ClassifierOptions {
        ClassifierOptions {
            backend: self.backend,
            ort_lib: self.ort_lib.clone(),
            model: self.model.clone(),
            label_model: self.coords_model.clone(),
            threads: 1,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OrientationArg {
    /// Decide from the picture
    Auto,
    /// White at the bottom
    White,
    /// Black at the bottom
    Black,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Progress {
    Auto,
    Always,
    Never,
}

#[derive(Args)]
struct ReadArgs {
    /// Images to read: files, folders (every image below them, found by content) or - for stdin
    #[arg(required_unless_present = "files_from", value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Also read the images listed in this file, one path a line (- for stdin)
    #[arg(long, value_name = "LIST")]
    files_from: Option<PathBuf>,
    /// Write the records to this file as each image is done, instead of to standard output
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Keep the records already in --output and skip the inputs they name
    #[arg(long, requires = "output")]
    resume: bool,
    /// White to move (the default)
    #[arg(short = 'w', long, conflicts_with = "black_to_move")]
    white_to_move: bool,
    /// Black to move
    #[arg(short = 'b', long)]
    black_to_move: bool,
    /// Castling rights: some of KQkq, '-', or 'auto' (every right whose king and rook are home)
    #[arg(long, default_value = "-", value_parser = parse_castling)]
    castling: Castling,
    /// En passant target square (e.g. e3), or '-'
    #[arg(long, default_value = "-", value_parser = parse_en_passant, value_name = "SQ")]
    en_passant: EnPassant,
    /// Halfmove clock
    #[arg(long, default_value_t = 0, value_name = "N")]
    halfmove: u32,
    /// Fullmove number
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    fullmove: u32,
    /// Which side is at the bottom of the picture
    #[arg(long, value_enum, default_value_t = OrientationArg::Auto)]
    orientation: OrientationArg,
    /// Squares whose best class is less probable than this are reported as uncertain
    #[arg(long, default_value_t = img2fen::DEFAULT_MIN_CONFIDENCE, value_name = "P")]
    min_confidence: f32,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Fen)]
    format: Format,
    /// Progress bar on stderr: auto = when stderr is a terminal and there are several inputs
    #[arg(long, value_enum, default_value_t = Progress::Auto)]
    progress: Progress,
    /// Write what each step saw (corners and grid on the input, the warped board) to this folder
    #[arg(long, value_name = "DIR")]
    debug: Option<PathBuf>,
    /// Write a review page to this folder: per board, the picture beside the board redrawn
    /// from the FEN (uncertain squares outlined), and index.html for the whole batch
    #[arg(long, value_name = "DIR")]
    review: Option<PathBuf>,
    /// Read only the Nth board of each picture (1 = first in reading order); default: all
    #[arg(long, value_name = "N", value_parser = parse_board)]
    board: Option<usize>,
    /// Images read at once (default: one per core)
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,
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

/// `--en-passant`: a square, or none for `-`.
#[derive(Clone, Copy)]
struct EnPassant(Option<shakmaty::Square>);

fn parse_en_passant(s: &str) -> Result<EnPassant, String> {
    fen::parse_en_passant(s).map(EnPassant)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Eval { labels, misses, min_confidence, sweep, engine }) => {
            run_eval(&labels, misses, min_confidence, &sweep, &engine)
        }
        Some(Command::EvalLocate { scenes, misses, jobs }) => img2fen::scenes::run(&scenes, jobs).map(|outcomes| {
            println!("{}: board finder", scenes.display());
            print!("{}", img2fen::scenes::report(&outcomes));
            if misses {
                println!();
                print!("{}", img2fen::scenes::misses(&outcomes));
            }
            ExitCode::SUCCESS
        }),
        Some(Command::Dataset { manifest, out, jitter, copies, seed, labels }) => {
            let opts = dataset::DatasetOptions { manifest, out, jitter, copies, seed, labels };
            dataset::build(&opts).map(|n| {
                let what = if labels { "label patches" } else { "cells" };
                eprintln!("img2fen: wrote {n} {what} to {}", opts.out.display());
                ExitCode::SUCCESS
            })
        }
        None => run_read(&cli.read),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("img2fen: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_eval(
    labels: &Path,
    misses: bool,
    min_confidence: f32,
    sweep: &[f32],
    engine: &EngineArgs,
) -> Result<ExitCode, img2fen::Error> {
    let rows = eval::read_labels(labels)?;
    let rec = Recognizer::new(Options {
        classifier: engine.classifier(),
        min_confidence,
        second_look: !engine.no_second_look,
        ..Options::default()
    })?;
    let outcomes = eval::run(&rec, &rows);
    println!("{} on {} ({} backend)", labels.display(), env!("CARGO_PKG_NAME"), rec.classifier().backend().name());
    print!("{}", eval::report(&outcomes));
    if !sweep.is_empty() {
        println!("\nthreshold sweep:\n");
        print!("{}", eval::sweep(&outcomes, sweep));
    }
    if misses {
        println!();
        print!("{}", eval::misses(&outcomes));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_read(args: &ReadArgs) -> Result<ExitCode, img2fen::Error> {
    let opts = Options {
        classifier: args.engine.classifier(),
        orientation: match args.orientation {
            OrientationArg::Auto => None,
            OrientationArg::White => Some(Orientation::White),
            OrientationArg::Black => Some(Orientation::Black),
        },
        fen: FenOptions {
            turn: if args.black_to_move { Color::Black } else { Color::White },
            castling: args.castling.clone(),
            en_passant: args.en_passant.0,
            halfmove: args.halfmove,
            fullmove: args.fullmove,
        },
        min_confidence: args.min_confidence,
        second_look: !args.engine.no_second_look,
        ..Options::default()
    };
    let mut inputs = batch::expand(&args.files, args.files_from.as_deref())?;
    let several = inputs.len() > 1;
    let mut summary = Summary::default();
    let mut output = match &args.output {
        Some(path) => {
            let (file, done) = OutputFile::open(path, args.format, args.resume)?;
            let before = inputs.len();
            inputs.retain(|i| !done.contains(&i.name()));
            summary.skipped = before - inputs.len();
            Some(file)
        }
        None => None,
    };
    let rec = Recognizer::new(opts)?;
    for (dir, what) in [(&args.debug, "debug"), (&args.review, "review")] {
        if let Some(dir) = dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| img2fen::Error::Input(format!("{}: cannot create {what} folder: {e}", dir.display())))?;
        }
    }
    let show_bar = match args.progress {
        Progress::Auto => inputs.len() > 1 && std::io::stderr().is_terminal(),
        Progress::Always => true,
        Progress::Never => false,
    };
    let bar = if show_bar {
        let bar = ProgressBar::with_draw_target(Some(inputs.len() as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} images, {rate}, {eta} left")
                .expect("a valid template")
                .with_key("rate", |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.1}/s", state.per_sec());
                }),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let read_opts = ReadOptions { board: args.board, debug: args.debug.clone(), review: args.review.clone() };
    let mut review = Vec::new();
    let with_name = several || output.is_some();
    let started = Instant::now();
    let mut write_error = None;
    // An output file gets its CSV header when it is created (batch::OutputFile); standard
    // output gets it here.
    if output.is_none() && args.format == Format::Csv {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all((batch::CSV_HEADER.join(",") + "\n").as_bytes()).and_then(|_| out.flush());
    }
    batch::run(
        args.jobs.unwrap_or(0),
        &inputs,
        |i, input| batch::read_input(&rec, i, input, &read_opts),
        |i, result| {
            let name = inputs[i].name();
            summary.add(&result);
            if args.review.is_some() {
                review.push(img2fen::review::Entry {
                    name: name.clone(),
                    boards: result.as_ref().map_or(Vec::new(), |boards| {
                        boards
                            .iter()
                            .enumerate()
                            .map(|(n, b)| {
                                (img2fen::review::picture_name(i, &name, n), img2fen::review::BoardSummary::of(b))
                            })
                            .collect()
                    }),
                    error: result.as_ref().err().map(|e| e.to_string()),
                });
            }
            bar.suspend(|| diagnostics(&name, &result));
            bar.inc(1);
            let text = batch::record(args.format, &name, with_name, &result);
            match &mut output {
                Some(file) => match file.write(&text) {
                    Ok(()) => true,
                    Err(e) => {
                        write_error = Some(e);
                        false
                    }
                },
                // A closed pipe (e.g. `| head`) ends the run quietly.
                None => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(text.as_bytes()).and_then(|_| out.flush()).is_ok()
                }
            }
        },
    )?;
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(e);
    }
    if let Some(dir) = &args.review {
        let page = dir.join("index.html");
        std::fs::write(&page, img2fen::review::index_html(&review))
            .map_err(|e| img2fen::Error::Input(format!("{}: cannot write: {e}", page.display())))?;
        eprintln!("img2fen: review page: {}", page.display());
    }
    if several || summary.skipped > 0 {
        eprintln!("img2fen: {}", summary.line(started.elapsed().as_secs_f64()));
    }
    Ok(if summary.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// One input's diagnostics on stderr: a failure, or each board's warnings and uncertain squares.
fn diagnostics(name: &str, result: &Result<Vec<BoardReading>, img2fen::Error>) {
    match result {
        Ok(boards) => {
            for (n, b) in boards.iter().enumerate() {
                let which = if boards.len() > 1 { format!("{name}: board {}", n + 1) } else { name.to_string() };
                for w in &b.warnings {
                    eprintln!("{which}: warning: {w}");
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
