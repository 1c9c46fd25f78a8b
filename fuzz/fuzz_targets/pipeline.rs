//! Arbitrary bytes through the whole pipeline: decode (every format, EXIF orientation, size
//! limits, pictures of every size up to them), or a PDF's pages rendered and read, then locate,
//! warp, cut, classify on tract, orient and assemble, plus every output record.
//!
//! Run: `scripts/fuzz.sh 1800 pipeline` (docs/testing.md, "Fuzzing").
#![no_main]

use std::sync::OnceLock;

use img2fen::{Backend, ClassifierOptions, Options, Recognizer};
use output::Format;

/// The CLI's output formats, compiled in as they are (without clap: `cfg(fuzzing)`).
#[path = "../../src/bin/img2fen/output.rs"]
#[allow(dead_code)]
mod output;
use libfuzzer_sys::fuzz_target;

fn recognizer() -> &'static Recognizer {
    static REC: OnceLock<Recognizer> = OnceLock::new();
    REC.get_or_init(|| {
        Recognizer::new(Options {
            classifier: ClassifierOptions { backend: Backend::Tract, ..Default::default() },
            ..Default::default()
        })
        .expect("the built-in model loads")
    })
}

/// At most this many pages of a PDF are read per input: a fuzzer's PDF of thousands of empty
/// pages would only measure the page loop.
const MAX_FUZZ_PAGES: usize = 3;

fuzz_target!(|data: &[u8]| {
    if img2fen::pdf::is_pdf(data) {
        let Ok(doc) = img2fen::pdf::Document::open(data.to_vec()) else { return };
        for page in 0..doc.pages().min(MAX_FUZZ_PAGES) {
            let result = recognizer().read_pdf_page(&doc, page).map(|p| p.boards);
            check(&result);
        }
        return;
    }
    // Every size the command reads, up to its limits (a bomb is refused from its header).
    let result = img2fen::decode_image(data).and_then(|img| recognizer().recognize(&img));
    check(&result);
});

fn check(result: &Result<Vec<img2fen::BoardReading>, img2fen::Error>) {
    for format in [Format::Fen, Format::Json, Format::Csv] {
        let page = output::PageOf { file: "fuzz.pdf".into(), number: 1, dpi: Some(150.0) };
        for page in [None, Some(&page)] {
            let text = output::record(format, "fuzz", true, page, result);
            assert!(text.is_empty() || text.ends_with('\n'));
        }
    }
    if let Ok(boards) = result {
        for b in boards {
            assert_eq!(b.squares.len(), 64);
            assert!(b.fen.parse::<shakmaty::fen::Fen>().is_ok(), "unparsable FEN {}", b.fen);
        }
    }
}
