//! Boards set out in rows and columns (a page of puzzles, a two-column book page) share one
//! size, and where a row of them crosses a column of them with no board found, one is looked
//! for again in that place alone, enlarged when its squares are small.
//!
//! A finely hatched diagram among others of its size can escape the page-wide search: its hatch
//! aliases on the page's reduced levels into a lattice askew of its squares, or none, at one
//! resolution and not at the next (the PDF books' puzzle tables lost one diagram of six this way
//! on some pages at 150 dpi, another at 231). Searched alone, with nothing around it but paper
//! and the picture doubled, it is found as on a page of its own.

use image::imageops::FilterType;

use super::*;

/// Boards whose sides differ by less than this share of the side are set out alike.
const SAME_SIZE: f64 = 0.1;

/// The region searched around a slot: the slot and this share of its side beyond each edge.
const MARGIN: f64 = 0.5;

/// A board found in a slot is the slot's when its centre lies within this share of the side of
/// the slot's centre and its side within [`SAME_SIZE`] of the slot's.
const CENTRE_TOLERANCE: f64 = 0.35;

/// A region whose squares are under this many pixels is searched doubled.
const ENLARGE_BELOW_SQUARE_PX: f64 = 40.0;

/// At most this many slots are searched in one picture (those nearest the boards found first):
/// boards scattered over a crafted picture make a slot of every crossing of their rows and
/// columns, each a search of its own.
const MAX_SLOTS: usize = 16;

/// The places where a row of boards found crosses a column of boards of the same size and no
/// board lies, as upright squares of that size, inside a picture `w` x `h`. Rows and columns are
/// those of the boards' centres; only upright boards count.
pub fn empty_slots(quads: &[Quad], w: f64, h: f64) -> Vec<Quad> {
    let upright: Vec<&Quad> = quads.iter().filter(|q| q.tilt() <= MAX_UPRIGHT_TILT).collect();
    let mut slots: Vec<Quad> = Vec::new();
    for a in &upright {
        let side = a.mean_side();
        let alike: Vec<&Quad> =
            upright.iter().copied().filter(|o| (o.mean_side() - side).abs() < SAME_SIZE * side).collect();
        for column in &alike {
            for row in &alike {
                let c = Point::new(column.centre().x, row.centre().y);
                let half = side / 2.0;
                let slot = Quad::rect(c.x - half, c.y - half, c.x + half, c.y + half);
                let inside = c.x - half >= 0.0 && c.y - half >= 0.0 && c.x + half <= w && c.y + half <= h;
                let taken = |q: &Quad| {
                    let (d, reach) = (q.centre(), (q.mean_side() + side) / 2.0);
                    (d.x - c.x).abs() < reach && (d.y - c.y).abs() < reach
                };
                if inside && !quads.iter().any(taken) && !slots.iter().any(|s| same_place(s, &slot)) {
                    slots.push(slot);
                }
            }
        }
    }
    slots
}

/// `found` and the boards of `img` found alone in its [`empty_slots`] (at most [`MAX_SLOTS`]): each slot's region
/// ([`MARGIN`] around it) cut out, doubled when its squares are under [`ENLARGE_BELOW_SQUARE_PX`],
/// and searched as the page is (lattices and frames); a board there of the slot's size and place
/// ([`CENTRE_TOLERANCE`]) joins the boards found.
pub(super) fn add_boards_in_slots(img: &GrayImage, mut found: Vec<Located>, opts: &LocateOptions) -> Vec<Located> {
    if found.len() < 2 {
        return found;
    }
    let (w, h) = (img.width() as f64, img.height() as f64);
    let quads: Vec<Quad> = found.iter().map(|b| b.quad).collect();
    let mut slots = empty_slots(&quads, w, h);
    let nearest = |s: &Quad| quads.iter().map(|q| q.centre().dist(s.centre())).fold(f64::INFINITY, f64::min);
    slots.sort_by(|a, b| nearest(a).total_cmp(&nearest(b)));
    for slot in slots.into_iter().take(MAX_SLOTS) {
        let side = slot.mean_side();
        let (x0, y0, x1, y1) = slot.bounds();
        let m = MARGIN * side;
        let (cx0, cy0) = ((x0 - m).max(0.0).floor(), (y0 - m).max(0.0).floor());
        let (cx1, cy1) = ((x1 + m).min(w).ceil(), (y1 + m).min(h).ceil());
        let crop =
            image::imageops::crop_imm(img, cx0 as u32, cy0 as u32, (cx1 - cx0) as u32, (cy1 - cy0) as u32).to_image();
        let scale = if side / 8.0 < ENLARGE_BELOW_SQUARE_PX { 2 } else { 1 };
        let region = match scale {
            1 => crop,
            _ => image::imageops::resize(&crop, crop.width() * scale, crop.height() * scale, FilterType::Triangle),
        };
        let in_slot = lattices_and_frames(&region, opts)
            .into_iter()
            .map(|b| Located { quad: b.quad.scaled(1.0 / scale as f64).translated(cx0, cy0), ..b })
            .find(|b| {
                (b.quad.mean_side() - side).abs() < SAME_SIZE * side
                    && b.quad.centre().dist(slot.centre()) < CENTRE_TOLERANCE * side
            });
        if let Some(board) = in_slot {
            trace!(" a board in the empty slot at {:?}", slot.centre());
            found.push(board);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x: f64, y: f64, side: f64) -> Quad {
        Quad::rect(x, y, x + side, y + side)
    }

    #[test]
    fn a_table_with_one_board_missing_has_one_slot_and_a_full_one_none() {
        // Two columns, three rows of 160 px boards, 60 px apart; the bottom right one missing.
        let at = |col: f64, row: f64| square(100.0 + col * 220.0, 100.0 + row * 220.0, 160.0);
        let five = [at(0.0, 0.0), at(1.0, 0.0), at(0.0, 1.0), at(1.0, 1.0), at(0.0, 2.0)];
        let slots = empty_slots(&five, 1000.0, 1000.0);
        assert_eq!(slots.len(), 1);
        let c = slots[0].centre();
        assert!((c.x - 400.0).abs() < 1e-9 && (c.y - 620.0).abs() < 1e-9, "{c:?}");
        let mut six = five.to_vec();
        six.push(at(1.0, 2.0));
        assert!(empty_slots(&six, 1000.0, 1000.0).is_empty());
    }

    #[test]
    fn boards_of_other_sizes_and_slots_off_the_picture_make_no_slot() {
        // A large board and a small one diagonal to it: not set out alike.
        assert!(empty_slots(&[square(0.0, 0.0, 300.0), square(400.0, 400.0, 100.0)], 1000.0, 1000.0).is_empty());
        // Two alike, diagonal: both crossings are slots, unless they leave the picture.
        let two = [square(0.0, 0.0, 100.0), square(150.0, 150.0, 100.0)];
        assert_eq!(empty_slots(&two, 1000.0, 1000.0).len(), 2);
        assert_eq!(empty_slots(&two, 240.0, 1000.0).len(), 1);
    }
}
