//! Arbitrary bytes through the whole pipeline: decode (every format, EXIF orientation, size
//! limits), locate, warp, cut, classify on tract, orient and assemble, plus every output record.
//!
//! Run: `cargo +nightly fuzz run pipeline fuzz/corpus/pipeline testdata/formats testdata/bad
//! -- -timeout=30 -rss_limit_mb=3072` (docs/testing.md, "Fuzzing").
#![no_main]

use std::sync::OnceLock;

use img2fen::{Backend, ClassifierOptions, Options, Recognizer};
use output::Format;

/// The CLI's output formats, compiled in as they are (without clap: `cfg(fuzzing)`).
#[path = "../../src/bin/img2fen/output.rs"]
#[allow(dead_code)]
mod output;
use libfuzzer_sys::fuzz_target;

/// Pictures above this many pixels are decoded for real by the CLI, but a fuzzer that makes
/// them by the thousand only measures memory bandwidth: they are left out here.
const MAX_FUZZ_PIXELS: u64 = 4_000_000;

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

fuzz_target!(|data: &[u8]| {
    if img2fen::picture_size(data).is_some_and(|(w, h)| w as u64 * h as u64 > MAX_FUZZ_PIXELS) {
        return;
    }
    let result = img2fen::decode_image(data).and_then(|img| recognizer().recognize(&img));
    for format in [Format::Fen, Format::Json, Format::Csv] {
        let text = output::record(format, "fuzz", true, &result);
        assert!(text.is_empty() || text.ends_with('\n'));
    }
    if let Ok(boards) = &result {
        for b in boards {
            assert_eq!(b.squares.len(), 64);
            assert!(b.fen.parse::<shakmaty::fen::Fen>().is_ok(), "unparsable FEN {}", b.fen);
        }
    }
});
