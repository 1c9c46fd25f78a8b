//! The `img2fen` command. This file only parses the command line and dispatches to one module
//! per subcommand; exit codes and the one error line of a failed run are decided here alone.
//!
//! Exit codes: 0 every input was read; 1 some input could not be read or has no board; 2 a
//! usage error, or output that could not be written (the run stops); 3 with `--strict`, every
//! input read but some board has squares to check or an uncertain side at the bottom.

pub mod batch;
pub mod completions;
pub mod dataset;
pub mod debug;
pub mod engine;
pub mod eval;
pub mod eval_learn;
pub mod eval_locate;
pub mod inputs;
pub mod learn;
pub mod output;
pub mod read;
pub mod resume;
pub mod review;

/// What the unit tests of the modules share.
#[cfg(test)]
mod test_support {
    use std::path::PathBuf;

    /// A fresh, empty folder for one test.
    pub fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("img2fen-batch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Keeps freed pages for the next picture instead of returning them to the OS: with the system
// allocator every picture page-faults its decode buffers back in (about 8 ms for 1920x1080).
// Not under the fuzzer, whose sanitizer watches the system allocator.
#[cfg(not(fuzzing))]
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EXAMPLES: &str = "\
Examples:
  img2fen screenshot.png                       the FEN of every board in the picture
  img2fen photo.jpg -b --castling auto         Black to move, castling rights from the position
  img2fen book-scans/ --format csv -o book.csv every image below book-scans/, one CSV row a board
  img2fen book-scans/ --format csv -o book.csv --resume   finish an interrupted run
  img2fen shots/ --review review/              a page to check the uncertain squares by eye
  img2fen learn-set -o club.set.json start.jpg learn a piece set from a photo of the starting position
  img2fen --set club.set.json game/            read with it

Exit status: 0 every input read; 1 some input unreadable or without a board; 2 usage or output
error; 3 with --strict, some board has squares to check or an uncertain side at the bottom.";

#[derive(Parser)]
#[command(
    name = "img2fen",
    about = "Read a chess position out of a picture and print it as FEN",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    disable_help_subcommand = true,
    subcommand_value_name = "COMMAND",
    help_template = "{about}\n\n{usage-heading} {usage}\n\n{all-args}{after-help}"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    read: read::ReadArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Learn a piece set from pictures whose position is known; read with it by --set SET
    LearnSet(learn::LearnArgs),
    /// Measure accuracy on a labelled folder (CSV columns: file,fen_field1,flipped,kind)
    Eval(eval::EvalArgs),
    /// Measure learned sets: learn each set of a labelled folder from one picture, read the rest
    EvalLearn(eval_learn::EvalLearnArgs),
    /// Measure the board finder on rendered scenes with known corners (scripts/img2fen_training/render/scenes.py)
    EvalLocate(eval_locate::EvalLocateArgs),
    /// Cut training cells from rendered boards with the pipeline's own geometry
    Dataset(dataset::DatasetArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff)
    Manpage,
}

/// Why a run stopped before it read every input. Every kind exits 2: the inputs were never all
/// looked at, or their results could not be kept.
#[derive(Debug)]
pub enum Failure {
    /// The command line asks for something img2fen cannot do (beyond what clap checks).
    Usage(String),
    /// Records, pictures or pages could not be written.
    Output(String),
    /// The library failed outside any one input (a model that does not load).
    Library(img2fen::Error),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Usage(why) | Failure::Output(why) => f.write_str(why),
            Failure::Library(e) => e.fmt(f),
        }
    }
}

impl From<img2fen::Error> for Failure {
    fn from(e: img2fen::Error) -> Self {
        Failure::Library(e)
    }
}

/// How a run that did not stop ended, for its exit code.
pub enum Outcome {
    /// Every input read (and, with `--strict`, no board to check).
    Read,
    /// Some input could not be read or has no board.
    SomeFailed,
    /// With `--strict`: every input read, but some board has squares to check or an uncertain side at the bottom.
    NeedsChecking,
}

fn main() -> ExitCode {
    run(std::env::args_os())
}

/// The whole command on `args` (the first is the program's name), as `main` runs it; the fuzz
/// target `batch` runs it too.
pub fn run(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    let matches = command().get_matches_from(args);
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Some(Command::LearnSet(args)) => learn::run_command(&args),
        Some(Command::Eval(args)) => eval::run_command(&args),
        Some(Command::EvalLearn(args)) => eval_learn::run_command(&args),
        Some(Command::EvalLocate(args)) => eval_locate::run_command(&args),
        Some(Command::Dataset(args)) => dataset::run_command(&args),
        Some(Command::Completions(args)) => completions::completions(&args),
        Some(Command::Manpage) => completions::manpage(),
        None => read::run(&cli.read),
    };
    match result {
        Ok(Outcome::Read) => ExitCode::SUCCESS,
        Ok(Outcome::SomeFailed) => ExitCode::from(1),
        Ok(Outcome::NeedsChecking) => ExitCode::from(3),
        Err(e) => {
            eprintln!("img2fen: {e}");
            ExitCode::from(2)
        }
    }
}

/// The clap definition with the version line that names the models and the examples after the
/// options: what completions and the manual page are generated from.
pub fn definition() -> clap::Command {
    <Cli as clap::CommandFactory>::command().version(engine::version()).after_help(EXAMPLES)
}

/// The definition as `--help` shows it: clap lists subcommands before options, so the developer
/// commands are hidden from clap's list and listed after the user's options instead.
fn command() -> clap::Command {
    let cmd = definition();
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    let listed: String = cmd
        .get_subcommands()
        .map(|s| format!("\n  {:<12} {}", s.get_name(), s.get_about().map(|a| a.to_string()).unwrap_or_default()))
        .collect();
    let mut cmd = cmd.after_help(format!("Developer commands (img2fen COMMAND --help):{listed}\n\n{EXAMPLES}"));
    for name in names {
        cmd = cmd.mut_subcommand(name, |s| s.hide(true));
    }
    cmd
}
