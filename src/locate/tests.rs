//! The board finder's tests, on synthetic boards.

use super::*;
use image::Luma;

/// An axis-aligned board of `sq`-pixel squares at `(ox, oy)` on a mid-grey page.
fn synthetic(w: u32, h: u32, ox: u32, oy: u32, sq: u32) -> GrayImage {
    GrayImage::from_fn(w, h, |x, y| {
        if x >= ox && y >= oy && x < ox + 8 * sq && y < oy + 8 * sq {
            let (c, r) = ((x - ox) / sq, (y - oy) / sq);
            Luma([if (c + r) % 2 == 0 { 235 } else { 120 }])
        } else {
            Luma([60])
        }
    })
}

/// Every corner of `quad` within a pixel of `want`.
fn assert_corners_at(quad: &Quad, want: Quad) {
    for (p, q) in quad.0.iter().zip(want.0.iter()) {
        assert!(p.dist(*q) < 1.0, "{p:?} vs {q:?}");
    }
}

/// Every corner of the found board within a pixel of `want`, and all 49 interior corners
/// refined.
fn assert_found_at(b: &Located, want: Quad) {
    assert_corners_at(&b.quad, want);
    assert_eq!(b.corners_found, 49);
}

/// Lattice nodes for interior corners `cols` x `rows` of a board of 20 px steps, numbered
/// from `(i0, j0)` in the lattice's own coordinates.
fn fragment(cols: std::ops::Range<i32>, rows: std::ops::Range<i32>, (i0, j0): (i32, i32), positive0: bool) -> Lattice {
    let nodes = cols
        .flat_map(|c| rows.clone().map(move |r| (c, r)))
        .map(|(c, r)| (c - i0, r - j0, Point::new(100.0 + 20.0 * c as f64, 50.0 + 20.0 * r as f64)))
        .collect();
    Lattice { nodes, positive0 }
}

#[test]
fn fragments_of_one_board_join_and_neighbouring_boards_do_not() {
    // One board's corners split where pieces hid a column; the right part numbered from its
    // own seed, whose polarity is that of corner (4, 2) of the left part's grid.
    let left = fragment(0..3, 0..7, (0, 0), true);
    let right = fragment(4..7, 0..7, (4, 2), true);
    let grid = grid_of(&left).unwrap();
    let both = joined(&left, &grid, &right).expect("one board");
    assert_eq!(both.len(), 42);
    assert!(both
        .nodes
        .iter()
        .all(|&(i, j, p)| p.dist(Point::new(100.0 + 20.0 * i as f64, 50.0 + 20.0 * j as f64)) < 1e-6));
    assert_eq!(merge_fragments(vec![left.clone(), right.clone()]).len(), 1);
    // Its seed of the other polarity cannot be on this grid.
    assert!(joined(&left, &grid, &fragment(4..7, 0..7, (4, 2), false)).is_none());
    // A fragment reaching the board's edge joins; a board beside it in the same rhythm
    // would span more than a board's 9 corners.
    assert!(joined(&left, &grid, &fragment(6..9, 0..7, (6, 0), true)).is_some());
    assert!(joined(&left, &grid, &fragment(9..12, 0..7, (9, 0), false)).is_none());
}

#[test]
fn finds_an_axis_aligned_board_to_a_pixel() {
    let img = synthetic(900, 700, 123, 87, 61);
    let b = locate(&img, &LocateOptions::default()).expect("board found");
    assert_found_at(&b, Quad::rect(123.0, 87.0, 123.0 + 488.0, 87.0 + 488.0));
}

#[test]
fn finds_a_small_board_in_a_large_image() {
    let img = synthetic(1920, 1080, 1500, 300, 20);
    let b = locate(&img, &LocateOptions::default()).expect("board found");
    assert!(b.quad.0[0].dist(Point::new(1500.0, 300.0)) < 1.5, "{:?}", b.quad);
    assert!(b.quad.0[2].dist(Point::new(1660.0, 460.0)) < 1.5, "{:?}", b.quad);
}

#[test]
fn no_board_in_a_flat_or_striped_image() {
    let flat = GrayImage::from_pixel(400, 300, Luma([128]));
    assert!(locate(&flat, &LocateOptions::default()).is_none());
    let stripes = GrayImage::from_fn(400, 300, |x, _| Luma([if (x / 20) % 2 == 0 { 30 } else { 220 }]));
    assert!(locate(&stripes, &LocateOptions::default()).is_none());
}

#[test]
fn two_boards_a_fifth_of_a_square_apart_are_both_found() {
    // Two boards of 30-pixel squares side by side, 6 pixels apart on a light page: one
    // lattice runs across both. Each board must be found where it is, not a window
    // straddling the gap.
    let (sq, gap, x0, y0) = (30u32, 6u32, 60u32, 60u32);
    let img = GrayImage::from_fn(2 * 8 * sq + gap + 2 * x0, 8 * sq + 2 * y0, |x, y| {
        let second = x >= x0 + 8 * sq + gap;
        let left = if second { x0 + 8 * sq + gap } else { x0 };
        if x >= left && x < left + 8 * sq && y >= y0 && y < y0 + 8 * sq {
            Luma([if ((x - left) / sq + (y - y0) / sq) % 2 == 0 { 235 } else { 90 }])
        } else {
            Luma([235])
        }
    });
    let mut boards = locate_all(&img, &LocateOptions::default());
    reading_order(&mut boards);
    assert_eq!(boards.len(), 2, "{boards:?}");
    let side = (8 * sq) as f64;
    let second = (x0 + 8 * sq + gap) as f64;
    assert_corners_at(&boards[0].quad, Quad::rect(x0 as f64, y0 as f64, x0 as f64 + side, y0 as f64 + side));
    assert_corners_at(&boards[1].quad, Quad::rect(second, y0 as f64, second + side, y0 as f64 + side));
}

#[test]
fn a_board_found_twice_is_kept_where_its_squares_are() {
    // The board at (100, 200) with 40-pixel squares, and the same board found again two
    // ranks too high and a little larger (a finer level's lattice reaching into the page
    // above it): the larger no longer wins.
    let img = synthetic(600, 700, 100, 200, 40);
    let at = |x: f64, y: f64, side: f64| Located {
        quad: Quad::rect(x, y, x + side, y + side),
        corners_found: 30,
        rms_error: 0.5,
    };
    let kept = one_per_board(&img, vec![at(100.0, 200.0, 320.0), at(99.0, 119.0, 322.0)]);
    assert_eq!(kept.len(), 1);
    assert_corners_at(&kept[0].quad, Quad::rect(100.0, 200.0, 420.0, 520.0));
    // A pattern inside one of its squares is not a board.
    let kept = one_per_board(&img, vec![at(100.0, 200.0, 320.0), at(105.0, 205.0, 30.0)]);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].quad.mean_side(), 320.0);
}

#[test]
fn boards_come_in_reading_order() {
    let b = |x: f64, y: f64, side: f64| Located {
        quad: Quad::rect(x, y, x + side, y + side),
        corners_found: 49,
        rms_error: 0.0,
    };
    // Two rows: a tall board on the left with a shorter one beside it, then one below.
    let mut v = vec![b(0.0, 500.0, 200.0), b(300.0, 40.0, 150.0), b(10.0, 0.0, 300.0)];
    reading_order(&mut v);
    let tops: Vec<(f64, f64)> = v.iter().map(|l| (l.quad.0[0].x, l.quad.0[0].y)).collect();
    assert_eq!(tops, vec![(10.0, 0.0), (300.0, 40.0), (0.0, 500.0)]);
    // A two-column page: the left column top to bottom, then the right one, whose first board
    // stands higher than the left column's.
    let mut v = vec![b(700.0, 100.0, 300.0), b(100.0, 300.0, 300.0), b(700.0, 900.0, 300.0), b(90.0, 1200.0, 320.0)];
    reading_order(&mut v);
    let tops: Vec<(f64, f64)> = v.iter().map(|l| (l.quad.0[0].x, l.quad.0[0].y)).collect();
    assert_eq!(tops, vec![(100.0, 300.0), (90.0, 1200.0), (700.0, 100.0), (700.0, 900.0)]);
    // Two diagrams a column, nearly level by chance (tops 60 pixels apart): still columns.
    let mut v = vec![b(700.0, 160.0, 300.0), b(100.0, 100.0, 300.0), b(700.0, 900.0, 300.0), b(90.0, 840.0, 320.0)];
    reading_order(&mut v);
    let tops: Vec<(f64, f64)> = v.iter().map(|l| (l.quad.0[0].x, l.quad.0[0].y)).collect();
    assert_eq!(tops, vec![(100.0, 100.0), (90.0, 840.0), (700.0, 160.0), (700.0, 900.0)]);
    // Diagrams of a two-column page whose tops stand level by chance but not their bottoms
    // (a scanned book's diagrams of two sizes): still columns.
    let mut v =
        vec![b(345.0, 449.0, 266.0), b(1021.0, 454.0, 311.0), b(333.0, 1017.0, 289.0), b(1044.0, 1033.0, 266.0)];
    reading_order(&mut v);
    let tops: Vec<(f64, f64)> = v.iter().map(|l| (l.quad.0[0].x, l.quad.0[0].y)).collect();
    assert_eq!(tops, vec![(345.0, 449.0), (333.0, 1017.0), (1021.0, 454.0), (1044.0, 1033.0)]);
    // Boards set out as a table, two a row, are read row by row.
    let mut v = vec![b(600.0, 0.0, 300.0), b(0.0, 500.0, 300.0), b(0.0, 10.0, 300.0), b(610.0, 490.0, 300.0)];
    reading_order(&mut v);
    let tops: Vec<(f64, f64)> = v.iter().map(|l| (l.quad.0[0].x, l.quad.0[0].y)).collect();
    assert_eq!(tops, vec![(0.0, 10.0), (600.0, 0.0), (0.0, 500.0), (610.0, 490.0)]);
}

#[test]
fn a_faintly_hatched_board_is_found_by_its_frame() {
    // A PDF viewer's diagram: white page, a 3-pixel black frame, 33-pixel squares whose dark
    // ones carry a faint diagonal hatch (one grey line in four), as found in realdata-dev.
    let (ox, oy, sq) = (301u32, 157u32, 33u32);
    let side = 8 * sq;
    let page = |hatched: bool| {
        GrayImage::from_fn(1600, 1000, |x, y| {
            let inside = |m: u32| x + m >= ox && y + m >= oy && x < ox + side + m && y < oy + side + m;
            if inside(0) {
                let dark = ((x - ox) / sq + (y - oy) / sq) % 2 == 1;
                Luma([if hatched && dark && (x + y) % 4 == 0 { 200 } else { 250 }])
            } else if inside(3) {
                Luma([10])
            } else {
                Luma([250])
            }
        })
    };
    let img = page(true);
    let found = framed_boards(&Level::darkest(&img, 2), FRAME_INK);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_corners_at(&found[0].quad, Quad::rect(ox as f64, oy as f64, (ox + side) as f64, (oy + side) as f64));
    // The same frame around blank paper is not a board.
    let blank = page(false);
    assert!(framed_boards(&Level::darkest(&blank, 2), FRAME_INK).is_empty());
}

#[test]
fn a_framed_board_beside_a_lattice_board_is_found_too() {
    // A page with two diagrams: a plain checkered board at (1000, 300), found by its
    // lattice, and a framed one whose dark squares are a hatch as light on average as the
    // light squares (one pixel in four at 235, the rest at 255): no X-corners at any level,
    // only texture.
    let (ox, oy, sq) = (301u32, 157u32, 33u32);
    let side = 8 * sq;
    let img = GrayImage::from_fn(1600, 1000, |x, y| {
        let inside = |m: u32| x + m >= ox && y + m >= oy && x < ox + side + m && y < oy + side + m;
        if (1000..1320).contains(&x) && (300..620).contains(&y) {
            Luma([if ((x - 1000) / 40 + (y - 300) / 40) % 2 == 0 { 235 } else { 120 }])
        } else if inside(0) {
            let dark = ((x - ox) / sq + (y - oy) / sq) % 2 == 1;
            Luma(match (dark, (x + y) % 4 == 0) {
                (false, _) => [250],
                (true, true) => [235],
                (true, false) => [255],
            })
        } else if inside(3) {
            Luma([10])
        } else {
            Luma([250])
        }
    });
    let mut found = locate_all(&img, &LocateOptions::default());
    reading_order(&mut found);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_corners_at(&found[0].quad, Quad::rect(ox as f64, oy as f64, (ox + side) as f64, (oy + side) as f64));
    assert_found_at(&found[1], Quad::rect(1000.0, 300.0, 1320.0, 620.0));
}

/// How [`tilted_framed_board`] draws the frame.
#[derive(PartialEq)]
enum Frame {
    Clean,
    /// The bottom line has a gap of a square and a half, and two dark pieces stand against
    /// its inside.
    Broken,
    /// A grey line (as blurred on a photo), with a dark piece on every square of the
    /// bottom rank against it: darker than the line itself.
    FaintBehindPieces,
}

/// A page scanned turned by 7 degrees: a 3-pixel frame around a board of 30-pixel squares
/// whose dark squares are only texture (one pixel in four at 235, the rest 255; light
/// squares 250), so that no lattice and no upright frame finds it. Returns the picture and
/// the board's true corners.
fn tilted_framed_board(style: Frame) -> (GrayImage, [Point; 4]) {
    let broken = style == Frame::Broken;
    let faint = style == Frame::FaintBehindPieces;
    let t = Turned { cx: 500.0, cy: 420.0, sq: 30.0, turn: 7f64.to_radians() };
    let (sq, half) = (t.sq, 4.0 * t.sq);
    let img = GrayImage::from_fn(1000, 800, |x, y| {
        let (u, v) = t.uv(x, y);
        let board = (0.0..2.0 * half).contains(&u) && (0.0..2.0 * half).contains(&v);
        let frame = (-3.0..2.0 * half + 3.0).contains(&u) && (-3.0..2.0 * half + 3.0).contains(&v);
        let gap = broken && v > 2.0 * half && (100.0..145.0).contains(&u);
        let piece = broken
            && (((u - 45.0).powi(2) + (v - 2.0 * half + 10.0).powi(2) < 110.0)
                || ((u - 200.0).powi(2) + (v - 2.0 * half + 10.0).powi(2) < 110.0))
            || faint
                && (0.0..2.0 * half).contains(&u)
                && ((u % sq) - sq / 2.0).powi(2) + (v - 2.0 * half + 12.0).powi(2) < 144.0;
        Luma(if piece {
            [20]
        } else if board {
            let dark = ((u / sq) as i32 + (v / sq) as i32) % 2 == 1;
            match (dark, (x + y) % 4 == 0) {
                (false, _) => [250],
                (true, true) => [235],
                (true, false) => [255],
            }
        } else if frame && !gap {
            [if faint { 120 } else { 10 }]
        } else {
            [250]
        })
    });
    (img, t.corners())
}

/// A board of `sq`-pixel squares centred at `(cx, cy)` and turned by `turn` radians, as a
/// picture shows it.
struct Turned {
    cx: f64,
    cy: f64,
    sq: f64,
    turn: f64,
}

impl Turned {
    /// Board coordinates, in pixels from the board's top-left corner, of the picture's pixel
    /// `(x, y)`: the picture turned back.
    fn uv(&self, x: u32, y: u32) -> (f64, f64) {
        let (dx, dy, half) = (x as f64 + 0.5 - self.cx, y as f64 + 0.5 - self.cy, 4.0 * self.sq);
        (dx * self.turn.cos() + dy * self.turn.sin() + half, -dx * self.turn.sin() + dy * self.turn.cos() + half)
    }

    /// The board's corners in the picture, top-left first, clockwise.
    fn corners(&self) -> [Point; 4] {
        let half = 4.0 * self.sq;
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(su, sv)| {
            let (du, dv) = (su * half, sv * half);
            Point::new(
                self.cx + du * self.turn.cos() - dv * self.turn.sin(),
                self.cy + du * self.turn.sin() + dv * self.turn.cos(),
            )
        })
    }
}

/// One board found in the picture, each corner within `tolerance` pixels of the true one.
fn assert_one_board_at((img, want): (GrayImage, [Point; 4]), tolerance: f64) {
    let found = locate_all(&img, &LocateOptions::default());
    assert_eq!(found.len(), 1, "{found:?}");
    for (p, q) in found[0].quad.0.iter().zip(&want) {
        assert!(p.dist(*q) < tolerance, "{p:?} vs {q:?}");
    }
}

#[test]
fn a_tilted_frame_is_found_at_its_inner_edge() {
    assert_one_board_at(tilted_framed_board(Frame::Clean), 0.3);
}

#[test]
fn a_tilted_frame_broken_and_touched_by_pieces_is_found() {
    // Traced, the broken frame is no four-cornered outline; its convex hull is.
    assert_one_board_at(tilted_framed_board(Frame::Broken), 0.3);
}

#[test]
fn a_faint_tilted_frame_is_found_past_the_pieces_against_it() {
    // Across the bottom line, the darkest pixels are the pieces inside, not the line.
    assert_one_board_at(tilted_framed_board(Frame::FaintBehindPieces), 0.5);
}

#[test]
fn a_turned_frame_on_a_halftone_page_is_traced_on_block_means() {
    // A page printed in a screen of dots (every other pixel of every other row) whose ink
    // varies from dot to dot, scanned turned by 1.5 degrees: a 2-pixel frame around a
    // board of 40-pixel squares whose dark squares are printed in a denser screen.
    let shade = |x: u32, y: u32| {
        20 + ((x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(2_246_822_519)).wrapping_mul(3_266_489_917) >> 16) % 160
    };
    let t = Turned { cx: 500.0, cy: 500.0, sq: 40.0, turn: 1.5f64.to_radians() };
    let (sq, half) = (t.sq, 4.0 * t.sq);
    let img = GrayImage::from_fn(1000, 1000, |x, y| {
        let (u, v) = t.uv(x, y);
        let board = (0.0..2.0 * half).contains(&u) && (0.0..2.0 * half).contains(&v);
        let frame = (-2.0..2.0 * half + 2.0).contains(&u) && (-2.0..2.0 * half + 2.0).contains(&v);
        let dark = board && ((u / sq) as i32 + (v / sq) as i32) % 2 == 1;
        Luma(if frame && !board {
            [20]
        } else if (dark && (x + y) % 2 == 0) || (x % 2 == 0 && y % 2 == 0) {
            [shade(x, y) as u8]
        } else {
            [250]
        })
    });
    let want = t.corners();
    let opts = LocateOptions::default();
    // The darkest dot of each block joins the frame to the page around it.
    assert!(tilted_frames(&Level::darkest(&img, 4), TILTED_INK_MARGIN, &opts, &[]).is_empty());
    let found = tilted_frames(&Level::means(&img, 4), TILTED_MEAN_INK_MARGIN, &opts, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    for (p, q) in found[0].quad.0.iter().zip(&want) {
        assert!(p.dist(*q) < 1.0, "{p:?} vs {q:?}");
    }
}

#[test]
fn a_board_in_hues_of_one_brightness_is_found_on_a_colour_channel() {
    // Squares of (230, 200, 200) and (150, 222, 200): the same grey level within one step
    // (Rec. 709), 80 levels apart in red. The page is grey 120.
    let rgb = image::RgbImage::from_fn(600, 600, |x, y| {
        if (100..420).contains(&x) && (100..420).contains(&y) {
            image::Rgb(if ((x - 100) / 40 + (y - 100) / 40) % 2 == 0 { [230, 200, 200] } else { [150, 222, 200] })
        } else {
            image::Rgb([120, 120, 120])
        }
    });
    let img = image::DynamicImage::ImageRgb8(rgb);
    let grey = crate::cells::grey(&img);
    assert!(locate_all(&grey, &LocateOptions::default()).is_empty());
    let found = locate_all_colour(&img, &grey, &LocateOptions::default());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_found_at(&found[0], Quad::rect(100.0, 100.0, 420.0, 420.0));
}

#[test]
fn a_gentle_gradient_of_light_is_levelled_but_a_margin_is_not() {
    let checker = |i: usize| if (i / 8 + i % 8).is_multiple_of(2) { 20.0 } else { -20.0 };
    // A photo's vignette: 4 grey levels darker every square to the right (a fifth of the
    // checker's half-contrast, over the 15% levelled).
    let lit: Vec<f64> = (0..64).map(|i| 150.0 + checker(i) - 4.0 * (i % 8) as f64).collect();
    let raw = checker_contrast(&lit);
    let level = checker_contrast(&without_gradient(&lit));
    assert!(raw < 0.85 && level > 0.94, "raw {raw} level {level}");
    // A window one file off a board onto white paper: the paper file must keep costing.
    let shifted: Vec<f64> = (0..64).map(|i| if i % 8 == 7 { 250.0 } else { 150.0 + checker(i) }).collect();
    assert!(checker_contrast(&without_gradient(&shifted)) < 0.88, "{}", checker_contrast(&without_gradient(&shifted)));
}

#[test]
fn box_downscale_averages_blocks() {
    let img = GrayImage::from_fn(4, 2, |x, _| Luma([if x < 2 { 10 } else { 30 }]));
    let d = box_downscale(&img, 2);
    assert_eq!(d.as_raw(), &vec![10, 30]);
}

#[test]
fn halving_smoothly_keeps_flat_areas_and_edges_in_place_and_removes_fine_stripes() {
    let flat = GrayImage::from_pixel(10, 6, Luma([77]));
    let d = halve_smooth(&flat);
    assert_eq!((d.width(), d.height()), (5, 3));
    assert!(d.pixels().all(|p| p.0[0] == 77));
    // An edge between columns 3 and 4 stays between output pixels 1 and 2, symmetric about it.
    let edge = GrayImage::from_fn(8, 4, |x, _| Luma([if x < 4 { 0 } else { 200 }]));
    let row: Vec<u8> = halve_smooth(&edge).rows().next().unwrap().map(|p| p.0[0]).collect();
    assert!((row[1] as i32 + row[2] as i32 - 200).abs() <= 1, "{row:?}");
    assert!(row[0] < row[1] && row[2] < row[3], "{row:?}");
    // Stripes of a three-pixel period: 2x2 means pass them on as a coarse ripple; this does not.
    let stripes = GrayImage::from_fn(48, 48, |x, _| Luma([if x % 3 == 0 { 0 } else { 240 }]));
    let spread = |im: &GrayImage| {
        let v: Vec<u8> = im.rows().nth(10).unwrap().skip(3).take(16).map(|p| p.0[0]).collect();
        v.iter().max().unwrap() - v.iter().min().unwrap()
    };
    assert!(spread(&box_downscale(&stripes, 2)) >= 100, "{}", spread(&box_downscale(&stripes, 2)));
    assert!(spread(&halve_smooth(&stripes)) <= 25, "{}", spread(&halve_smooth(&stripes)));
}

#[test]
fn stray_peaks_do_not_widen_a_lattice_but_a_texture_is_wide() {
    let node = |i: i32, j: i32| (i, j, Point::new(i as f64, j as f64));
    // A board's 7x7 interior corners and its edge (9x9 less the corners), plus a few peaks
    // two and four steps beyond it, in text above and a label to the right.
    let mut board: Vec<_> = (-1..=7)
        .flat_map(|i| (-1..=7).map(move |j| (i, j)))
        .filter(|&(i, j)| !((i == -1 || i == 7) && (j == -1 || j == 7)))
        .map(|(i, j)| node(i, j))
        .collect();
    board.extend([node(2, -3), node(3, -3), node(5, -3), node(1, -5), node(9, 2), node(9, 4)]);
    assert_eq!(core_span(&board), 8);
    let texture: Vec<_> = (0..14).flat_map(|i| (0..14).map(move |j| node(i, j))).collect();
    assert_eq!(core_span(&texture), 13);
}

#[test]
fn a_board_beside_text_lines_is_not_a_texture() {
    let node = |i: i32, j: i32| (i, j, Point::new(i as f64, j as f64));
    // A board's 7x7 interior corners with corners all round its edge (a frame line), joined
    // to lines of text three rows and more below it that happen to keep its rhythm.
    let mut board: Vec<_> = (-1..=7).flat_map(|i| (-1..=7).map(move |j| node(i, j))).collect();
    board.extend((-1..=7).flat_map(|i| (10..=14).map(move |j| node(i, j))));
    assert!(core_span(&board) > MAX_SPAN);
    assert!(!texture_around(&board, 0, 0));
    // The same with the text continuing right up to the board's edge: the ring beyond the
    // edge then holds a row below it and nothing on its other sides.
    board.extend((-1..=7).map(|i| node(i, 8)));
    assert!(!texture_around(&board, 0, 0));
    // Text beside it as well, to the right: two sides.
    board.extend((9..=12).flat_map(|i| (-1..=7).map(move |j| node(i, j))));
    assert!(!texture_around(&board, 0, 0));
    // A checkered texture continues all round; the windows tried first in one of 11x11
    // corners, the centred one and those a step beside it, are all texture.
    let texture: Vec<_> = (0..11).flat_map(|i| (0..11).map(move |j| node(i, j))).collect();
    assert!(core_span(&texture) > MAX_SPAN);
    for (i0, j0) in [(2, 2), (1, 2), (3, 2), (2, 1), (2, 3)] {
        assert!(texture_around(&texture, i0, j0), "window {i0},{j0}");
    }
}

#[test]
fn a_window_over_follows_the_grid() {
    // A board at (100, 80) with 40-pixel squares: its grid's window a file left and a rank
    // down lies one square over, perspective or not.
    let grid = Quad::rect(100.0, 80.0, 420.0, 400.0).board_to_image();
    assert_corners_at(&window_of(&grid, -1, 1), Quad::rect(60.0, 120.0, 380.0, 440.0));
    let turned =
        Quad([Point::new(100.0, 80.0), Point::new(420.0, 100.0), Point::new(400.0, 420.0), Point::new(90.0, 390.0)]);
    let grid = turned.board_to_image();
    assert_corners_at(&window_of(&grid, 0, 0), turned);
    let right = window_of(&grid, 1, 0);
    assert!(
        right.0[0].dist(grid.apply(Point::new(1.0, 0.0))) < 1e-9
            && right.0[2].dist(grid.apply(Point::new(9.0, 8.0))) < 1e-9
    );
}

#[test]
fn a_grid_one_square_off_is_refitted_in_place() {
    // The grid of a board at (100, 80) with 40-pixel squares, placed one rank too high: its
    // top row is page, its bottom rank is missing. Shifted down from that grid, the refit
    // finds the board itself.
    let img = synthetic(600, 560, 100, 80, 40);
    let board = |x: f64, y: f64| Point::new(100.0 + 40.0 * x, 80.0 + 40.0 * y);
    let src: Vec<Point> = (0..=8).flat_map(|y| (0..=8).map(move |x| Point::new(x as f64, y as f64))).collect();
    let high: Vec<Point> = src.iter().map(|p| board(p.x, p.y - 1.0)).collect();
    let grid = Homography::fit(&src, &high).unwrap();
    // The corner at board coordinates (1, 1) of the high window is the board's (1, 0): an
    // edge, whose polarity is that of the board's (1, 2), opposite to its (1, 1).
    let (found, _) = fit_shifted(&img, &grid, false, 0, 1, &LocateOptions::default()).expect("refitted");
    assert_found_at(&found, Quad::rect(100.0, 80.0, 420.0, 400.0));
}

#[test]
fn corners_beyond_the_search_are_found_again_around_the_refined_grid() {
    // A grid predicted with its error growing towards the top (as extrapolated from a
    // fragment of the bottom ranks): 16 pixels off at the top edge, 6 at the third rank's
    // corners, more than the search reaches (a fifth of a 40-pixel square) above that.
    let img = synthetic(600, 560, 100, 80, 40);
    let src: Vec<Point> = (0..=8).flat_map(|y| (0..=8).map(move |x| Point::new(x as f64, y as f64))).collect();
    let off: Vec<Point> =
        src.iter().map(|p| Point::new(100.0 + 40.0 * p.x, 80.0 + 40.0 * p.y - 0.25 * (8.0 - p.y).powi(2))).collect();
    let coarse = Homography::fit(&src, &off).unwrap();
    let opts = LocateOptions::default();
    let (once, grid) = refine_once(&img, &coarse, true, &opts).expect("the near ranks refine");
    assert!(once.corners_found < REFINE_AGAIN_BELOW, "{once:?}");
    let (again, _) = refine_window(&img, &coarse, true, &opts).expect("refined");
    assert_found_at(&again, Quad::rect(100.0, 80.0, 420.0, 400.0));
    // Searched again around the grid from the first pass alone, every corner is found.
    assert_eq!(refine_once(&img, &grid, true, &opts).expect("refined").0.corners_found, 49);
}

#[test]
fn a_board_from_a_small_lattice_is_fitted_again_from_a_larger_one() {
    let board = |x0: f64| Located { quad: Quad::rect(x0, 100.0, x0 + 320.0, 420.0), corners_found: 49, rms_error: 0.0 };
    let found = [board(100.0), board(600.0)];
    // The first board came from a fragment of 24 nodes, the second from a full lattice.
    let sources = [24, 49];
    let inside_first = Point::new(260.0, 260.0);
    assert!(!found_already(&found, &sources, inside_first, 45));
    assert!(found_already(&found, &sources, inside_first, 20));
    let inside_second = Point::new(760.0, 260.0);
    assert!(found_already(&found, &sources, inside_second, 64));
    assert!(!found_already(&found, &sources, Point::new(1000.0, 260.0), 30));
}

#[test]
fn a_textured_board_on_a_plain_screen_is_found_as_a_square_region() {
    // A dark page (34) with a board of 50-pixel squares at (120, 60) whose squares are
    // textured with diagonal stripes (light 170, dark 110, each +-40 in stripes a sixth of
    // a square wide), and beside it a square picture of the same size that does not
    // alternate (a smooth gradient).
    let img = GrayImage::from_fn(1000, 520, |x, y| {
        let (bx, by) = (x as i32 - 120, y as i32 - 60);
        let stripe = if ((x + y) / 8) % 2 == 0 { 40 } else { -40 };
        if (0..400).contains(&bx) && (0..400).contains(&by) {
            let base = if (bx / 50 + by / 50) % 2 == 0 { 170 } else { 110 };
            Luma([(base + stripe) as u8])
        } else if (560..960).contains(&(x as i32)) && (0..400).contains(&by) {
            Luma([(90 + (x - 560) / 4) as u8])
        } else {
            Luma([34])
        }
    });
    let found = boards_on_plain_ground(&Level::means(&img, 2));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_corners_at(&found[0].quad, Quad::rect(120.0, 60.0, 520.0, 460.0));
    // No ground covers a third of a busy picture: nothing is searched.
    let busy = GrayImage::from_fn(600, 600, |x, y| Luma([((x * 7 + y * 13) % 256) as u8]));
    assert!(boards_on_plain_ground(&Level::means(&busy, 2)).is_empty());
}

#[test]
fn a_seed_takes_neighbours_a_square_apart_both_ways_not_a_hatch_peak_nearer() {
    // A corner at (100, 100) of a board of 59-pixel squares turned by 10 degrees: its
    // neighbours of the other polarity to the right and below, and a peak of a hatch line
    // two thirds of a square to the right (or three quarters), nearer than the true one.
    let peak = |x: f64, y: f64, positive: bool| Peak { x, y, score: 1.0, positive };
    let (right, below) = ((58.1, 10.2), (-10.2, 58.1));
    let frame = |extra: Option<(f64, f64)>| {
        let mut peaks = vec![
            peak(100.0, 100.0, true),
            peak(100.0 + right.0, 100.0 + right.1, false),
            peak(100.0 + below.0, 100.0 + below.1, false),
        ];
        peaks.extend(extra.map(|(dx, dy)| peak(100.0 + dx, 100.0 + dy, false)));
        let grid = PeakGrid::new(&peaks, 32.0);
        seed_frame(&grid, 0)
    };
    let ((rx, ry), (dx, dy)) = frame(None).expect("both neighbours");
    assert!(
        (rx - right.0).abs() < 1e-9
            && (ry - right.1).abs() < 1e-9
            && (dx - below.0).abs() < 1e-9
            && (dy - below.1).abs() < 1e-9
    );
    // The hatch peak is the nearest to the right: the two steps differ by a third or a
    // quarter of a square, and the seed is no seed.
    assert_eq!(frame(Some((39.0, 6.9))), None);
    assert_eq!(frame(Some((44.0, 7.8))), None);
}

#[test]
fn windows_reaching_into_a_board_found_already_are_not_this_board() {
    // A board at (100, 80) with 40-pixel squares, and its neighbour found already, a fifth
    // of a square to the right.
    let grid = Quad::rect(100.0, 80.0, 420.0, 400.0).board_to_image();
    let right = Quad::rect(428.0, 80.0, 748.0, 400.0);
    let at = |di, dj| Shift { contrast: 0.8, beyond: 0.0, di, dj };
    assert!(!on_other_board(&grid, &at(0, 0), &[&right]));
    assert!(!on_other_board(&grid, &at(-1, 0), &[&right]));
    assert!(!on_other_board(&grid, &at(0, 1), &[&right]));
    assert!(on_other_board(&grid, &at(1, 0), &[&right]));
    assert!(on_other_board(&grid, &at(2, -1), &[&right]));
}

#[test]
fn a_window_a_rank_off_the_picture_goes_last_and_one_with_a_corner_cut_off_stays() {
    // A picture that is all board (a tight crop): 40-pixel squares from (0, 0). Every window
    // shifted a rank or a file off the picture gets no contrast; the board's own is first.
    let img = synthetic(320, 320, 0, 0, 40);
    let ranked = ranked_shifts(&img, 2, |x, y| Point::new(40.0 * x, 40.0 * y));
    assert_eq!((ranked[0].di, ranked[0].dj), (0, 0));
    assert!(ranked[0].contrast > 0.9, "{:?}", ranked[0]);
    assert!(ranked[1..].iter().all(|s| s.contrast == 0.0), "{:?}", &ranked[1..4]);
    let img = GrayImage::new(320, 320);
    // A board photographed with a corner out of frame (three quarters of a square): one
    // square's centre off the picture. A window a file to the left has eight.
    let corner = Quad([Point::new(0.0, 0.0), Point::new(320.0, 0.0), Point::new(350.0, 350.0), Point::new(0.0, 320.0)]);
    let tilted = corner.board_to_image();
    assert!(in_picture(&img, |x, y| tilted.apply(Point::new(x, y))));
    assert!(!in_picture(&img, |x, y| tilted.apply(Point::new(x - 1.0, y))));
}

#[test]
fn a_window_that_takes_in_a_file_of_page_alternates_less_clearly_than_the_board() {
    // A board of 40-pixel squares at (60, 60) on a plain page: its own window is the clearest;
    // one a file either way loses about an eighth, more than the recognizer's slack for
    // moving a board where its coordinates put it.
    let img = synthetic(440, 440, 60, 60, 40);
    let board = Quad::rect(60.0, 60.0, 380.0, 380.0);
    let own = window_contrast(&img, &board);
    assert!(own > 0.9, "{own}");
    for moved in [Quad::rect(100.0, 60.0, 420.0, 380.0), Quad::rect(20.0, 60.0, 340.0, 380.0)] {
        let c = window_contrast(&img, &moved);
        assert!(c < own - 2.0 * crate::MOVE_CONTRAST_SLACK, "{c} against {own}");
    }
    // A window off the picture by a file has none.
    assert_eq!(window_contrast(&img, &Quad::rect(-40.0, 60.0, 280.0, 380.0)), 0.0);
}

#[test]
fn a_board_a_rank_out_of_its_frame_sticks_out_and_one_a_few_pixels_off_does_not() {
    // The board inside a frame at (100, 100), 40-pixel squares.
    let frame = Quad::rect(100.0, 100.0, 420.0, 420.0);
    assert!(sticks_out(&Quad::rect(100.0, 140.0, 420.0, 460.0), &frame));
    assert!(sticks_out(&Quad::rect(70.0, 100.0, 390.0, 420.0), &frame));
    assert!(!sticks_out(&Quad::rect(104.0, 96.0, 424.0, 416.0), &frame));
    assert!(!sticks_out(&Quad::rect(140.0, 140.0, 380.0, 380.0), &frame));
}

#[test]
fn windows_that_alternate_alike_are_told_apart_by_what_lies_beyond() {
    // Two boards side by side in step: the window straddling the gap alternates as well
    // as the right board's own, but has squares beyond two sides, the board's own beyond
    // one (its neighbour's last file).
    let w = |contrast, beyond, di, dj| Shift { contrast, beyond, di, dj };
    let measured = [w(0.81, 1.7, 1, 0), w(0.80, 0.9, 0, 0), w(0.79, 1.8, 2, 0), w(0.6, 1.0, 0, 1)];
    assert_eq!(untie(&measured, (1, 0)), (0, 0));
    // A lead under UNTIE_LEAD, or a clearer window alternating less, changes nothing.
    let close = [w(0.81, 1.1, 1, 0), w(0.80, 0.9, 0, 0)];
    assert_eq!(untie(&close, (1, 0)), (1, 0));
    let apart = [w(0.81, 1.7, 1, 0), w(0.70, 0.0, 0, 0)];
    assert_eq!(untie(&apart, (1, 0)), (1, 0));
}

#[test]
fn a_frame_on_a_halftone_page_is_found_on_block_means() {
    // Paper printed in dots (one pixel in nine), dark squares in a denser screen, and a
    // frame three pixels wide around the board at (80, 80) with 30-pixel squares.
    let img = GrayImage::from_fn(400, 400, |x, y| {
        let (bx, by) = (x as i32 - 80, y as i32 - 80);
        let inside = |m: i32| (-m..240 + m).contains(&bx) && (-m..240 + m).contains(&by);
        Luma(if inside(0) && (bx / 30 + by / 30) % 2 == 1 {
            if (x + y) % 2 == 0 {
                [60]
            } else {
                [225]
            }
        } else if inside(3) && !inside(0) {
            [20]
        } else if x % 3 == 0 && y % 3 == 0 {
            [60]
        } else {
            [225]
        })
    });
    // Each block's darkest pixel is a dot: ink everywhere, no line.
    let darkest = Level::darkest(&img, 4);
    assert!(ink_share(darkest.small()) > HALFTONE_INK);
    assert!(framed_boards(&darkest, FRAME_INK).is_empty());
    let means = Level::means(&img, 4);
    let found = framed_boards(&means, paper_ink(means.small()));
    assert_eq!(found.len(), 1);
    assert_corners_at(&found[0].quad, Quad::rect(80.0, 80.0, 320.0, 320.0));
}

#[test]
fn a_faint_board_is_told_by_where_its_squares_stop() {
    // Dark squares 20 levels under a paper the colour of the light squares: beyond the
    // board's own window there is only paper, beyond a window a file over there is a file
    // of squares, in step with the checker inside.
    let img = GrayImage::from_fn(500, 440, |x, y| {
        let (bx, by) = (x as i32 - 90, y as i32 - 60);
        let on_board = (0..240).contains(&bx) && (0..240).contains(&by);
        Luma([if on_board && (bx / 30 + by / 30) % 2 == 1 { 180 } else { 200 }])
    });
    let ranked = shifts_measured(&img, 2, true, |x, y| Point::new(90.0 + 30.0 * x, 60.0 + 30.0 * y));
    let at = |di, dj| *ranked.iter().find(|s| (s.di, s.dj) == (di, dj)).expect("reach 2");
    assert!(at(0, 0).beyond < 0.05, "{:?}", at(0, 0));
    for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)] {
        assert!(at(di, dj).beyond > 0.8, "{:?}", at(di, dj));
    }
    assert_eq!(bounded_shift(&ranked), Some((0, 0)));
    // A checkered texture goes on beyond every window: no board by its edges.
    let cloth = GrayImage::from_fn(500, 440, |x, y| Luma([if (x / 30 + y / 30) % 2 == 1 { 180 } else { 200 }]));
    let ranked = shifts_measured(&cloth, 2, true, |x, y| Point::new(90.0 + 30.0 * x, 60.0 + 30.0 * y));
    assert!(ranked.iter().all(|s| s.beyond > 0.8));
    assert_eq!(bounded_shift(&ranked), None);
    // Faint windows that alternate alike, as choose_shift sees them: decided by what lies
    // beyond, when the window alternates enough and leads clearly.
    let faint = |c0: f64| {
        vec![
            Shift { contrast: c0, beyond: 0.02, di: 0, dj: 0 },
            Shift { contrast: 0.55, beyond: 0.3, di: 0, dj: 1 },
            Shift { contrast: 0.53, beyond: 0.35, di: 1, dj: 0 },
        ]
    };
    assert_eq!(choose_shift(&faint(0.56)), None);
    assert_eq!(bounded_shift(&faint(0.56)), Some((0, 0)));
    assert_eq!(bounded_shift(&faint(0.40)), None);
    let mut in_step = faint(0.56);
    in_step[0].beyond = 0.25;
    assert_eq!(bounded_shift(&in_step), None);
}

/// Windows with these (contrast, di, dj) and nothing in step beyond them.
fn windows(ranked: &[(f64, i32, i32)]) -> Vec<Shift> {
    ranked.iter().map(|&(contrast, di, dj)| Shift { contrast, beyond: 0.0, di, dj }).collect()
}

#[test]
fn a_grid_two_files_off_is_moved_onto_the_board() {
    // The board at (100, 80) with 40-pixel squares; the grid placed two files to the right
    // takes in two files of page. The window two files left alternates clearly better.
    let img = synthetic(700, 560, 100, 80, 40);
    let off = |x: f64, y: f64| Point::new(100.0 + 40.0 * (x + 2.0), 80.0 + 40.0 * y);
    let ranked = ranked_shifts(&img, 2, off);
    assert_eq!(choose_shift(&ranked), Some((-2, 0)));
    // Within a step the best window wins; a window two steps over needs the margin.
    assert_eq!(choose_shift(&windows(&[(0.95, 2, 0), (0.93, 0, 0)])), Some((0, 0)));
    assert_eq!(choose_shift(&windows(&[(0.95, 2, 0), (0.80, 1, 0)])), Some((2, 0)));
    assert_eq!(choose_shift(&windows(&[(0.95, 2, 0), (0.5, 0, 0)])), None);
    // Windows that alternate faintly and all alike (blurred text, a faint lined board)
    // place no board; a clear board may have a close neighbour.
    assert_eq!(choose_shift(&windows(&[(0.74, 0, 1), (0.72, 0, 0), (0.66, -1, 1)])), None);
    assert_eq!(choose_shift(&windows(&[(0.74, 0, 1), (0.70, 0, 0), (0.66, -1, 1)])), Some((0, 1)));
    assert_eq!(choose_shift(&windows(&[(0.93, 0, 1), (0.92, 0, 0)])), Some((0, 1)));
}

/// A checkered grid of `cols` x `rows` squares of `sq` pixels on a mid-grey margin.
fn checkered(cols: u32, rows: u32, sq: u32) -> GrayImage {
    let m = 2 * sq;
    GrayImage::from_fn(cols * sq + 2 * m, rows * sq + 2 * m, |x, y| {
        let (c, r) = (x.wrapping_sub(m) / sq, y.wrapping_sub(m) / sq);
        Luma([if c >= cols || r >= rows {
            150
        } else if (c + r) % 2 == 0 {
            235
        } else {
            60
        }])
    })
}

#[test]
fn only_an_8x8_grid_is_a_chess_board() {
    assert_eq!(locate_all(&checkered(8, 8, 40), &LocateOptions::default()).len(), 1);
    // Draughts boards, smaller and larger grids, and two boards' worth of squares without a gap.
    for (cols, rows) in [(10, 10), (12, 12), (9, 9), (8, 10), (8, 6), (6, 6), (7, 7), (16, 8), (8, 16)] {
        let found = locate_all(&checkered(cols, rows, 40), &LocateOptions::default());
        assert!(found.is_empty(), "{cols}x{rows}: {found:?}");
    }
}

#[test]
fn what_came_nearest_is_the_largest_checkered_region() {
    let opts = LocateOptions::default();
    let near = nearest_grid(&checkered(10, 10, 40), &opts).expect("a grid");
    assert_eq!(near.squares, (10, 10));
    assert_eq!(near.corners.len(), 81);
    assert!(near.describe(&opts).ends_with("10x10 squares (81 corners seen); a chess board is 8x8"));
    assert!(!near.at_edge);
    assert!(nearest_grid(&GrayImage::from_pixel(300, 300, Luma([200])), &opts).is_none());
}

#[test]
fn a_board_the_picture_cuts_by_more_than_a_rank_is_said_to_run_off_its_edge() {
    let opts = LocateOptions::default();
    // An 8x8 checker on a margin of two squares, cut through its second rank from the top.
    let whole = checkered(8, 8, 40);
    let cut = image::imageops::crop_imm(&whole, 0, 80 + 60, whole.width(), whole.height() - 140).to_image();
    assert!(locate_all(&cut, &opts).is_empty());
    let near = nearest_grid(&cut, &opts).expect("a grid");
    assert!(near.at_edge, "{near:?}");
    assert!(near.describe(&opts).ends_with("; it runs off the picture's edge: a board cut by it cannot be read"));
}

#[test]
fn a_large_hatched_board_cropped_tight_is_found() {
    // 200-pixel squares, the dark ones hatched by diagonal bands 12 pixels wide, the picture
    // cut at the board's edge: the hatching is what a 12-pixel corner search sees at full
    // resolution.
    let sq = 200u32;
    let img = GrayImage::from_fn(8 * sq, 8 * sq, |x, y| {
        let dark = (x / sq + y / sq) % 2 == 1;
        Luma([if dark && (x + y) % 24 < 12 { 40 } else { 235 }])
    });
    let found = locate_all(&img, &LocateOptions::default());
    assert_eq!(found.len(), 1, "{found:?}");
    let side = (8 * sq) as f64;
    for (p, q) in found[0].quad.0.iter().zip(Quad::rect(0.0, 0.0, side, side).0) {
        assert!(p.dist(q) < 0.05 * sq as f64, "{:?}", found[0].quad);
    }
}

/// A testdata picture's board, found at its own size, cut with a margin of `margin` of its side:
/// the crop, and the board's side in it.
fn testdata_board(name: &str, margin: f64) -> (image::DynamicImage, f64) {
    let page = image::open(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)).unwrap();
    let board = locate(&page.to_luma8(), &LocateOptions::default()).expect("the board at its own size");
    let (x0, y0, x1, y1) = board.quad.bounds();
    let m = margin * (x1 - x0);
    // Whole pixels, rounded down.
    let crop = page.crop_imm((x0 - m) as u32, (y0 - m) as u32, (x1 - x0 + 2.0 * m) as u32, (y1 - y0 + 2.0 * m) as u32);
    (crop, x1 - x0)
}

#[test]
fn a_faintly_hatched_diagram_cropped_tight_is_found_at_two_to_six_times_its_size() {
    // testdata's PDF-viewer diagram (a hatch one grey line in four, render/testdata.py), cut to
    // its board and enlarged as a crop from a high-resolution scan would be. At 3x and 6x the
    // 2x2-mean levels find it, and low-passed levels searched first lost its corners.
    let (crop, _) = testdata_board("pdf_viewer_faint_hatch.png", 0.0);
    for scale in [2u32, 3, 4, 5, 6] {
        let big = crop.resize_exact(crop.width() * scale, crop.height() * scale, image::imageops::FilterType::Lanczos3);
        let grey = big.to_luma8();
        let found = locate_all_colour(&big, &grey, &LocateOptions::default());
        assert_eq!(found.len(), 1, "{scale}x: {found:?}");
        let side = grey.width().min(grey.height()) as f64;
        assert!((found[0].quad.mean_side() - side).abs() < 0.03 * side, "{scale}x: {:?}", found[0].quad);
    }
}

#[test]
fn a_board_of_8_pixel_squares_is_found_in_a_thumbnail() {
    // testdata's blue board seen from Black's side, cut with a margin of a fiftieth of its side
    // and shrunk to squares of 7.5 and 8 px: not found as it is, found at twice its size (and,
    // nearly square, as the picture itself too: `whole_picture`).
    let (crop, side) = testdata_board("black_side_blue.png", 0.02);
    for square in [7.5, 8.0] {
        let f = 8.0 * square / side;
        let (w, h) = ((crop.width() as f64 * f).round() as u32, (crop.height() as f64 * f).round() as u32);
        let small = crop.resize_exact(w, h, image::imageops::FilterType::Lanczos3).to_luma8();
        assert!(locate_all(&small, &LocateOptions::default()).is_empty(), "{square} px squares: found as it is");
        let found = enlarged(&small, &LocateOptions::default());
        assert_eq!(found.len(), 1, "{square} px squares: {found:?}");
        assert!((found[0].quad.mean_side() - 8.0 * square).abs() < 2.0, "{square} px squares: {:?}", found[0].quad);
    }
}

#[test]
fn a_faint_board_cropped_tight_and_crowded_is_the_picture_itself() {
    // testdata's PDF-viewer diagram cut to its board and shown at half size: its faint hatch
    // and pieces leave too few corners for a lattice, and nothing frames it. (Enlarged, this
    // one is found again by its lattice; the scale sweep's tight crops of a real faint diagram
    // at 0.5x-5x were found only as the picture itself.)
    let (crop, _) = testdata_board("pdf_viewer_faint_hatch.png", 0.0);
    let half = crop.resize_exact(crop.width() / 2, crop.height() / 2, image::imageops::FilterType::Lanczos3);
    let grey = half.to_luma8();
    assert!(locate_all(&grey, &LocateOptions::default()).is_empty(), "found by its lattice after all");
    let found = whole_picture(&grey);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].corners_found, 0);
    let side = grey.width() as f64;
    assert!((found[0].quad.mean_side() - side).abs() < 0.05 * side, "{:?}", found[0].quad);
    // A square picture of something else is not a board.
    let noise = GrayImage::from_fn(200, 200, |x, y| Luma([((x * 7 + y * 13) % 97 + 100) as u8]));
    assert!(whole_picture(&noise).is_empty());
}

/// A synthetic board of `sq`-pixel squares (or a larger checker of `n` x `n` squares) turned by
/// `degrees` on a canvas that holds it whole, and where its four outer corners (top-left,
/// top-right, bottom-right, bottom-left of the upright board) went.
fn turned_checker(n: u32, sq: u32, degrees: f32) -> (GrayImage, [Point; 4]) {
    use imageproc::geometric_transformations::{rotate_about_center_no_crop, Border, Interpolation, Projection};
    let (side, margin) = (n * sq + 2 * sq, sq);
    let upright = GrayImage::from_fn(side, side, |x, y| {
        let inside = (margin..margin + n * sq).contains(&x) && (margin..margin + n * sq).contains(&y);
        let (c, r) = (x.saturating_sub(margin) / sq, y.saturating_sub(margin) / sq);
        Luma([if !inside {
            90
        } else if (c + r) % 2 == 0 {
            225
        } else {
            110
        }])
    });
    let theta = degrees.to_radians();
    let img = rotate_about_center_no_crop(&upright, theta, Interpolation::Bilinear, Border::Constant(Luma([90])));
    let forward = Projection::translate(img.width() as f32 / 2.0, img.height() as f32 / 2.0)
        * Projection::rotate(theta)
        * Projection::translate(-(side as f32) / 2.0, -(side as f32) / 2.0);
    let (a, b) = (margin as f32, (margin + n * sq) as f32);
    let corners = [(a, a), (b, a), (b, b), (a, b)].map(|p| {
        let (x, y) = forward * p;
        Point::new(x as f64, y as f64)
    });
    (img, corners)
}

#[test]
fn a_board_turned_like_a_diamond_is_found_on_a_turned_copy() {
    for degrees in [45.0, 35.0] {
        let (img, corners) = turned_checker(8, 40, degrees);
        let colour = image::DynamicImage::ImageLuma8(img.clone());
        if degrees == 45.0 {
            let upright = LocateOptions { turned: false, ..Default::default() };
            assert!(locate_all_colour(&colour, &img, &upright).is_empty(), "found upright");
        }
        let found = locate_all_colour(&colour, &img, &LocateOptions::default());
        assert_eq!(found.len(), 1, "{degrees} degrees");
        // Named from the corner nearest the top left, clockwise: the upright board's corners
        // taken in some turn of their order.
        let q = &found[0].quad;
        let first = (0..4).min_by(|&i, &j| q.0[0].dist(corners[i]).total_cmp(&q.0[0].dist(corners[j]))).unwrap();
        for (k, p) in q.0.iter().enumerate() {
            let want = corners[(first + k) % 4];
            assert!(p.dist(want) < 1.5, "{degrees} degrees: {p:?} vs {want:?}");
        }
        let (dx, dy) = (q.0[1].x - q.0[0].x, q.0[1].y - q.0[0].y);
        assert!(dx > dy.abs(), "{degrees} degrees: the first edge runs rightwards: {q:?}");
    }
}

#[test]
fn a_checker_larger_than_a_board_is_no_board_at_any_turn() {
    // At 30-40 degrees, steps of two squares along and one across lie near upright and make a
    // checker of larger squares: refused by their square centres, of the other shade.
    for degrees in [0.0, 10.0, 20.0, 30.0, 40.0, 45.0] {
        let (img, _) = turned_checker(16, 24, degrees);
        let colour = image::DynamicImage::ImageLuma8(img.clone());
        let found = locate_all_colour(&colour, &img, &LocateOptions::default());
        assert!(found.is_empty(), "{degrees} degrees: {:?}", found.iter().map(|b| b.quad).collect::<Vec<_>>());
    }
}

#[test]
fn square_centres_agree_on_a_board_and_not_on_a_checker_of_the_wrong_pitch() {
    // A checker of 24 x 24 squares of 12 pixels; `at` gives a point in its squares.
    let (img, corners) = turned_checker(24, 12, 0.0);
    let at = |x: f64, y: f64| Point::new(corners[0].x + 12.0 * x, corners[0].y + 12.0 * y);
    let board = Quad([at(4.0, 4.0), at(12.0, 4.0), at(12.0, 12.0), at(4.0, 12.0)]);
    assert!(centres_agree(&img, &board) > 0.95);
    // Squares of steps (2, 1) and (-1, 2) make a checker of larger squares, turned, with a small
    // square of the other shade at each one's centre.
    let pitch = Quad([at(8.0, 0.0), at(24.0, 8.0), at(16.0, 24.0), at(0.0, 16.0)]);
    assert!(centres_agree(&img, &pitch) < 0.1, "{}", centres_agree(&img, &pitch));
}

#[test]
fn a_board_seen_steeply_is_found_on_a_stretched_copy() {
    // A set photographed 53.5 degrees from vertical (testdata/physical): squares about half as
    // high as wide make crosses too narrow for the box score, upright or turned alone.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/physical/steep_from_h_file.jpg");
    let grey = image::open(path).unwrap().to_luma8();
    let no_turns = LocateOptions { turned: false, ..Default::default() };
    assert!(locate_all(&grey, &no_turns).is_empty(), "found upright");
    for degrees in TURNS_DEGREES {
        assert!(
            in_view(&grey, &no_turns, mean_grey(&grey), 1.0, degrees).is_empty(),
            "found turned by {degrees} degrees"
        );
    }
    let found = turned(&grey, &LocateOptions::default());
    assert_eq!(found.len(), 1);
    // The true corners a8, h8, h1, a1 (testdata/physical/expected.csv), in some turn of their order.
    let truth = [(413.1, 148.0), (552.2, 287.4), (221.0, 377.8), (190.3, 194.0)].map(|(x, y)| Point::new(x, y));
    let q = &found[0].quad;
    let sq = q.mean_side() / 8.0;
    let off = (0..4)
        .map(|k| (0..4).map(|i| q.0[i].dist(truth[(i + k) % 4])).fold(0.0, f64::max))
        .fold(f64::INFINITY, f64::min);
    assert!(off < 0.15 * sq, "corners {:.2} squares off: {q:?}", off / sq);
}

#[test]
fn a_tilted_checker_of_8x6_squares_is_no_board_on_any_copy() {
    // A checkered game board of 8 x 6 squares drawn in perspective beside text (render.noboards,
    // seed 31, picture 54): stretched 1.7x and turned by 30 degrees, a lattice of the wrong
    // pitch over it once passed for a board, with a checker of 0.46 beyond one side.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/noboard/checker_8x6_tilted.jpg");
    let img = image::open(path).unwrap();
    let grey = img.to_luma8();
    let found = locate_all_colour(&img, &grey, &LocateOptions::default());
    assert!(found.is_empty(), "{:?}", found.iter().map(|b| b.quad).collect::<Vec<_>>());
}

#[test]
fn a_board_cropped_tight_in_light_falling_off_to_one_side_is_found() {
    // 60-pixel squares cropped at the board's edge, the edge file or rank on one side in a
    // shadow that keeps 20% of the light (a page's fold, a hand): its light squares are darker
    // than the dark squares across the board, which no gradient over the board evens out. The
    // line still alternates against its own neighbours.
    let sq = 60u32;
    let side = 8 * sq;
    for shaded in 0..4 {
        // Left, right, top, bottom.
        let in_shadow = |x: u32, y: u32| match shaded {
            0 => x < sq,
            1 => x >= 7 * sq,
            2 => y < sq,
            _ => y >= 7 * sq,
        };
        let lit = |v: f64, x: u32, y: u32| Luma([(v * if in_shadow(x, y) { 0.2 } else { 1.0 }) as u8]);
        let img = GrayImage::from_fn(side, side, |x, y| {
            lit(if (x / sq + y / sq).is_multiple_of(2) { 235.0 } else { 90.0 }, x, y)
        });
        let found = locate_all(&img, &LocateOptions::default());
        assert_eq!(found.len(), 1, "shadow on side {shaded}: {found:?}");
        // A plain band in place of the shaded line, beside seven lines of squares, is no board.
        let band = GrayImage::from_fn(side, side, |x, y| {
            let v = if in_shadow(x, y) {
                150.0
            } else if (x / sq + y / sq).is_multiple_of(2) {
                235.0
            } else {
                90.0
            };
            lit(v, x, y)
        });
        assert!(locate_all(&band, &LocateOptions::default()).is_empty(), "band on side {shaded}");
    }
}
