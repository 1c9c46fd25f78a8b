//! Pipeline timings: `cargo bench --bench pipeline -- [tract|onnxruntime] [IMAGE|PDF] [RUNS]`.
//!
//! For a PDF, per page: the survey, the render at 150 dpi and the whole reading, then pages a
//! second on one thread and on one per core (see `pdf`).
//!
//! Prints the median and 90th percentile over RUNS runs (default 50, after 3 warm-up runs) of:
//! decode (a large JPEG reduced as `Recognizer::read_picture` decodes it, and whole), grey conversion, locate, warp + cells, classify (64 cells, one batch), the second look
//! at the cells under `SECOND_LOOK_BELOW` (as many as the first board has), the coordinate
//! reader's patches and model (92 patches, one batch), with a physical-board model the tall cells
//! and that model (64 cells, one batch), all steps on
//! the decoded image, and end to end (`Recognizer::read_file`: read file + decode + all steps). `ort` holds one backend per process: run once per backend. ONNX Runtime is found as
//! img2fen finds it (IMG2FEN_ORT_LIB, --ort-lib's places); it runs with one intra-op thread.

use std::time::Instant;

// Keeps freed pages for the next picture instead of returning them to the OS: with the system
// allocator every picture page-faults its decode buffers back in (about 8 ms for 1920x1080).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use img2fen::{cells, locate, Backend, ClassifierOptions, Options, Recognizer};

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[(v.len() * 9) / 10])
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64) {
    for _ in 0..3 {
        std::hint::black_box(f());
    }
    stats(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let backend = match args.first().map(String::as_str).unwrap_or("tract") {
        "onnxruntime" => Backend::Onnxruntime,
        _ => Backend::Tract,
    };
    let image = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/lichess_page_1920x1080.png").to_string());
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(50);
    // IMG2FEN_BENCH_MODEL: time another model file (e.g. a candidate architecture).
    let model = std::env::var_os("IMG2FEN_BENCH_MODEL").map(std::path::PathBuf::from);
    // IMG2FEN_BENCH_PHYSICAL_MODEL: the same for the physical-board model.
    let physical_model = std::env::var_os("IMG2FEN_BENCH_PHYSICAL_MODEL").map(std::path::PathBuf::from);
    // IMG2FEN_BENCH_OCCUPANCY_MODEL: the occupancy model (with IMG2FEN_BENCH_PHYSICAL_MODEL and
    // without this, that model reads every tall cell).
    let occupancy_model = std::env::var_os("IMG2FEN_BENCH_OCCUPANCY_MODEL").map(std::path::PathBuf::from);
    let rec = Recognizer::new(Options {
        classifier: ClassifierOptions { backend, model, physical_model, occupancy_model, ..Default::default() },
        ..Default::default()
    })
    .expect("recognizer");
    let path = std::path::Path::new(&image);
    if image.ends_with(".pdf") {
        pdf(&rec, path, runs);
        return;
    }
    // The steps run on the picture as `Recognizer::read_picture` reads it: a large JPEG reduced.
    let bytes = std::fs::read(path).expect("image");
    let (img, reduction) = rec.decode_for_reading(&bytes).expect("picture");
    let decode = || match reduction {
        1 => img2fen::decode_image(&bytes).unwrap(),
        f => img2fen::decode_reduced(&bytes, f).unwrap(),
    };
    let gray = img2fen::cells::grey(&img);
    let found = locate::locate(&gray, &Default::default());

    let as_read = if reduction > 1 { format!(", read at 1/{reduction}") } else { String::new() };
    println!(
        "{image} ({}x{}{as_read}), backend {}, {runs} runs",
        img.width(),
        img.height(),
        rec.classifier().backend().name()
    );
    let mut rows = vec![("decode".to_string(), time(runs, decode))];
    if reduction > 1 {
        rows.push((
            "decode whole (--full-resolution)".to_string(),
            time(runs, || img2fen::decode_image(&bytes).unwrap()),
        ));
    }
    rows.extend([
        ("grey".to_string(), time(runs, || cells::grey(&img))),
        ("locate".to_string(), time(runs, || locate::locate_all(&gray, &Default::default()))),
    ]);
    match found {
        Some(found) => {
            let cut = cells::Cut::new(&gray, &found.quad);
            let tensor = cells::to_tensor(&cut.board);
            let probs = rec.classifier().classify(&tensor).unwrap();
            let unsure =
                probs.iter().filter(|p| p.iter().copied().fold(0.0, f32::max) < img2fen::SECOND_LOOK_BELOW).count();
            let second_look = format!("second look ({unsure} unsure cells)");
            let (_, patches) = img2fen::orient::label_patches(&gray, &found.quad).readable();
            rows.extend([
                ("warp + cells".to_string(), time(runs, || cells::to_tensor(&cells::extract(&gray, &found.quad)))),
                ("classify (64 cells)".to_string(), time(runs, || rec.classifier().classify(&tensor).unwrap())),
                (second_look, time(runs, || rec.second_look(&cut, &mut probs.clone()).unwrap())),
                (
                    format!("label patches ({})", img2fen::orient::label_sites().len()),
                    time(runs, || img2fen::orient::label_patches(&gray, &found.quad)),
                ),
                (
                    "read coordinates (readable patches)".to_string(),
                    time(runs, || rec.classifier().read_labels(&patches).unwrap()),
                ),
            ]);
            if rec.classifier().reads_physical() {
                let tall = cells::tall_cells(&gray, &found.quad);
                rows.extend([
                    ("tall cells".to_string(), time(runs, || cells::tall_cells(&gray, &found.quad))),
                    (
                        "classify tall (64 cells)".to_string(),
                        time(runs, || rec.classifier().classify_tall(&tall).unwrap()),
                    ),
                ]);
            }
            let kind = rec.recognize(&img).unwrap()[0].kind.name();
            rows.extend([
                (format!("recognize (decoded image; read as {kind})"), time(runs, || rec.recognize(&img).unwrap())),
                ("end to end".to_string(), time(runs, || rec.read_file(path).unwrap())),
                // What a search for text boards costs where it runs beside a board: when a flat
                // one has 8 uncertain squares or more (never beside a physical one).
                ("text search (where it runs)".to_string(), time(runs, || rec.read_text_boards(&gray).unwrap())),
            ]);
        }
        None => {
            // A picture without a board of squares is searched for a text board.
            let text = rec.read_text_boards(&gray).unwrap().0.len();
            rows.extend([
                ("text: glyphs".to_string(), time(runs, || img2fen::textboard::glyphs::find(&gray))),
                (format!("text: search ({text} text boards)"), time(runs, || rec.read_text_boards(&gray).unwrap())),
                ("recognize (decoded image)".to_string(), time(runs, || rec.recognize(&img))),
                ("end to end".to_string(), time(runs, || rec.read_file(path))),
            ]);
        }
    }
    println!("| step | median ms | p90 ms |\n|---|---|---|");
    for (name, (med, p90)) in rows {
        println!("| {name} | {med:.2} | {p90:.2} |");
    }
}

/// A PDF: each page surveyed, rendered at 150 dpi and read whole (`Recognizer::read_pdf_page`,
/// which renders again where the squares are small), per page; then the whole document read
/// RUNS times over on one thread and on one thread per core, in pages a second.
fn pdf(rec: &Recognizer, path: &std::path::Path, runs: usize) {
    use img2fen::pdf::{Document, DEFAULT_DPI};
    let doc = Document::open(std::fs::read(path).expect("PDF")).expect("a PDF");
    let pages = doc.pages();
    let boards: usize = (0..pages).map(|p| rec.read_pdf_page(&doc, p).map_or(0, |r| r.boards.len())).sum();
    println!("{} ({pages} pages, {boards} boards), backend {}", path.display(), rec.classifier().backend().name());
    let per_page = |f: &dyn Fn(usize)| {
        stats(
            (0..pages)
                .map(|p| {
                    let t = Instant::now();
                    f(p);
                    t.elapsed().as_secs_f64() * 1000.0
                })
                .collect(),
        )
    };
    let rows = [
        ("survey (per page)", per_page(&|p| drop(doc.content(p)))),
        ("render at 150 dpi (per page)", per_page(&|p| drop(doc.render(p, DEFAULT_DPI)))),
        ("read (per page)", per_page(&|p| drop(rec.read_pdf_page(&doc, p)))),
    ];
    println!("| step | median ms | p90 ms |\n|---|---|---|");
    for (name, (med, p90)) in rows {
        println!("| {name} | {med:.2} | {p90:.2} |");
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for n in [1, threads] {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let t = Instant::now();
        std::thread::scope(|s| {
            for _ in 0..n {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= pages * runs {
                        break;
                    }
                    drop(rec.read_pdf_page(&doc, i % pages));
                });
            }
        });
        let rate = (pages * runs) as f64 / t.elapsed().as_secs_f64();
        println!("{n} thread(s): {rate:.1} pages/s over {} pages", pages * runs);
    }
}
