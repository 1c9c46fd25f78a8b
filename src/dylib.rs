//! Native libraries img2fen loads at run time when they are there (ONNX Runtime, the HEIC and
//! AVIF decoders): finding them in a folder.

use std::path::{Path, PathBuf};

/// The files in `dir` whose names `is_match` accepts, in name order (the first is the one to
/// load: version suffixes sort together). None when `dir` cannot be read.
pub(crate) fn libraries_in(dir: &Path, is_match: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut libs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&is_match))
        .collect();
    libs.sort();
    libs
}
