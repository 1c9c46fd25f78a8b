//! The review artefact: `img2fen --review DIR` writes, for each board, a PNG with the warped
//! picture beside the board redrawn from the recognised FEN (uncertain squares outlined in red
//! on both, with their probability and the best alternative; a board to check square by square
//! framed in red), and one `index.html` for the
//! batch: thumbnails, FENs with a copy button, links to the lichess board editor.
//!
//! The redrawn board uses letters for pieces (white letters with a dark outline for White,
//! dark letters for Black) from a small built-in bitmap font, so that nothing beyond the binary
//! is needed to draw it.

use std::fmt::Write as _;
use std::path::Path;

use image::{imageops, DynamicImage, Rgb, RgbImage};
use imageproc::drawing::draw_filled_rect_mut;
use imageproc::rect::Rect;
use shakmaty::Color;

use img2fen::orient::square_shown;
use img2fen::BoardReading;

use crate::batch::InputResult;

/// Pixels per square in the review picture.
pub const SQUARE: u32 = 48;
const BOARD: u32 = 8 * SQUARE;
const MARGIN: u32 = 12;
const GAP: u32 = 36;
const LABEL: u32 = 20;
/// Width of the red frame round a board to check square by square (inside [`MARGIN`] and the
/// gap before the rank labels).
pub const WHOLE_FRAME: u32 = 4;

const LIGHT: Rgb<u8> = Rgb([240, 217, 181]);
const DARK: Rgb<u8> = Rgb([181, 136, 99]);
const RED: Rgb<u8> = Rgb([220, 20, 20]);
const INK: Rgb<u8> = Rgb([25, 25, 25]);
const PAPER: Rgb<u8> = Rgb([255, 255, 255]);

/// Rows of a 5x7 glyph, bit 4 the leftmost column.
fn glyph(c: char) -> [u8; 7] {
    match c {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        '%' => [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        '-' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        '?' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04],
        'K' => [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11],
        'Q' => [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D],
        'R' => [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        'B' => [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        'N' => [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        'P' => [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        'a' => [0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F],
        'b' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E],
        'c' => [0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E],
        'd' => [0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F],
        'e' => [0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E],
        'f' => [0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08],
        'g' => [0x00, 0x0F, 0x11, 0x11, 0x0F, 0x01, 0x0E],
        'h' => [0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11],
        'k' => [0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12],
        'n' => [0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11],
        'p' => [0x00, 0x00, 0x1E, 0x11, 0x1E, 0x10, 0x10],
        'q' => [0x00, 0x00, 0x0D, 0x13, 0x0F, 0x01, 0x01],
        'r' => [0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10],
        _ => [0; 7],
    }
}

/// Draws `text` with its top-left corner at (x, y), each font pixel `scale` pixels wide.
fn draw_text(img: &mut RgbImage, x: i64, y: i64, text: &str, scale: u32, color: Rgb<u8>) {
    for (k, c) in text.chars().enumerate() {
        let rows = glyph(c);
        let gx = x + k as i64 * 6 * scale as i64;
        for (r, bits) in rows.iter().enumerate() {
            for col in 0..5 {
                if bits & (0x10 >> col) != 0 {
                    let (px, py) = (gx + col * scale as i64, y + r as i64 * scale as i64);
                    if px >= 0 && py >= 0 {
                        draw_filled_rect_mut(img, Rect::at(px as i32, py as i32).of_size(scale, scale), color);
                    }
                }
            }
        }
    }
}

/// Width in pixels of `text` drawn at `scale`.
fn text_width(text: &str, scale: u32) -> i64 {
    (text.chars().count() as i64 * 6 - 1) * scale as i64
}

/// Outlines the square at display row and column on a board drawn at (x0, y0).
fn outline(img: &mut RgbImage, x0: u32, y0: u32, row: u32, col: u32) {
    let (x, y) = (x0 + col * SQUARE, y0 + row * SQUARE);
    for t in 0..3 {
        let r = Rect::at((x + t) as i32, (y + t) as i32).of_size(SQUARE - 2 * t, SQUARE - 2 * t);
        imageproc::drawing::draw_hollow_rect_mut(img, r, RED);
    }
}

/// The review picture of one board: the warped picture (left) beside the board redrawn from the
/// reading (right), both as displayed, with file and rank labels on the redrawn board.
pub fn draw(b: &BoardReading) -> RgbImage {
    let width = MARGIN + BOARD + GAP + BOARD + MARGIN;
    let height = MARGIN + BOARD + LABEL + MARGIN / 2;
    let mut img = RgbImage::from_pixel(width, height, PAPER);
    let warped = DynamicImage::ImageLuma8(b.warped.clone()).to_rgb8();
    let warped = imageops::resize(&warped, BOARD, BOARD, imageops::FilterType::Triangle);
    imageops::replace(&mut img, &warped, MARGIN as i64, MARGIN as i64);
    let (x0, y0) = (MARGIN + BOARD + GAP, MARGIN);
    for i in 0..64u32 {
        let (row, col) = (i / 8, i % 8);
        let sq = square_shown(i as usize, b.orientation, b.files_reversed);
        let colour = if (row + col) % 2 == 0 { LIGHT } else { DARK };
        draw_filled_rect_mut(
            &mut img,
            Rect::at((x0 + col * SQUARE) as i32, (y0 + row * SQUARE) as i32).of_size(SQUARE, SQUARE),
            colour,
        );
        let reading = &b.squares[sq.flip_vertical() as usize];
        if let Some(p) = reading.piece {
            let letter = p.role.upper_char().to_string();
            let (gx, gy) = (
                (x0 + col * SQUARE) as i64 + (SQUARE as i64 - text_width(&letter, 5)) / 2,
                (y0 + row * SQUARE) as i64 + 6,
            );
            if p.color == Color::White {
                for (dx, dy) in [(-2, 0), (2, 0), (0, -2), (0, 2), (-2, -2), (2, 2), (-2, 2), (2, -2)] {
                    draw_text(&mut img, gx + dx, gy + dy, &letter, 5, INK);
                }
                draw_text(&mut img, gx, gy, &letter, 5, PAPER);
            } else {
                draw_text(&mut img, gx, gy, &letter, 5, INK);
            }
        }
        if b.is_uncertain(reading) {
            outline(&mut img, MARGIN, MARGIN, row, col);
            outline(&mut img, x0, y0, row, col);
            // The square's probability and its best alternative, on a white strip at the bottom.
            let alt = reading.alternatives(0.0).into_iter().next();
            let label = match alt {
                Some((p, q)) => {
                    format!("{:.0}% {}{:.0}", reading.p * 100.0, p.map(|p| p.char()).unwrap_or('.'), q * 100.0)
                }
                None => format!("{:.0}%", reading.p * 100.0),
            };
            let (sx, sy) = (x0 + col * SQUARE + 3, y0 + row * SQUARE + SQUARE - 12);
            draw_filled_rect_mut(&mut img, Rect::at(sx as i32, sy as i32).of_size(SQUARE - 6, 9), PAPER);
            draw_text(&mut img, sx as i64 + 1, sy as i64 + 1, &label, 1, RED);
        }
    }
    // A board to check square by square ([`BoardReading::check_whole_board`]): a red frame
    // round the redrawn board.
    if b.check_whole_board().is_some() {
        for t in 1..=WHOLE_FRAME {
            let r = Rect::at((x0 - t) as i32, (y0 - t) as i32).of_size(BOARD + 2 * t, BOARD + 2 * t);
            imageproc::drawing::draw_hollow_rect_mut(&mut img, r, RED);
        }
    }
    // Coordinates of the redrawn board as displayed.
    for k in 0..8u32 {
        let file = square_shown(56 + k as usize, b.orientation, b.files_reversed).file().char().to_string();
        let rank = square_shown((k * 8) as usize, b.orientation, b.files_reversed).rank().char().to_string();
        draw_text(&mut img, (x0 + k * SQUARE + SQUARE / 2) as i64 - 5, (y0 + BOARD + 4) as i64, &file, 2, INK);
        draw_text(&mut img, (x0 - 18) as i64, (y0 + k * SQUARE + SQUARE / 2) as i64 - 7, &rank, 2, INK);
    }
    img
}

/// One input of the review page.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The input's name.
    pub name: String,
    /// Per board: the review picture's file name (in the review folder) and the reading.
    pub boards: Vec<(String, BoardSummary)>,
    /// Why the input gave no boards.
    pub error: Option<String>,
}

impl Entry {
    /// The entry of input number `index`, named `name`, that gave `result`.
    pub fn of(index: usize, name: &str, result: &InputResult) -> Self {
        Entry {
            name: name.to_string(),
            boards: result.as_ref().map_or(Vec::new(), |boards| {
                boards.iter().enumerate().map(|(n, b)| (picture_name(index, name, n), BoardSummary::of(b))).collect()
            }),
            error: result.as_ref().err().map(|e| e.to_string()),
        }
    }
}

/// What the review page shows of a board.
#[derive(Debug, Clone)]
pub struct BoardSummary {
    /// The whole FEN.
    pub fen: String,
    /// Which side is at the bottom and what said so, e.g. "Black at the bottom (coordinates, 99%)".
    pub orientation: String,
    /// The uncertain squares ([`BoardReading::uncertain_summary`]).
    pub uncertain: Option<String>,
    /// Why every square should be checked ([`BoardReading::check_whole_board`]).
    pub check_whole_board: Option<String>,
    /// The page marks the board ([`BoardReading::needs_checking`]): uncertain squares, an
    /// uncertain side at the bottom, or a board to check square by square.
    pub unsure: bool,
    /// The board's warnings.
    pub warnings: Vec<String>,
}

impl BoardSummary {
    /// What the page shows of `b`.
    pub fn of(b: &BoardReading) -> Self {
        let side = match b.orientation {
            img2fen::Orientation::White => "White",
            img2fen::Orientation::Black => "Black",
        };
        let orientation = format!(
            "{side} at the bottom ({}, {:.0}%){}",
            b.orientation_source.name(),
            b.orientation_confidence * 100.0,
            if b.orientation_uncertain() { ": uncertain" } else { "" }
        );
        BoardSummary {
            fen: b.fen.clone(),
            orientation,
            uncertain: b.uncertain_summary(),
            check_whole_board: b.check_whole_board(),
            unsure: b.needs_checking(),
            warnings: b.warnings.clone(),
        }
    }
}

/// The review picture's file name for board `n` (0-based) of input number `index`.
pub fn picture_name(index: usize, input_name: &str, n: usize) -> String {
    let stem = Path::new(input_name).file_stem().and_then(|s| s.to_str()).unwrap_or("input");
    let stem: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
    format!("{:05}_{stem}_{}.png", index + 1, n + 1)
}

/// Whether `name` is one of the files a review writes: `index.html` or a picture named by
/// [`picture_name`].
fn written_by_review(name: &str) -> bool {
    let Some(rest) = name.strip_suffix(".png") else { return name == "index.html" };
    let (number, rest) = rest.split_at(rest.len().min(6));
    let board = rest.rsplit_once('_').map(|(_, n)| n);
    number.len() == 6
        && number[..5].bytes().all(|b| b.is_ascii_digit())
        && number.ends_with('_')
        && board.is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Removes what an earlier review wrote to `dir` (its page and pictures, nothing else), so that
/// the new page never shows a board of another run.
pub fn clear(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if entry.file_type()?.is_file() && name.to_str().is_some_and(written_by_review) {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// Writes the review picture of every board of input number `index`.
pub fn write_pictures(
    dir: &Path,
    index: usize,
    input_name: &str,
    boards: &[BoardReading],
) -> image::ImageResult<Vec<String>> {
    boards
        .iter()
        .enumerate()
        .map(|(n, b)| {
            let name = picture_name(index, input_name, n);
            draw(b).save(dir.join(&name))?;
            Ok(name)
        })
        .collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The lichess board editor showing `fen`.
pub fn lichess_editor_url(fen: &str) -> String {
    format!("https://lichess.org/editor/{}", fen.replace(' ', "_"))
}

/// The review page for a batch, in input order.
pub fn index_html(entries: &[Entry]) -> String {
    let boards: usize = entries.iter().map(|e| e.boards.len()).sum();
    let summaries = || entries.iter().flat_map(|e| &e.boards).map(|(_, b)| b);
    let unsure = summaries().filter(|b| b.unsure).count();
    let whole = summaries().filter(|b| b.check_whole_board.is_some()).count();
    let failed = entries.iter().filter(|e| e.error.is_some()).count();
    let mut h = String::new();
    h.push_str(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>img2fen review</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;background:#f4f4f4;color:#222}
.board{background:#fff;border-radius:6px;padding:12px;margin:0 0 16px;box-shadow:0 1px 3px #0002}
.board img{max-width:100%;height:auto;display:block}
.board.unsure{border-left:6px solid #dc1414}
code{font-size:1.05em;background:#eee;padding:2px 6px;border-radius:3px;user-select:all}
button{margin-left:8px}.warn{color:#a15c00}.unsure-list{color:#b00}.error{color:#b00}
.legend{background:#fff;border-radius:6px;padding:8px 12px;margin:0 0 16px}
body.only-unsure .board:not(.unsure):not(.failed){display:none}
</style></head><body>
"#,
    );
    let _ = writeln!(
        h,
        "<h1>img2fen review</h1><p>{} inputs, {boards} boards read, {unsure} with uncertain squares or an uncertain side at the bottom (outlined in red), {whole} to check square by square (framed in red), {failed} failed.</p>",
        entries.len()
    );
    h.push_str(
        "<div class=\"legend\"><p>Each board: the picture as img2fen saw it (left) and the board redrawn from \
         the FEN (right). Upper-case letters are White's pieces, lower-case Black's. A square outlined in red \
         is uncertain: compare it with the picture, and correct the FEN in the board editor if it is wrong. A \
         board framed in red is to be checked square by square.</p>\
         <label><input type=\"checkbox\" id=\"only-unsure\" \
         onchange=\"document.body.classList.toggle('only-unsure', this.checked)\"> \
         Show only the boards to check (and the failures)</label></div>\n",
    );
    for e in entries {
        if let Some(err) = &e.error {
            let _ = writeln!(
                h,
                "<div class=\"board failed\"><h3>{}</h3><p class=\"error\">{}</p></div>",
                escape(&e.name),
                escape(err)
            );
            continue;
        }
        for (n, (png, b)) in e.boards.iter().enumerate() {
            let title = if e.boards.len() > 1 { format!("{} (board {})", e.name, n + 1) } else { e.name.clone() };
            let _ = writeln!(h, "<div class=\"board{}\">", if b.unsure { " unsure" } else { "" });
            let _ = writeln!(h, "<h3>{}</h3>", escape(&title));
            // data-loaded lets a headless browser check that every picture loaded.
            let _ = writeln!(
                h,
                "<a href=\"{0}\"><img src=\"{0}\" alt=\"{1}\" onload=\"this.dataset.loaded=1\"></a>",
                escape(png),
                escape(&title)
            );
            let _ = writeln!(
                h,
                "<p><code>{0}</code><button onclick=\"navigator.clipboard.writeText('{0}')\">Copy FEN</button> <a href=\"{1}\">Open in the lichess board editor</a></p>",
                escape(&b.fen),
                escape(&lichess_editor_url(&b.fen))
            );
            let _ = writeln!(h, "<p class=\"side\">{}</p>", escape(&b.orientation));
            if let Some(why) = &b.check_whole_board {
                let _ =
                    writeln!(h, "<p class=\"unsure-list\"><strong>Check every square:</strong> {}</p>", escape(why));
            }
            if let Some(u) = &b.uncertain {
                let _ = writeln!(h, "<p class=\"unsure-list\">{}</p>", escape(u));
            }
            for w in &b.warnings {
                let _ = writeln!(h, "<p class=\"warn\">warning: {}</p>", escape(w));
            }
            h.push_str("</div>\n");
        }
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_per_input_and_safe() {
        assert_eq!(picture_name(0, "scans/page 1.png", 0), "00001_page_1_1.png");
        assert_eq!(picture_name(41, "-", 2), "00042_-_3.png");
    }

    #[test]
    fn the_page_escapes_names_and_links_the_editor() {
        let entries = vec![
            Entry {
                name: "a<b>.png".into(),
                boards: vec![(
                    "00001_a_b__1.png".into(),
                    BoardSummary {
                        fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
                        orientation: "Black at the bottom (coordinates, 99%)".into(),
                        uncertain: Some("1 uncertain square: e4 P 61% (B 30%)".into()),
                        check_whole_board: Some("the reading breaks a counting rule (white has 2 kings)".into()),
                        unsure: true,
                        warnings: vec![],
                    },
                )],
                error: None,
            },
            Entry {
                name: "ending.png".into(),
                boards: vec![(
                    "00002_ending_1.png".into(),
                    BoardSummary {
                        fen: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
                        orientation: "White at the bottom (pieces, 73%): uncertain".into(),
                        uncertain: None,
                        check_whole_board: None,
                        unsure: true,
                        warnings: vec![],
                    },
                )],
                error: None,
            },
            Entry { name: "bad.png".into(), boards: vec![], error: Some("corrupt image".into()) },
        ];
        let h = index_html(&entries);
        assert!(h.contains("<h3>a&lt;b&gt;.png</h3>"));
        assert!(h.contains("<p class=\"side\">Black at the bottom (coordinates, 99%)</p>"));
        assert!(h.contains("https://lichess.org/editor/8/8/8/8/8/8/8/K6k_w_-_-_0_1"));
        assert!(h.contains("<img src=\"00001_a_b__1.png\""));
        assert!(h.contains("class=\"board unsure\""));
        assert!(h.contains("corrupt image"));
        assert!(h.contains("3 inputs, 2 boards read, 2 with uncertain squares or an uncertain side at the bottom (outlined in red), 1 to check square by square (framed in red), 1 failed."));
        // A board whose squares are all sure but whose side at the bottom is a guess is marked too.
        assert_eq!(h.matches("class=\"board unsure\"").count(), 2, "{h}");
        assert!(
            h.contains("<strong>Check every square:</strong> the reading breaks a counting rule (white has 2 kings)")
        );
    }

    #[test]
    fn clearing_removes_only_what_a_review_wrote() {
        let d = std::env::temp_dir().join(format!("img2fen-review-clear-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let ours = [picture_name(0, "scans/page 1.png", 0), picture_name(41, "-", 2), "index.html".into()];
        let theirs = ["notes.txt", "photo.png", "12345_x.png", "00001_a_b.jpg"];
        for name in ours.iter().map(String::as_str).chain(theirs) {
            std::fs::write(d.join(name), b"x").unwrap();
        }
        clear(&d).unwrap();
        let mut left: Vec<String> =
            std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, ["00001_a_b.jpg", "12345_x.png", "notes.txt", "photo.png"]);
    }

    #[test]
    fn glyphs_exist_for_every_piece_letter_and_digit() {
        for c in "KQRBNPkqrbnp0123456789%abcdefgh".chars() {
            assert_ne!(glyph(c), [0; 7], "{c}");
        }
    }

    /// The reading of a board drawn as `placement` (White at the bottom), every square at 98%.
    fn read_as(placement: &str) -> BoardReading {
        let board: shakmaty::Board = placement.parse().unwrap();
        let probs = (0..64)
            .map(|i| {
                let piece = board.piece_at(img2fen::orient::square_at(i, img2fen::Orientation::White));
                let mut p = [0.02 / 12.0; 13];
                p[img2fen::classify::class_index(piece)] = 0.98;
                p
            })
            .collect();
        let located =
            img2fen::Located { quad: img2fen::Quad::rect(0.0, 0.0, 256.0, 256.0), corners_found: 49, rms_error: 0.0 };
        let opts = img2fen::Options { orientation: Some(img2fen::Orientation::White), ..Default::default() };
        img2fen::assemble(
            probs,
            None,
            &located,
            image::GrayImage::new(256, 256),
            &[],
            &opts,
            img2fen::Decoding::SquareBySquare,
        )
    }

    #[test]
    fn the_review_picture_frames_a_board_to_check_square_by_square() {
        // Just outside the redrawn board's top-left corner (12 + 8 squares + 36 across, 12 down).
        let (x, y) = (12 + 8 * SQUARE + 36 - WHOLE_FRAME, 12 - WHOLE_FRAME);
        let clean = draw(&read_as("r1bq1rk1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1"));
        assert_eq!(clean.get_pixel(x, y).0, [255, 255, 255]);
        let two_kings = draw(&read_as("r1bq1rK1/ppp2ppp/2np1n2/1B2p1B1/1b2P3/2NP1N2/PPP2PPP/R2Q1RK1"));
        assert_eq!(two_kings.get_pixel(x, y).0, [220, 20, 20]);
        assert_eq!(
            two_kings.get_pixel(x + 8 * SQUARE + 2 * WHOLE_FRAME - 1, y + 8 * SQUARE + 2 * WHOLE_FRAME - 1).0,
            [220, 20, 20]
        );
    }
}
