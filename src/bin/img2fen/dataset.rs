//! Cuts training cells from rendered boards with the pipeline's own geometry ([`img2fen::cells`]).
//!
//! Input: a JSON Lines manifest, one board a line:
//! `{"image": "boards/000001.png", "corners": [[x,y],[x,y],[x,y],[x,y]], "labels": "rnbqkbnr/..."}`
//! where `corners` are the board's outer corners as displayed (top-left, top-right, bottom-right,
//! bottom-left, image pixels) and `labels` is 64 class characters ([`img2fen::CLASS_CHARS`]) in
//! display order, row by row from the top left, optionally split by `/` every 8 (digits count
//! empty squares, so a FEN placement field reads as it is).
//! Relative image paths are taken from the manifest's folder.
//!
//! With `boards`, one view of each whole board for the kind classifier
//! ([`img2fen::cells::kind_view`], `uint8 [N, 64, 64]`, every label 0).
//!
//! With `tall`, it cuts the tall cells of a physical board ([`img2fen::cells::tall_cells`],
//! `cells.npy` is then `uint8 [N, 64, 32]`).
//!
//! Output in the out folder, as NumPy `.npy` files: `cells.npy` (`uint8 [N, 32, 32]`),
//! `labels.npy` (`uint8 [N]`, class index) and `boards.npy` (`uint32 [N]`, manifest line).
//! Each board is cut `copies` times with every corner moved by up to `jitter` squares in x and y,
//! because the board finder is never exact.
//!
//! With `labels`, it cuts the coordinate reader's patches instead ([`img2fen::orient::label_patches`]):
//! the manifest lines then carry `"glyphs": [["a", u, v], ...]`, each coordinate label drawn with
//! the centre of its glyph in squares from the board's top-left corner as displayed (the true
//! corners, before jitter). A patch whose inside holds one glyph's centre gets that glyph's class
//! ([`img2fen::orient::LABEL_CLASSES`]); one with no glyph near gets class 0; a patch with a glyph
//! centre just at its border (or two glyphs) is left out, since either answer would be a guess.
//! `cells.npy` is then `uint8 [N, 24, 24]`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use clap::Args;
use img2fen::cells::{self, CELL_PX};
use img2fen::classify::CLASS_CHARS;
use img2fen::geometry::{Point, Quad};
use img2fen::orient::{self, LABEL_PX};

use crate::{Failure, Outcome};

/// Arguments of `img2fen dataset`.
#[derive(Args, Debug, Clone)]
pub struct DatasetArgs {
    /// JSON Lines manifest: {"image": PATH, "corners": [[x,y]x4], "labels": 64 classes}
    #[arg(long)]
    pub manifest: PathBuf,
    /// Output folder for cells.npy, labels.npy, boards.npy
    #[arg(long)]
    pub out: PathBuf,
    /// Largest corner displacement, in squares
    #[arg(long, default_value_t = 0.06)]
    pub jitter: f64,
    /// Cuts per board (the first is exact when more than one)
    #[arg(long, default_value_t = 2)]
    pub copies: usize,
    /// Seed of the corner displacements
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Cut coordinate-label patches (from the manifest's "glyphs") instead of cells
    #[arg(long, conflicts_with = "tall")]
    pub labels: bool,
    /// Cut tall cells for pieces standing on a physical board ([`img2fen::cells::tall_cells`];
    /// the corners are then a8, h8, h1, a1 or any order the labels follow)
    #[arg(long, conflicts_with = "boards")]
    pub tall: bool,
    /// With --tall: how far up the cells reach, in squares above the board (the shipped model
    /// is trained and read at img2fen::cells::PIECE_HEIGHT)
    #[arg(long, requires = "tall", default_value_t = cells::PIECE_HEIGHT)]
    pub piece_height: f64,
    /// Cut one view of each whole board for the kind classifier ([`img2fen::cells::kind_view`];
    /// every label is 0: which kind the boards are is the trainer's to say)
    #[arg(long, conflicts_with = "labels")]
    pub boards: bool,
    /// Cut the glyph patches of text boards ([`img2fen::textboard::Glyphs::patches`]): the
    /// manifest is then render.terminal's glyphs.jsonl, one picture a line with the centre of
    /// every printed character's cell (`"glyphs": [[char, x, y], ...]`, pixels); each glyph the
    /// segmentation finds gets the class of the character whose cell centre lies nearest it
    /// (within 0.4 text heights across and 0.65 down), and glyphs near none are left out
    #[arg(long, conflicts_with_all = ["labels", "tall", "boards"])]
    pub text: bool,
}

/// Runs `img2fen dataset`.
pub fn run_command(args: &DatasetArgs) -> Result<Outcome, Failure> {
    let n = if args.text { build_text(args)? } else { build(args)? };
    let what = if args.labels {
        "label patches"
    } else if args.text {
        "glyph patches"
    } else {
        "cells"
    };
    eprintln!("img2fen: wrote {n} {what} to {}", args.out.display());
    Ok(Outcome::Read)
}

#[derive(serde::Deserialize)]
struct Entry {
    image: String,
    corners: [[f64; 2]; 4],
    labels: String,
    #[serde(default)]
    glyphs: Vec<(String, f64, f64)>,
}

/// Within this many squares inside a patch's border a glyph centre counts as in it; within this
/// many outside, as too close to call.
const GLYPH_MARGIN: f64 = 0.04;

/// The class of each label site's patch for a board with these glyphs (`None`: leave it out).
fn label_classes(glyphs: &[(String, f64, f64)]) -> Result<Vec<Option<u8>>, String> {
    let mut parsed = Vec::with_capacity(glyphs.len());
    for (g, u, v) in glyphs {
        let class = orient::LABEL_CLASSES
            .iter()
            .position(|c| g.chars().eq(std::iter::once(*c)))
            .filter(|&i| i > 0)
            .ok_or(format!("bad glyph '{g}'"))?;
        parsed.push((class as u8, *u, *v));
    }
    Ok(orient::label_sites()
        .iter()
        .map(|s| {
            let inside =
                |m: f64, u: f64, v: f64| u > s.x + m && u < s.x + s.side - m && v > s.y + m && v < s.y + s.side - m;
            let sure: Vec<u8> = parsed.iter().filter(|g| inside(GLYPH_MARGIN, g.1, g.2)).map(|g| g.0).collect();
            let near = parsed.iter().filter(|g| inside(-GLYPH_MARGIN, g.1, g.2)).count();
            match (sure.as_slice(), near) {
                ([], 0) => Some(0),
                ([c], 1) => Some(*c),
                _ => None,
            }
        })
        .collect())
}

/// 64 classes from class characters, `/` optional, a digit standing for that many empty squares
/// (so a FEN placement field is read as it is).
fn parse_labels(s: &str) -> Result<Vec<u8>, String> {
    let mut v = Vec::with_capacity(64);
    for c in s.chars().filter(|&c| c != '/') {
        match c.to_digit(10) {
            Some(d @ 1..=8) => v.extend(std::iter::repeat_n(0u8, d as usize)),
            _ => v.push(CLASS_CHARS.iter().position(|&k| k == c).ok_or(format!("bad label '{c}'"))? as u8),
        }
    }
    if v.len() != 64 {
        return Err(format!("{} labels, expected 64", v.len()));
    }
    Ok(v)
}

/// A file that cannot be opened, read or written, named with what failed.
fn io_error(what: &str, p: &Path, e: std::io::Error) -> Failure {
    Failure::Usage(format!("{}: {what}: {e}", p.display()))
}

/// Writes a C-order NumPy array header + data.
pub fn write_npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) -> std::io::Result<()> {
    let shape_s = match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_s}, }}");
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat((64 - total % 64) % 64));
    header.push('\n');
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    f.write_all(b"\x93NUMPY\x01\x00")?;
    f.write_all(&(header.len() as u16).to_le_bytes())?;
    f.write_all(header.as_bytes())?;
    f.write_all(data)?;
    f.flush()
}

/// Cuts the dataset; returns the number of cells written.
/// One cut of a board: its cells' pixels, their classes, and the board's number.
type Cut = (Vec<u8>, Vec<u8>, u32);

pub fn build(opts: &DatasetArgs) -> Result<usize, Failure> {
    let file = std::fs::File::open(&opts.manifest).map_err(|e| io_error("cannot open", &opts.manifest, e))?;
    let base = opts.manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut entries = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| io_error("cannot read", &opts.manifest, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let e: Entry = serde_json::from_str(&line)
            .map_err(|e| Failure::Usage(format!("{}:{}: {e}", opts.manifest.display(), n + 1)))?;
        let bad = |m: String| Failure::Usage(format!("{}:{}: {m}", opts.manifest.display(), n + 1));
        let labels = if opts.labels {
            label_classes(&e.glyphs).map_err(bad)?
        } else {
            parse_labels(&e.labels).map_err(bad)?.into_iter().map(Some).collect()
        };
        entries.push((n as u32, e, labels));
    }
    let per_board: Vec<Result<Vec<Cut>, Failure>> = entries
        .par_iter()
        .map(|(n, e, labels)| {
            let path = base.join(&e.image);
            let img = img2fen::load_image(&path).map_err(|err| Failure::Usage(format!("{}: {err}", path.display())))?;
            let gray = cells::grey(&img);
            let quad = Quad(e.corners.map(|[x, y]| Point::new(x, y)));
            Ok((0..opts.copies.max(1))
                .map(|c| {
                    let seed = opts.seed ^ ((*n as u64) << 20) ^ c as u64;
                    let q = if c == 0 && opts.copies > 1 { quad } else { quad.jittered(opts.jitter, seed) };
                    let patches = if opts.labels {
                        orient::label_patches(&gray, &q).patches
                    } else if opts.tall {
                        cells::tall_cells_reaching(&gray, &q, opts.piece_height)
                    } else if opts.boards {
                        cells::kind_view(&cells::extract(&gray, &q))
                    } else {
                        cells::to_tensor(&cells::extract(&gray, &q))
                    };
                    let keep: Vec<(usize, u8)> = if opts.boards {
                        vec![(0, 0)]
                    } else {
                        labels.iter().enumerate().filter_map(|(i, l)| l.map(|l| (i, l))).collect()
                    };
                    let side = patches.shape()[2] * patches.shape()[3];
                    let flat = patches.as_slice().expect("standard layout");
                    let (mut bytes, mut classes) = (Vec::new(), Vec::new());
                    for (i, l) in keep {
                        bytes.extend(flat[i * side..(i + 1) * side].iter().map(|&v| (v * 255.0).round() as u8));
                        classes.push(l);
                    }
                    (bytes, classes, *n)
                })
                .collect())
        })
        .collect();
    let (h, w) = if opts.labels {
        (LABEL_PX, LABEL_PX)
    } else if opts.tall {
        (cells::TALL_H as usize, cells::TALL_W as usize)
    } else if opts.boards {
        (cells::KIND_PX as usize, cells::KIND_PX as usize)
    } else {
        (CELL_PX as usize, CELL_PX as usize)
    };
    let cuts = per_board.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().flatten();
    write_cuts(&opts.out, cuts, h, w)
}

/// Writes the cuts as `cells.npy` (`uint8 [N, h, w]`), `labels.npy` and `boards.npy` in `out`;
/// returns N.
fn write_cuts(out: &Path, cuts: impl IntoIterator<Item = Cut>, h: usize, w: usize) -> Result<usize, Failure> {
    let (mut cells_buf, mut label_buf, mut board_buf) = (Vec::new(), Vec::new(), Vec::new());
    for (c, l, n) in cuts {
        cells_buf.extend_from_slice(&c);
        label_buf.extend_from_slice(&l);
        for _ in 0..l.len() {
            board_buf.extend_from_slice(&n.to_le_bytes());
        }
    }
    let n = label_buf.len();
    std::fs::create_dir_all(out).map_err(|e| io_error("cannot create", out, e))?;
    let write = |name: &str, d: &str, shape: &[usize], data: &[u8]| {
        let p = out.join(name);
        write_npy(&p, d, shape, data).map_err(|e| io_error("cannot write", &p, e))
    };
    write("cells.npy", "|u1", &[n, h, w], &cells_buf)?;
    write("labels.npy", "|u1", &[n], &label_buf)?;
    write("boards.npy", "<u4", &[n], &board_buf)?;
    Ok(n)
}

#[derive(serde::Deserialize)]
struct TextEntry {
    image: String,
    glyphs: Vec<(String, f64, f64)>,
}

/// The glyph class of each found glyph: that of the printed character whose cell centre lies
/// nearest it, within 0.4 text heights across and 0.65 down (a dot sits low in its cell).
fn glyph_labels(found: &img2fen::textboard::Glyphs, printed: &[(String, f64, f64)]) -> Vec<Option<u8>> {
    let h = found.text_height;
    found
        .glyphs
        .iter()
        .map(|g| {
            let (x, y) = g.centre();
            printed
                .iter()
                .map(|(c, px, py)| (c, ((x - px) / (0.4 * h)).powi(2) + ((y - py) / (0.65 * h)).powi(2)))
                .filter(|(_, d)| *d <= 1.0)
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .and_then(|(c, _)| c.chars().next())
                .map(|c| img2fen::textboard::glyph_class(c) as u8)
        })
        .collect()
}

/// Cuts the glyph patches of rendered text (`--text`); returns how many.
fn build_text(opts: &DatasetArgs) -> Result<usize, Failure> {
    use img2fen::textboard::{glyphs, GLYPH_PX};
    let text = std::fs::read_to_string(&opts.manifest).map_err(|e| io_error("cannot read", &opts.manifest, e))?;
    let base = opts.manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut entries = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let e: TextEntry = serde_json::from_str(line)
            .map_err(|e| Failure::Usage(format!("{}:{}: {e}", opts.manifest.display(), n + 1)))?;
        entries.push((n as u32, e));
    }
    let cut: Vec<Result<Cut, Failure>> = entries
        .par_iter()
        .map(|(n, e)| {
            let path = base.join(&e.image);
            let img = img2fen::load_image(&path).map_err(|err| Failure::Usage(format!("{}: {err}", path.display())))?;
            let gray = cells::grey(&img);
            let Some(found) = glyphs::find(&gray) else { return Ok((Vec::new(), Vec::new(), *n)) };
            let labels = glyph_labels(&found, &e.glyphs);
            let keep: Vec<usize> = (0..labels.len()).filter(|&i| labels[i].is_some()).collect();
            let patches = found.patches(&gray, &keep);
            let bytes = patches.iter().map(|&v| (v * 255.0).round() as u8).collect();
            Ok((bytes, keep.iter().map(|&i| labels[i].expect("kept")).collect(), *n))
        })
        .collect();
    let cuts = cut.into_iter().collect::<Result<Vec<_>, _>>()?;
    write_cuts(&opts.out, cuts, GLYPH_PX, GLYPH_PX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_parse_with_or_without_slashes() {
        let s = "rnbqkbnr/pppppppp/......../......../......../......../PPPPPPPP/RNBQKBNR";
        let v = parse_labels(s).unwrap();
        assert_eq!(v.len(), 64);
        assert_eq!(v[0], 10); // r
        assert_eq!(v[63], 4); // R
        assert!(parse_labels("rnb").is_err());
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(parse_labels(fen).unwrap(), v);
        assert!(parse_labels("9/8/8/8/8/8/8/7").is_err());
    }

    #[test]
    fn jitter_is_bounded_and_reproducible() {
        let q = Quad::rect(0.0, 0.0, 80.0, 80.0);
        let a = q.jittered(0.05, 7);
        assert_eq!(a, q.jittered(0.05, 7));
        for (p, o) in a.0.iter().zip(q.0.iter()) {
            assert!((p.x - o.x).abs() <= 0.5 && (p.y - o.y).abs() <= 0.5);
        }
    }

    #[test]
    fn npy_header_is_aligned() {
        let dir = std::env::temp_dir().join(format!("img2fen-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.npy");
        write_npy(&p, "|u1", &[3], &[1, 2, 3]).unwrap();
        let b = std::fs::read(&p).unwrap();
        assert_eq!(&b[..6], b"\x93NUMPY");
        assert_eq!((b.len() - 3) % 64, 0);
        assert_eq!(&b[b.len() - 3..], &[1, 2, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
