//! Debug pictures: what each step saw. `img2fen --debug DIR` writes, per input,
//! `STEM.corners.png` (the input with the found board outline and its 9x9 grid in red) and
//! `STEM.board.png` (the warped board the classifier saw, uncertain squares outlined in red);
//! for a physical board also `STEM.tall.png` (its 64 tall cells as the physical-board model saw
//! them, in display order, uncertain ones outlined in red).
//! For a picture without a board, `STEM.corners.png` marks the corners of the largest checkered
//! region found instead (the "no board found" message names its size). A page of a PDF or a
//! multi-page TIFF with boards is written as an input of its own, named `STEM.pageN`.

use std::path::Path;

use image::{DynamicImage, Rgb, RgbImage};
use imageproc::drawing::{draw_hollow_rect_mut, draw_line_segment_mut};
use imageproc::rect::Rect;

use img2fen::cells::{self, CELL_PX, TALL_H, TALL_W};
use img2fen::geometry::{Point, Quad};
use img2fen::orient::square_shown;
use img2fen::{BoardKind, BoardReading, LocateOptions};

const RED: Rgb<u8> = Rgb([230, 20, 20]);

/// Draws the board grids on the input picture.
pub fn draw_grid(img: &DynamicImage, boards: &[BoardReading]) -> RgbImage {
    let quads: Vec<Quad> = boards.iter().map(|b| b.corners).collect();
    draw_quads(img, &quads)
}

/// Draws the 9x9 grid of each board quadrilateral on the input picture.
pub fn draw_quads(img: &DynamicImage, quads: &[Quad]) -> RgbImage {
    let mut rgb = img.to_rgb8();
    for q in quads {
        let h = q.board_to_image();
        for k in 0..=8 {
            let k = k as f64;
            for (a, c) in [((k, 0.0), (k, 8.0)), ((0.0, k), (8.0, k))] {
                let p = h.apply(Point::new(a.0, a.1));
                let q = h.apply(Point::new(c.0, c.1));
                draw_line_segment_mut(&mut rgb, (p.x as f32, p.y as f32), (q.x as f32, q.y as f32), RED);
            }
        }
    }
    rgb
}

/// The warped board with uncertain squares outlined.
pub fn draw_board(b: &BoardReading) -> RgbImage {
    let mut rgb = DynamicImage::ImageLuma8(b.warped.clone()).to_rgb8();
    for i in 0..64 {
        let sq = square_shown(i, b.orientation, b.files_reversed);
        if b.squares.iter().any(|s| s.square == sq && b.is_uncertain(s)) {
            let (row, col) = ((i / 8) as i32, (i % 8) as i32);
            let c = CELL_PX as i32;
            draw_hollow_rect_mut(&mut rgb, Rect::at(col * c, row * c).of_size(CELL_PX, CELL_PX), RED);
            draw_hollow_rect_mut(&mut rgb, Rect::at(col * c + 1, row * c + 1).of_size(CELL_PX - 2, CELL_PX - 2), RED);
        }
    }
    rgb
}

/// The tall cells of a physical board ([`cells::tall_cells`]) cut from `img`, eight to a row,
/// uncertain ones outlined.
pub fn draw_tall(img: &DynamicImage, b: &BoardReading) -> RgbImage {
    let grey = cells::grey(img);
    let bytes = cells::tall_bytes(&grey, &b.corners);
    let (w, h) = (TALL_W as usize, TALL_H as usize);
    let mut rgb = RgbImage::new(8 * TALL_W, 8 * TALL_H);
    for i in 0..64 {
        let (row, col) = (i / 8, i % 8);
        for y in 0..h {
            for x in 0..w {
                let v = bytes[i * w * h + y * w + x];
                rgb.put_pixel((col * w + x) as u32, (row * h + y) as u32, Rgb([v, v, v]));
            }
        }
        let sq = square_shown(i, b.orientation, b.files_reversed);
        if b.squares.iter().any(|s| s.square == sq && b.is_uncertain(s)) {
            let at = Rect::at((col * w) as i32, (row * h) as i32);
            draw_hollow_rect_mut(&mut rgb, at.of_size(TALL_W, TALL_H), RED);
        }
    }
    rgb
}

/// Writes the debug pictures for one input.
pub fn write(dir: &Path, stem: &str, img: &DynamicImage, boards: &[BoardReading]) -> image::ImageResult<()> {
    draw_grid(img, boards).save(dir.join(format!("{stem}.corners.png")))?;
    for (n, b) in boards.iter().enumerate() {
        let suffix = if n == 0 { String::new() } else { format!(".{}", n + 1) };
        draw_board(b).save(dir.join(format!("{stem}.board{suffix}.png")))?;
        if b.kind == BoardKind::Physical {
            draw_tall(img, b).save(dir.join(format!("{stem}.tall{suffix}.png")))?;
        }
    }
    Ok(())
}

/// Writes the debug picture of an input where no board was found: the X-corners of the largest
/// checkered region ([`img2fen::locate::nearest_grid`]) as red crosses.
pub fn write_nearest(dir: &Path, stem: &str, img: &DynamicImage, opts: &LocateOptions) -> image::ImageResult<()> {
    let mut rgb = img.to_rgb8();
    let nearest = img2fen::locate::nearest_grid(&img2fen::cells::grey(img), opts);
    for p in nearest.iter().flat_map(|g| &g.corners) {
        let (x, y) = (p.x as f32, p.y as f32);
        draw_line_segment_mut(&mut rgb, (x - 4.0, y - 4.0), (x + 4.0, y + 4.0), RED);
        draw_line_segment_mut(&mut rgb, (x - 4.0, y + 4.0), (x + 4.0, y - 4.0), RED);
    }
    rgb.save(dir.join(format!("{stem}.corners.png")))
}
