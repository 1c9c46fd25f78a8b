//! Reading a batch: each input decoded and recognised on worker threads, results handed over
//! in input order, and the counts of the end-of-run summary.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use img2fen::{BoardReading, Recognizer};

use crate::inputs::Input;
use crate::Failure;

/// Why one input gave no boards: the library's error (it could not be read, decoded or has no
/// board), or the CLI's own (a folder without images, a board number beyond those found, a
/// debug folder that cannot be written).
#[derive(Debug)]
pub enum InputError {
    /// From the library.
    Read(img2fen::Error),
    /// From the CLI.
    Other(String),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::Read(e) => e.fmt(f),
            InputError::Other(why) => f.write_str(why),
        }
    }
}

impl From<img2fen::Error> for InputError {
    fn from(e: img2fen::Error) -> Self {
        InputError::Read(e)
    }
}

/// What one input gave.
pub type InputResult = Result<Vec<BoardReading>, InputError>;

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
pub fn read_input(rec: &Recognizer, index: usize, input: &Input, opts: &ReadOptions) -> InputResult {
    let img = match input {
        Input::File(p) => img2fen::load_image(p)?,
        Input::Stdin => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| InputError::Other(format!("cannot read standard input: {e}")))?;
            img2fen::decode_image(&bytes)?
        }
        Input::Bad(_, why) => return Err(InputError::Other(why.clone())),
    };
    let mut boards = match rec.recognize(&img) {
        Err(e @ img2fen::Error::NoBoard { .. }) => {
            // The debug picture shows what came nearest to a board.
            if let Some(dir) = &opts.debug {
                crate::debug::write_nearest(dir, &debug_stem(input), &img, &rec.options().locate)
                    .map_err(|e| InputError::Other(format!("cannot write debug images to {}: {e}", dir.display())))?;
            }
            return Err(e.into());
        }
        result => result?,
    };
    if let Some(n) = opts.board {
        if n > boards.len() {
            let found = boards.len();
            return Err(InputError::Other(format!("no board {n}: {found} found")));
        }
        boards = vec![boards.swap_remove(n - 1)];
    }
    if let Some(dir) = &opts.debug {
        crate::debug::write(dir, &debug_stem(input), &img, &boards)
            .map_err(|e| InputError::Other(format!("cannot write debug images to {}: {e}", dir.display())))?;
    }
    if let Some(dir) = &opts.review {
        crate::review::write_pictures(dir, index, &input.name(), &boards)
            .map_err(|e| InputError::Other(format!("cannot write review pictures to {}: {e}", dir.display())))?;
    }
    Ok(boards)
}

/// The name of an input's debug pictures: its file stem, or `stdin`.
fn debug_stem(input: &Input) -> String {
    match input {
        Input::File(p) => p.file_stem().and_then(|s| s.to_str()).unwrap_or("image").to_string(),
        _ => "stdin".to_string(),
    }
}

/// Reads `inputs` on `jobs` worker threads (0: one per core; never more than inputs) and hands each result to `done` in
/// input order, as soon as every earlier one has been handed over. Workers take inputs in order,
/// so finished results wait little. When `done` returns false, no new input is started.
pub fn run<R, D>(jobs: usize, inputs: &[Input], read: R, mut done: D) -> Result<(), Failure>
where
    R: Fn(usize, &Input) -> InputResult + Sync,
    D: FnMut(usize, InputResult) -> bool,
{
    // No more threads than inputs: `-j 20000` on two pictures starts two.
    let jobs = match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(inputs.len())
    .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start worker threads: {e}")))?;
    let workers = pool.current_num_threads().min(inputs.len()).max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, InputResult)>();
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
    pub fn add(&mut self, result: &InputResult) {
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
                Err(InputError::Other(i.to_string()))
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
