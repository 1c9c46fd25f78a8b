//! The `img2fen` command: argument parsing and output; the pipeline lives in the library.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use img2fen::{
    dataset, eval, fen, Backend, BoardReading, Castling, ClassifierOptions, FenOptions, Options, Orientation,
    Recognizer,
};
use serde_json::json;
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
        #[command(flatten)]
        engine: EngineArgs,
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
}

impl EngineArgs {
    fn classifier(&self) -> ClassifierOptions {
        ClassifierOptions { backend: self.backend, ort_lib: self.ort_lib.clone(), model: self.model.clone(), threads: 1 }
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
enum Format {
    /// The FEN alone (PATH<TAB>FEN with several inputs)
    Fen,
    /// JSON Lines, one object per input (see README)
    Json,
}

#[derive(Args)]
struct ReadArgs {
    /// Images to read: files, folders (every image below them, found by content) or - for stdin
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
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
    /// Write what each step saw (corners and grid on the input, the warped board) to this folder
    #[arg(long, value_name = "DIR")]
    debug: Option<PathBuf>,
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
        Some(Command::Eval { labels, misses, engine }) => run_eval(&labels, misses, &engine),
        Some(Command::Dataset { manifest, out, jitter, copies, seed }) => {
            let opts = dataset::DatasetOptions { manifest, out, jitter, copies, seed };
            dataset::build(&opts).map(|n| {
                eprintln!("img2fen: wrote {n} cells to {}", opts.out.display());
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

fn run_eval(labels: &Path, misses: bool, engine: &EngineArgs) -> Result<ExitCode, img2fen::Error> {
    let rows = eval::read_labels(labels)?;
    let rec = Recognizer::new(Options { classifier: engine.classifier(), ..Options::default() })?;
    let outcomes = eval::run(&rec, &rows);
    println!("{} on {} ({} backend)", labels.display(), env!("CARGO_PKG_NAME"), rec.classifier().backend().name());
    print!("{}", eval::report(&outcomes));
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
        ..Options::default()
    };
    let rec = Recognizer::new(opts)?;
    if let Some(dir) = &args.debug {
        std::fs::create_dir_all(dir)
            .map_err(|e| img2fen::Error::Input(format!("{}: cannot create debug folder: {e}", dir.display())))?;
    }
    let inputs = expand_inputs(&args.files);
    let several = inputs.len() > 1;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .map_err(|e| img2fen::Error::Input(format!("cannot start worker threads: {e}")))?;
    // Images are read in parallel; results are printed in input order, each as soon as every
    // earlier one is out.
    let (tx, rx) = std::sync::mpsc::channel::<(usize, f64, Result<Vec<BoardReading>, img2fen::Error>)>();
    let mut failed = false;
    let mut closed = false;
    std::thread::scope(|scope| {
        let rec = &rec;
        let inputs = &inputs;
        scope.spawn(move || {
            pool.install(|| {
                inputs.par_iter().enumerate().for_each_with(tx, |tx, (i, input)| {
                    let t = Instant::now();
                    let result = read_one(rec, input, args.board, args.debug.as_deref());
                    let _ = tx.send((i, t.elapsed().as_secs_f64() * 1000.0, result));
                });
            });
        });
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0;
        for (i, ms, result) in rx {
            pending.insert(i, (ms, result));
            while let Some((ms, result)) = pending.remove(&next) {
                failed |= result.is_err();
                if !closed && !report(args, &inputs[next].name(), several, ms, &result) {
                    // A closed pipe (e.g. `| head`) ends the output quietly.
                    closed = true;
                }
                next += 1;
            }
        }
    });
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Prints one input's result: data on stdout, diagnostics on stderr. False when stdout is closed.
fn report(args: &ReadArgs, name: &str, several: bool, ms: f64, result: &Result<Vec<BoardReading>, img2fen::Error>) -> bool {
    match result {
        Ok(boards) => {
            for (n, b) in boards.iter().enumerate() {
                let which = if boards.len() > 1 { format!("{name}: board {}", n + 1) } else { name.to_string() };
                for w in &b.warnings {
                    eprintln!("{which}: warning: {w}");
                }
                if let Some(u) = b.uncertain_summary() {
                    eprintln!("{which}: {u}");
                }
            }
        }
        Err(e) => eprintln!("img2fen: {name}: {e}"),
    }
    let line = match (args.format, result) {
        // One line per board, in reading order.
        (Format::Fen, Ok(boards)) => boards
            .iter()
            .map(|b| if several { format!("{name}\t{}", b.fen) } else { b.fen.clone() })
            .collect::<Vec<_>>()
            .join("\n"),
        (Format::Fen, Err(_)) => return true,
        (Format::Json, r) => json!({
            "file": name,
            "ms": (ms * 100.0).round() / 100.0,
            "error": r.as_ref().err().map(|e| e.to_string()),
            "boards": r.as_ref().map(|b| b.iter().map(BoardReading::to_json).collect::<Vec<_>>()).unwrap_or_default(),
        })
        .to_string(),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}").and_then(|_| out.flush()).is_ok()
}

/// One input: an image file, standard input (`-`), or a folder in which no image was found.
enum Input {
    File(PathBuf),
    Stdin,
    NoImages(PathBuf),
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::File(p) | Input::NoImages(p) => p.display().to_string(),
            Input::Stdin => "-".to_string(),
        }
    }
}

/// The inputs in order: `-` is standard input; a folder stands for every image below it
/// (recursively, in path order), recognised by its content whatever its name.
fn expand_inputs(args: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    for a in args {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if a.is_dir() {
            let mut files = Vec::new();
            collect_images(a, &mut files);
            files.sort();
            if files.is_empty() {
                out.push(Input::NoImages(a.clone()));
            }
            out.extend(files.into_iter().map(Input::File));
        } else {
            out.push(Input::File(a.clone()));
        }
    }
    out
}

fn collect_images(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_images(&p, out);
        } else if looks_like_image(&p) {
            out.push(p);
        }
    }
}

/// Whether the file starts like a format img2fen decodes.
fn looks_like_image(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 32];
    let n = std::fs::File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    n > 0 && image::guess_format(&head[..n]).is_ok()
}

fn read_one(rec: &Recognizer, input: &Input, board: Option<usize>, debug: Option<&Path>) -> Result<Vec<BoardReading>, img2fen::Error> {
    let img = match input {
        Input::File(p) => img2fen::load_image(p)?,
        Input::Stdin => {
            use std::io::Read;
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| img2fen::Error::Input(format!("cannot read standard input: {e}")))?;
            img2fen::decode_image(&bytes)?
        }
        Input::NoImages(_) => return Err(img2fen::Error::Input("no images in this folder".into())),
    };
    let mut boards = rec.recognize(&img)?;
    if let Some(n) = board {
        if n > boards.len() {
            let found = boards.len();
            return Err(img2fen::Error::Input(format!("no board {n}: {found} found")));
        }
        boards = vec![boards.swap_remove(n - 1)];
    }
    if let Some(dir) = debug {
        let stem = match input {
            Input::File(p) => p.file_stem().and_then(|s| s.to_str()).unwrap_or("image").to_string(),
            _ => "stdin".to_string(),
        };
        let stem = stem.as_str();
        img2fen::debug::write(dir, stem, &img, &boards)
            .map_err(|e| img2fen::Error::Input(format!("cannot write debug images to {}: {e}", dir.display())))?;
    }
    Ok(boards)
}
