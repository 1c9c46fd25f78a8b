//! Reading a batch: each input decoded and recognised on worker threads, results handed over
//! in input order, and the counts of the end-of-run summary.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use img2fen::{BoardReading, Recognizer};

use crate::inputs::{Input, Opened};
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

/// What one input gave: its boards, and for a PDF page the resolution it was read at.
#[derive(Debug, Default)]
pub struct Readout {
    /// Its boards in reading order.
    pub boards: Vec<BoardReading>,
    /// For a PDF page, the resolution its boards' corners are given at.
    pub dpi: Option<f32>,
}

impl std::ops::Deref for Readout {
    type Target = Vec<BoardReading>;

    fn deref(&self) -> &Vec<BoardReading> {
        &self.boards
    }
}

impl AsRef<[BoardReading]> for Readout {
    fn as_ref(&self) -> &[BoardReading] {
        &self.boards
    }
}

/// What one input gave.
pub type InputResult = Result<Readout, InputError>;

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

/// How many pixels the jobs of a batch may hold decoded at once. Reading a picture peaks at about
/// 7 bytes a pixel (a 16383x16383 WebP: 1.9 GB), so one picture of the largest size img2fen
/// reads (268 megapixels) fits, with room for many small ones, and a batch of large pictures
/// at `-j 16` stays near that one picture's peak instead of sixteen times it: a large picture
/// waits for room rather than every job decoding at once.
pub const PIXEL_BUDGET: u64 = 300_000_000;

/// The batch's pixel budget ([`PIXEL_BUDGET`]), shared by every job.
struct PixelBudget {
    limit: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

static BUDGET: PixelBudget = PixelBudget::new(PIXEL_BUDGET);

/// Room for one picture's pixels, given back when dropped.
struct Room(&'static PixelBudget, u64);

impl PixelBudget {
    const fn new(limit: u64) -> Self {
        PixelBudget { limit, used: Mutex::new(0), freed: Condvar::new() }
    }

    /// Room for `pixels` (at most the whole budget) if they fit beside what other jobs hold now.
    fn try_take(&'static self, pixels: u64) -> Option<Room> {
        let pixels = pixels.min(self.limit);
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        (*used + pixels <= self.limit).then(|| {
            *used += pixels;
            Room(self, pixels)
        })
    }

    /// Waits until `pixels` (at most the whole budget) fit beside what other jobs hold.
    fn take(&'static self, pixels: u64) -> Room {
        let pixels = pixels.min(self.limit);
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        while *used + pixels > self.limit {
            used = self.freed.wait(used).unwrap_or_else(|p| p.into_inner());
        }
        *used += pixels;
        Room(self, pixels)
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        let mut used = self.0.used.lock().unwrap_or_else(|p| p.into_inner());
        *used -= self.1;
        self.0.freed.notify_all();
    }
}

/// Decodes and recognises one input, the `index`th of the batch (it names review pictures),
/// within the batch's pixel budget ([`PIXEL_BUDGET`]).
pub fn read_input(rec: &Recognizer, index: usize, input: &Input, opts: &ReadOptions) -> InputResult {
    if let Input::Page(source, page) = input {
        let read = read_page(rec, source, *page, opts.debug.as_deref());
        source.page_done();
        let read = read?;
        let mut boards = read.boards;
        if let Some(n) = opts.board {
            // On a page, --board keeps the Nth board where there is one; a page with fewer
            // is no error (most pages of a book have none).
            boards = if n <= boards.len() { vec![boards.swap_remove(n - 1)] } else { vec![] };
        }
        if let Some(dir) = &opts.review {
            crate::review::write_pictures(dir, index, &input.name(), &boards)
                .map_err(|e| InputError::Other(format!("cannot write review pictures to {}: {e}", dir.display())))?;
        }
        return Ok(Readout { boards, dpi: read.dpi });
    }
    let bytes = match input {
        Input::File(p) => std::fs::read(p).map_err(|source| img2fen::Error::Read { path: Some(p.clone()), source })?,
        Input::Stdin => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| InputError::Other(format!("cannot read standard input: {e}")))?;
            bytes
        }
        Input::Piped(bytes) => bytes.as_ref().clone(),
        Input::Bad(_, why) => return Err(InputError::Other(why.clone())),
        Input::Page(..) => unreachable!("pages are read above"),
    };
    // A picture that must wait for room does not keep its file's bytes meanwhile.
    // A header that cannot be read takes no room: decoding will say why.
    let pixels = img2fen::picture_size(&bytes).map_or(0, |(w, h)| w as u64 * h as u64);
    let (_room, bytes) = match (BUDGET.try_take(pixels), input) {
        (Some(room), _) => (room, bytes),
        (None, Input::File(p)) => {
            drop(bytes);
            let room = BUDGET.take(pixels);
            (room, std::fs::read(p).map_err(|source| img2fen::Error::Read { path: Some(p.clone()), source })?)
        }
        (None, _) => (BUDGET.take(pixels), bytes),
    };
    let read = match input {
        Input::File(p) => rec.read_picture(&bytes).map_err(|e| e.in_file(p))?,
        _ => rec.read_picture(&bytes)?,
    };
    drop(bytes);
    let img = read.image;
    let mut boards = match read.boards {
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
        // Drawn on the picture as it was read, which a large JPEG's is reduced.
        let shown: Vec<BoardReading> = boards
            .iter()
            .map(|b| BoardReading { corners: b.corners.scaled(1.0 / read.reduction as f64), ..b.clone() })
            .collect();
        crate::debug::write(dir, &debug_stem(input), &img, &shown)
            .map_err(|e| InputError::Other(format!("cannot write debug images to {}: {e}", dir.display())))?;
    }
    if let Some(dir) = &opts.review {
        crate::review::write_pictures(dir, index, &input.name(), &boards)
            .map_err(|e| InputError::Other(format!("cannot write review pictures to {}: {e}", dir.display())))?;
    }
    Ok(Readout { boards, dpi: None })
}

/// Reads page `page` of a PDF or a multi-page TIFF within the batch's pixel budget (a PDF page:
/// room for it at the largest resolution it may be rendered at). A page without a board is no
/// error: most pages of a book have none. With `debug`, a page with boards gets its debug
/// pictures there ([`crate::debug::write`]), named `STEM.pageN`: a PDF page drawn again at the
/// resolution its corners are given at.
fn read_page(
    rec: &Recognizer,
    source: &crate::inputs::PagedSource,
    page: usize,
    debug: Option<&Path>,
) -> Result<Readout, InputError> {
    let in_file = |e: img2fen::Error| match source.path() {
        Some(p) => e.in_file(p),
        None => e,
    };
    let write_debug = |img: &image::DynamicImage, boards: &[BoardReading]| match debug {
        Some(dir) if !boards.is_empty() => {
            let stem = source.path().and_then(|p| p.file_stem()).and_then(|s| s.to_str()).unwrap_or("stdin");
            crate::debug::write(dir, &format!("{stem}.page{}", page + 1), img, boards)
                .map_err(|e| InputError::Other(format!("cannot write debug images to {}: {e}", dir.display())))
        }
        _ => Ok(()),
    };
    match source.opened().map_err(in_file)? {
        Opened::Pdf(doc) => {
            let (w, h) = doc.page_size(page);
            let most = (img2fen::pdf::MAX_DPI / 72.0) as f64;
            let pixels = ((w as f64 * most) * (h as f64 * most)).min(img2fen::pdf::MAX_PAGE_PIXELS as f64) as u64;
            let _room = BUDGET.take(pixels);
            let read = rec.read_pdf_page(&doc, page).map_err(in_file)?;
            if debug.is_some() && !read.boards.is_empty() {
                write_debug(&doc.render(page, read.dpi).map_err(in_file)?.image, &read.boards)?;
            }
            Ok(Readout { boards: read.boards, dpi: Some(read.dpi) })
        }
        Opened::Tiff(bytes, offsets) => {
            let one = img2fen::tiff_page(&bytes, offsets[page]);
            let pixels = img2fen::picture_size(&one).map_or(0, |(w, h)| w as u64 * h as u64);
            let _room = BUDGET.take(pixels);
            let img = img2fen::decode_image(&one).map_err(in_file)?;
            drop(one);
            let boards = match rec.recognize(&img) {
                Err(img2fen::Error::NoBoard { .. } | img2fen::Error::TooSmall { .. }) => vec![],
                other => other.map_err(in_file)?,
            };
            write_debug(&img, &boards)?;
            Ok(Readout { boards, dpi: None })
        }
    }
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
    /// Inputs that are PDF pages, and those of them without a board.
    pub pages: usize,
    pub pages_without_boards: usize,
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
        let pages = match self.pages {
            0 => String::new(),
            n => format!(
                " ({n} PDF page{}, {} without boards)",
                if n == 1 { "" } else { "s" },
                self.pages_without_boards
            ),
        };
        let whole = match self.whole {
            0 => String::new(),
            1 => ", 1 board to check square by square".to_string(),
            n => format!(", {n} boards to check square by square"),
        };
        format!(
            "{} input{}{pages} in {seconds:.1} s ({rate:.1}/s){skipped}: {} board{} read, {} uncertain square{}{whole}, {} failed",
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
    fn a_large_picture_waits_for_room_in_the_pixel_budget() {
        static B: PixelBudget = PixelBudget::new(100);
        let a = B.take(60);
        assert!(B.try_take(50).is_none(), "60 + 50 is over 100");
        let small = B.try_take(40).expect("60 + 40 fits");
        drop(small);
        // A picture over the whole budget takes all of it, when all of it is free.
        let waiter = std::thread::spawn(|| B.take(1_000).1);
        std::thread::sleep(std::time::Duration::from_millis(50));
        assert!(!waiter.is_finished(), "it waits while 60 are held");
        drop(a);
        assert_eq!(waiter.join().unwrap(), 100);
        assert_eq!(*B.used.lock().unwrap(), 0, "every room given back");
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
