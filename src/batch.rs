//! Batch reading: the inputs of a run (files, folders, lists of paths, standard input), read in
//! parallel with results in input order, written as records (FEN, JSON or CSV lines) to standard
//! output or to an output file that a later run can resume.
//!
//! An output file only ever grows by whole records: each input's record (all its lines) goes out
//! in one `write` to a file opened for appending, and `--resume` first cuts a trailing partial
//! line left by a crash, then skips every input the file already names.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde_json::json;

use crate::{BoardReading, Error, Recognizer};

/// One input of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// An image file (or what was named as one: reading it says whether it is).
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
    /// Something named that yields no image to read, with why: a folder without images, a folder
    /// that cannot be listed.
    Bad(PathBuf, String),
}

impl Input {
    /// The name records and messages use: the path as given, or `-`.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) | Input::Bad(p, _) => p.display().to_string(),
            Input::Stdin => "-".to_string(),
        }
    }
}

/// The inputs in order: each of `args`, then each line of `files_from` (a file, or `-` for
/// standard input; empty lines are skipped). `-` is standard input; a folder stands for every
/// image below it, recursively and in path order, recognised by its content whatever its name.
/// Standard input can serve once: as one picture or as the list.
pub fn expand(args: &[PathBuf], files_from: Option<&Path>) -> Result<Vec<Input>, Error> {
    let mut named: Vec<PathBuf> = args.to_vec();
    if let Some(list) = files_from {
        let text = if list.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Error::Input(format!("cannot read the list of files from standard input: {e}")))?;
            s
        } else {
            std::fs::read_to_string(list)
                .map_err(|e| Error::Input(format!("{}: cannot read the list of files: {e}", list.display())))?
        };
        named.extend(
            text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).filter(|l| !l.is_empty()).map(PathBuf::from),
        );
    }
    let stdin_uses = named.iter().filter(|a| a.as_os_str() == "-").count()
        + usize::from(files_from.is_some_and(|f| f.as_os_str() == "-"));
    if stdin_uses > 1 {
        return Err(Error::Input("standard input (-) can be read only once".into()));
    }
    let mut out = Vec::new();
    for a in named {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if a.is_dir() {
            let mut files = Vec::new();
            let listed = collect_images(&a, &mut files);
            files.sort();
            match listed {
                Err(e) => out.push(Input::Bad(a.clone(), e)),
                Ok(()) if files.is_empty() => out.push(Input::Bad(a.clone(), "no images in this folder".into())),
                Ok(()) => {}
            }
            out.extend(files.into_iter().map(Input::File));
        } else {
            out.push(Input::File(a));
        }
    }
    Ok(out)
}

/// Adds every image file below `dir`; the first folder that cannot be listed is the error.
fn collect_images(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list folder {}: {e}", dir.display()))?;
    let mut first_error = Ok(());
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            let r = collect_images(&p, out);
            if first_error.is_ok() {
                first_error = r;
            }
        } else if looks_like_image(&p) {
            out.push(p);
        }
    }
    first_error
}

/// Whether the file starts like a format img2fen decodes.
fn looks_like_image(p: &Path) -> bool {
    let mut head = [0u8; 32];
    let n = File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    n > 0 && image::guess_format(&head[..n]).is_ok()
}

/// What to do with each input besides recognising it.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Keep only the Nth board (1-based) of each picture.
    pub board: Option<usize>,
    /// Write the debug images of each input to this folder.
    pub debug: Option<PathBuf>,
    /// Write the review picture of each board to this folder (see [`crate::review`]).
    pub review: Option<PathBuf>,
}

/// Decodes and recognises one input, the `index`th of the batch (it names review pictures).
pub fn read_input(
    rec: &Recognizer,
    index: usize,
    input: &Input,
    opts: &ReadOptions,
) -> Result<Vec<BoardReading>, Error> {
    let img = match input {
        Input::File(p) => crate::load_image(p)?,
        Input::Stdin => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Error::Input(format!("cannot read standard input: {e}")))?;
            crate::decode_image(&bytes)?
        }
        Input::Bad(_, why) => return Err(Error::Input(why.clone())),
    };
    let mut boards = rec.recognize(&img)?;
    if let Some(n) = opts.board {
        if n > boards.len() {
            let found = boards.len();
            return Err(Error::Input(format!("no board {n}: {found} found")));
        }
        boards = vec![boards.swap_remove(n - 1)];
    }
    if let Some(dir) = &opts.debug {
        let stem = match input {
            Input::File(p) => p.file_stem().and_then(|s| s.to_str()).unwrap_or("image").to_string(),
            _ => "stdin".to_string(),
        };
        crate::debug::write(dir, &stem, &img, &boards)
            .map_err(|e| Error::Input(format!("cannot write debug images to {}: {e}", dir.display())))?;
    }
    if let Some(dir) = &opts.review {
        crate::review::write_pictures(dir, index, &input.name(), &boards)
            .map_err(|e| Error::Input(format!("cannot write review pictures to {}: {e}", dir.display())))?;
    }
    Ok(boards)
}

/// Reads `inputs` on `jobs` worker threads (0: one per core) and hands each result to `done` in
/// input order, as soon as every earlier one has been handed over. Workers take inputs in order,
/// so finished results wait little. When `done` returns false, no new input is started.
pub fn run<R, D>(jobs: usize, inputs: &[Input], read: R, mut done: D) -> Result<(), Error>
where
    R: Fn(usize, &Input) -> Result<Vec<BoardReading>, Error> + Sync,
    D: FnMut(usize, Result<Vec<BoardReading>, Error>) -> bool,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Error::Input(format!("cannot start worker threads: {e}")))?;
    let workers = pool.current_num_threads().min(inputs.len()).max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<Vec<BoardReading>, Error>)>();
    std::thread::scope(|scope| {
        let (next, stop, read) = (&next, &stop, &read);
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..workers {
                    let tx = tx.clone();
                    s.spawn(move |_| loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= inputs.len() || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        if tx.send((i, read(i, &inputs[i]))).is_err() {
                            break;
                        }
                    });
                }
                drop(tx);
            });
        });
        let mut pending = BTreeMap::new();
        let mut expected = 0;
        for (i, result) in rx {
            pending.insert(i, result);
            while let Some(result) = pending.remove(&expected) {
                if !stop.load(Ordering::Relaxed) && !done(expected, result) {
                    stop.store(true, Ordering::Relaxed);
                }
                expected += 1;
            }
        }
    });
    Ok(())
}

/// How records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The FEN alone (after the file name and a tab with several inputs or an output file; failures only on stderr)
    Fen,
    /// JSON Lines, one object per input (see README)
    Json,
    /// CSV with a header, one row per board or failure
    Csv,
}

/// The header line of `--format csv`.
pub const CSV_HEADER: [&str; 9] =
    ["file", "board", "fen", "orientation", "orientation_source", "min_p", "uncertain", "check_whole_board", "error"];

/// One input's record: its lines, each ending with a newline; empty for a FEN record of a
/// failure (failures are reported on stderr). `with_name` puts the input's name before each FEN.
pub fn record(format: Format, name: &str, with_name: bool, result: &Result<Vec<BoardReading>, Error>) -> String {
    match (format, result) {
        (Format::Fen, Ok(boards)) => boards
            .iter()
            .map(|b| if with_name { format!("{name}\t{}\n", b.fen) } else { format!("{}\n", b.fen) })
            .collect(),
        (Format::Fen, Err(_)) => String::new(),
        (Format::Json, r) => {
            let mut line = json!({
                "file": name,
                "error": r.as_ref().err().map(|e| e.to_string()),
                "boards": r.as_ref().map(|b| b.iter().map(BoardReading::to_json).collect::<Vec<_>>()).unwrap_or_default(),
            })
            .to_string();
            line.push('\n');
            line
        }
        (Format::Csv, r) => {
            let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
            let row =
                |w: &mut csv::Writer<Vec<u8>>, fields: [String; 9]| w.write_record(&fields).expect("writing to memory");
            match r {
                Ok(boards) => {
                    for (n, b) in boards.iter().enumerate() {
                        let uncertain: Vec<String> = b.uncertain().iter().map(|s| s.square.to_string()).collect();
                        row(
                            &mut w,
                            [
                                name.to_string(),
                                (n + 1).to_string(),
                                b.fen.clone(),
                                b.orientation.name().to_string(),
                                b.orientation_source.name().to_string(),
                                format!("{:.4}", b.squares.iter().map(|s| s.p).fold(1.0f32, f32::min)),
                                uncertain.join(" "),
                                b.check_whole_board().unwrap_or_default(),
                                String::new(),
                            ],
                        );
                    }
                }
                Err(e) => {
                    let mut fields: [String; 9] = Default::default();
                    fields[0] = name.to_string();
                    fields[8] = e.to_string();
                    row(&mut w, fields)
                }
            }
            String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 fields")
        }
    }
}

/// An output file that grows by whole records.
pub struct OutputFile {
    file: File,
    path: PathBuf,
}

impl OutputFile {
    /// Opens `path` for `format`. Without `resume` the file is started afresh. With `resume` an
    /// existing file is kept: a trailing partial line (from a killed run) is cut, and the names
    /// of the inputs it already holds are returned so that they can be skipped.
    pub fn open(path: &Path, format: Format, resume: bool) -> Result<(OutputFile, HashSet<String>), Error> {
        let fail = |what: &str, e: std::io::Error| Error::Input(format!("{}: cannot {what}: {e}", path.display()));
        let mut done = HashSet::new();
        let mut keep = 0u64;
        if resume && path.exists() {
            let bytes = std::fs::read(path).map_err(|e| fail("read the output file to resume", e))?;
            let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let text = std::str::from_utf8(&bytes[..complete])
                .map_err(|_| Error::Input(format!("{}: not a text file; cannot resume it", path.display())))?;
            done = recorded_names(text, format)
                .map_err(|e| Error::Input(format!("{}: cannot resume: {e}", path.display())))?;
            keep = complete as u64;
        }
        let file =
            OpenOptions::new().create(true).append(true).open(path).map_err(|e| fail("open the output file", e))?;
        file.set_len(keep).map_err(|e| fail("cut the output file", e))?;
        let mut out = OutputFile { file, path: path.to_path_buf() };
        if format == Format::Csv && keep == 0 {
            out.write(&(CSV_HEADER.join(",") + "\n"))?;
        }
        Ok((out, done))
    }

    /// Appends one record in a single write and flushes it to the file.
    pub fn write(&mut self, record: &str) -> Result<(), Error> {
        if record.is_empty() {
            return Ok(());
        }
        self.file
            .write_all(record.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| Error::Input(format!("{}: cannot write: {e}", self.path.display())))
    }
}

/// The input names held by complete records of an output file.
fn recorded_names(text: &str, format: Format) -> Result<HashSet<String>, String> {
    let mut names = HashSet::new();
    match format {
        Format::Fen => {
            for (n, line) in text.lines().enumerate() {
                let (name, _) = line.rsplit_once('\t').ok_or_else(|| {
                    format!("line {} is not NAME<TAB>FEN (was it written with another --format?)", n + 1)
                })?;
                names.insert(name.to_string());
            }
        }
        Format::Json => {
            for (n, line) in text.lines().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line)
                    .map_err(|_| format!("line {} is not JSON (was it written with another --format?)", n + 1))?;
                let name =
                    v.get("file").and_then(|f| f.as_str()).ok_or_else(|| format!("line {} has no \"file\"", n + 1))?;
                names.insert(name.to_string());
            }
        }
        Format::Csv => {
            if text.is_empty() {
                return Ok(names);
            }
            let mut r = csv::Reader::from_reader(text.as_bytes());
            let header = r.headers().map_err(|e| e.to_string())?.clone();
            if header.iter().ne(CSV_HEADER.iter().copied()) {
                // Before the check_whole_board column (2026-12-01), rows had one field less.
                let older = CSV_HEADER.iter().copied().filter(|&h| h != "check_whole_board");
                if header.iter().eq(older) {
                    return Err("it was written by an older img2fen, without the check_whole_board column; \
                                finish it with that version or write a new file"
                        .into());
                }
                return Err("its first line is not img2fen's CSV header (was it written with another --format?)".into());
            }
            for rec in r.records() {
                let rec = rec.map_err(|e| e.to_string())?;
                names.insert(rec.get(0).unwrap_or_default().to_string());
            }
        }
    }
    Ok(names)
}

/// Counts for the end-of-run summary.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub inputs: usize,
    pub skipped: usize,
    pub boards: usize,
    pub uncertain: usize,
    /// Boards to check square by square ([`BoardReading::check_whole_board`]).
    pub whole: usize,
    pub failed: usize,
}

impl Summary {
    pub fn add(&mut self, result: &Result<Vec<BoardReading>, Error>) {
        self.inputs += 1;
        match result {
            Ok(boards) => {
                self.boards += boards.len();
                self.uncertain += boards.iter().map(|b| b.uncertain().len()).sum::<usize>();
                self.whole += boards.iter().filter(|b| b.check_whole_board().is_some()).count();
            }
            Err(_) => self.failed += 1,
        }
    }

    /// E.g. `12 inputs in 0.4 s (30.0/s): 11 boards read, 3 uncertain squares, 1 failed`, with
    /// `, 1 board to check square by square` after the squares when there is one.
    pub fn line(&self, seconds: f64) -> String {
        let rate = if seconds > 0.0 { self.inputs as f64 / seconds } else { 0.0 };
        let skipped = if self.skipped > 0 {
            format!(" ({} skipped: already in the output file)", self.skipped)
        } else {
            String::new()
        };
        let whole = match self.whole {
            0 => String::new(),
            1 => ", 1 board to check square by square".to_string(),
            n => format!(", {n} boards to check square by square"),
        };
        format!(
            "{} input{} in {seconds:.1} s ({rate:.1}/s){skipped}: {} board{} read, {} uncertain square{}{whole}, {} failed",
            self.inputs,
            if self.inputs == 1 { "" } else { "s" },
            self.boards,
            if self.boards == 1 { "" } else { "s" },
            self.uncertain,
            if self.uncertain == 1 { "" } else { "s" },
            self.failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("img2fen-batch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn resume_cuts_a_partial_line_and_returns_the_recorded_names() {
        let d = temp("resume");
        let path = d.join("out.csv");
        let (mut out, done) = OutputFile::open(&path, Format::Csv, false).unwrap();
        assert!(done.is_empty());
        out.write(&record(Format::Csv, "a.png", true, &Err(Error::NoBoard))).unwrap();
        out.write(&record(Format::Csv, "b,c.png", true, &Err(Error::Input("corrupt image".into())))).unwrap();
        drop(out);
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}d.png,1,8/8/8")).unwrap();
        let (_, done) = OutputFile::open(&path, Format::Csv, true).unwrap();
        assert_eq!(done, HashSet::from(["a.png".to_string(), "b,c.png".to_string()]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
        // Another format's file is refused, not overwritten.
        assert!(OutputFile::open(&path, Format::Json, true).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole);
    }

    #[test]
    fn a_fresh_output_file_replaces_the_old_one() {
        let d = temp("fresh");
        let path = d.join("out.fen");
        std::fs::write(&path, "old\tline\n").unwrap();
        let (mut out, done) = OutputFile::open(&path, Format::Fen, false).unwrap();
        assert!(done.is_empty());
        out.write(&record(Format::Fen, "x.png", true, &Err(Error::NoBoard))).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn a_csv_of_an_older_version_is_not_resumed_and_says_why() {
        let d = temp("older-csv");
        let path = d.join("out.csv");
        std::fs::write(&path, "file,board,fen,orientation,orientation_source,min_p,uncertain,error\na.png,1,8/8/8/8/8/8/8/K6k w - - 0 1,white,pieces,0.9,,\n").unwrap();
        let err = OutputFile::open(&path, Format::Csv, true).err().expect("refused").to_string();
        assert!(err.contains("written by an older img2fen, without the check_whole_board column"), "{err}");
        std::fs::write(&path, "{\"file\": \"a.png\"}\n").unwrap();
        let err = OutputFile::open(&path, Format::Csv, true).err().expect("refused").to_string();
        assert!(err.contains("not img2fen's CSV header"), "{err}");
    }

    #[test]
    fn files_from_lists_paths_and_folders() {
        let d = temp("list");
        std::fs::create_dir_all(d.join("empty")).unwrap();
        let list = d.join("list.txt");
        std::fs::write(&list, format!("a.png\r\n\n{}\n-\n", d.join("empty").display())).unwrap();
        let inputs = expand(&[PathBuf::from("first.png")], Some(&list)).unwrap();
        assert_eq!(
            inputs,
            vec![
                Input::File("first.png".into()),
                Input::File("a.png".into()),
                Input::Bad(d.join("empty"), "no images in this folder".into()),
                Input::Stdin,
            ]
        );
        // Standard input named twice (here once on the command line, once in the list) is
        // refused before anything is read.
        let err = expand(&[PathBuf::from("-")], Some(&list)).unwrap_err().to_string();
        assert_eq!(err, "standard input (-) can be read only once");
        let missing = d.join("missing.txt");
        let err = expand(&[], Some(&missing)).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: cannot read the list of files", missing.display())), "{err}");
    }

    #[test]
    fn results_come_back_in_input_order() {
        let inputs: Vec<Input> = (0..40).map(|i| Input::File(PathBuf::from(i.to_string()))).collect();
        let mut seen = Vec::new();
        run(
            2,
            &inputs,
            |_, input| {
                let Input::File(p) = input else { unreachable!() };
                let i: u64 = p.to_str().unwrap().parse().unwrap();
                std::thread::sleep(std::time::Duration::from_millis((i * 7) % 5));
                Err(Error::Input(i.to_string()))
            },
            |i, r| {
                assert_eq!(r.unwrap_err().to_string(), i.to_string());
                seen.push(i);
                i < 30
            },
        )
        .unwrap();
        assert_eq!(seen, (0..=30).collect::<Vec<_>>());
    }
}
