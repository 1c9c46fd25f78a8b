//! `img2fen learn-set -o SET PICTURE[=FEN]...`: learns a piece set from pictures whose position
//! is known ([`img2fen::learn`]) and writes the set file that `--set` reads.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use img2fen::learn::{self, LearnOptions, LearnPicture, LearnedSet};
use img2fen::{Options, Recognizer};

use crate::engine::EngineArgs;
use crate::read::KindArg;
use crate::{Failure, Outcome};

/// Arguments of `img2fen learn-set`.
#[derive(Args)]
pub struct LearnArgs {
    /// Pictures of the set, each PICTURE=FEN (FEN field 1 as seen from White) or PICTURE alone
    /// for the starting position
    #[arg(required = true, value_name = "PICTURE[=FEN]")]
    pictures: Vec<String>,
    /// The set file to write (JSON)
    #[arg(short, long, value_name = "SET")]
    out: PathBuf,
    /// The set's name (default: the set file's name without extension)
    #[arg(long)]
    name: Option<String>,
    /// Overwrite an existing set file
    #[arg(long)]
    force: bool,
    /// What kind of board the pictures show (as the reading command's --kind)
    #[arg(long, value_enum, default_value_t = KindArg::Auto)]
    kind: KindArg,
    #[command(flatten)]
    engine: EngineArgs,
}

/// Splits `PICTURE=FEN` at its last `=` when what follows has a `/` (FEN has no `=`; a file name
/// may) and the whole is no file: a FEN that does not parse is then refused as one.
pub fn split_picture(arg: &str) -> (PathBuf, Option<String>) {
    if let Some((path, fen)) = arg.rsplit_once('=') {
        if fen.contains('/') && !Path::new(arg).exists() {
            return (PathBuf::from(path), Some(fen.trim().to_string()));
        }
    }
    (PathBuf::from(arg), None)
}

/// How a failed learning ends the run: a refused picture with its file first, as every message
/// about an input; anything else (a model that does not load) as the library says it.
pub fn learn_failure(e: img2fen::Error) -> Failure {
    match e.path() {
        Some(p) if matches!(e, img2fen::Error::Mismatch { .. }) => Failure::Usage(format!("{}: {e}", p.display())),
        _ => e.into(),
    }
}

/// The set's name from its file: `club.set.json` is `club`.
fn default_name(path: &Path) -> String {
    let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    name.split('.').next().filter(|s| !s.is_empty()).unwrap_or("set").to_string()
}

/// Runs `img2fen learn-set`.
pub fn run_command(args: &LearnArgs) -> Result<Outcome, Failure> {
    if args.out.exists() && !args.force {
        return Err(Failure::Usage(format!("{}: exists; pass --force to overwrite it", args.out.display())));
    }
    let mut classifier = args.engine.classifier()?;
    classifier.set = None;
    let rec = Recognizer::new(Options {
        classifier,
        second_look: !args.engine.no_second_look,
        reduce_large_jpegs: !args.engine.full_resolution,
        kind: args.kind.choice(),
        ..Options::default()
    })?;
    let given: Vec<(PathBuf, Option<String>)> = args.pictures.iter().map(|a| split_picture(a)).collect();
    let mut images = vec![];
    for (path, _) in &given {
        // Decoded as the set's pictures will be read: a large JPEG reduced.
        images.push(rec.load_for_reading(path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))?);
    }
    let pictures: Vec<LearnPicture> = given
        .iter()
        .zip(&images)
        .map(|((path, placement), image)| LearnPicture { path: path.clone(), image, placement: placement.clone() })
        .collect();
    let name = args.name.clone().unwrap_or_else(|| default_name(&args.out));
    let t = Instant::now();
    let set = learn::learn(&rec, &pictures, &name, &LearnOptions::default()).map_err(learn_failure)?;
    let seconds = t.elapsed().as_secs_f64();
    set.save(&args.out)?;
    eprint!("{}", summary(&set, seconds, &args.out));
    Ok(Outcome::Read)
}

/// What learning found, for a person.
pub fn summary(set: &LearnedSet, seconds: f64, out: &Path) -> String {
    let mut s = String::new();
    for src in &set.sources {
        s += &format!(
            "{}: White at the {}; the model alone reads {}/64 squares as given\n",
            src.file, src.white_at, src.agreed
        );
    }
    let q = &set.quality;
    let pct = |n: usize| 100.0 * n as f64 / q.squares.max(1) as f64;
    s += &format!(
        "set '{}' ({} boards) learned in {seconds:.1} s from {} squares: the model alone reads {:.1}% of them, \
         the set {:.1}% ({}-fold cross-validation: each square read by a set learned without it)\n",
        set.name,
        set.model.kind().name(),
        q.squares,
        pct(q.model_right),
        pct(q.cross_validated_right),
        q.folds
    );
    if q.l2.is_none() {
        s += "no head read the held-out squares better than the model alone: the set reads as the model does\n";
    }
    s += &format!("wrote {}; read with it: img2fen --set {} PICTURES\n", out.display(), out.display());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_argument_splits_at_a_fen_only() {
        let (p, f) = split_picture("start.jpg");
        assert_eq!((p, f), (PathBuf::from("start.jpg"), None));
        let (p, f) = split_picture("a=b.png=8/8/8/8/8/8/8/K6k");
        assert_eq!((p, f.as_deref()), (PathBuf::from("a=b.png"), Some("8/8/8/8/8/8/8/K6k")));
        // Not a placement after the '=': the whole argument is the file.
        let (p, f) = split_picture("x=y.png");
        assert_eq!((p, f), (PathBuf::from("x=y.png"), None));
        assert_eq!(default_name(Path::new("sets/club.set.json")), "club");
    }
}
