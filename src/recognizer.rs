//! [`Recognizer`]: the five steps in one object, built once and shared by the CLI, tests and
//! benchmarks.

use std::path::Path;

use image::{DynamicImage, GrayImage};

use crate::classify::{ClassProbs, Classifier, ClassifierOptions};
use crate::fen::FenOptions;
use crate::geometry::Quad;
use crate::locate::{self, LocateOptions, Located};
use crate::orient::{self, Orientation, OrientationSource};
use crate::picture::{jpeg_reduction, read_bytes};
use crate::reading::{assemble, whole_board_orientation, BoardKind, BoardReading, Decoding, DEFAULT_MIN_CONFIDENCE};
use crate::{cells, decode_image, decode_reduced, to_move, Error};

/// How much less clearly a board moved where its coordinates put it may alternate light and dark
/// than the board the finder found ([`locate::window_contrast`], from -1 to 1) and still be read
/// there. Taking in a file of page beside the board costs about an eighth.
pub const MOVE_CONTRAST_SLACK: f64 = 0.05;

/// Cells whose best class is less probable than this get the recognizer's second look
/// ([`Options::second_look`]). Measured with `img2fen eval --no-second-look` against the default
/// (docs/experiments/2026-11-30-second-look.md).
pub const SECOND_LOOK_BELOW: f32 = 0.9;
/// How far the second look moves the board along each diagonal, in pixels of the warped board
/// (a thirty-second of a square; training cuts move each corner by up to 6% of a square).
pub const SECOND_LOOK_SHIFT: f64 = 1.0;

/// A large JPEG is first decoded reduced ([`decode_reduced`]) to no less than this many pixels
/// on its shorter side ([`Options::reduce_large_jpegs`]): a 12-megapixel photo (4000x3000) to
/// 1000x750, smaller than most of realdata-physical's photos (1280x960) and of the renders the
/// physical models were trained on.
pub const REDUCED_MIN_SIDE: u32 = 720;
/// A board read on a reduced picture must measure at least this many pixels a side there (40 a
/// square: every 32-pixel cell the models see is cut from more pixels than it has); else, or
/// when no board is found, the picture is read again at full size.
pub const REDUCED_MIN_BOARD_PX: f64 = 320.0;

/// A picture decoded for reading ([`Recognizer::read_picture`]).
struct Prepared {
    image: DynamicImage,
    reduction: u32,
    /// Its grey copy and the boards found, when it was searched already.
    located: Option<(GrayImage, Vec<Located>)>,
}

/// What [`Recognizer::read_picture`] read: the boards (corners in the picture's own pixels), or
/// why there were none, and the picture as decoded to read them.
pub struct PictureReading {
    /// The boards, in reading order, or why none was read.
    pub boards: Result<Vec<BoardReading>, Error>,
    /// The picture as the boards were read on it: whole, or reduced by `reduction`.
    pub image: DynamicImage,
    /// How many of the picture's pixels one of `image`'s spans along each side (1, 2, 4 or 8).
    pub reduction: u32,
}

/// Whether a text board's symbols are printed with their colours inverted (python-chess's
/// `invert_color`, for dark terminals, prints the filled symbols for White), and if so swaps its
/// classes' colours. Only printed coordinates can tell: a board so printed from Black's side
/// without them is, glyph for glyph, the colour-swapped board from White's. So the colours are
/// swapped when the coordinates decide which side is at the bottom, the pieces as read say
/// the other side at 90% or more, and the pieces with colours swapped agree with the coordinates
/// at 90% or more.
fn symbols_inverted(t: &mut crate::textboard::TextBoard) -> bool {
    let Some((by_labels, _)) = t.coordinates.and_then(|c| c.orientation()) else { return false };
    let displayed = |probs: &[ClassProbs]| -> [Option<shakmaty::Piece>; 64] {
        std::array::from_fn(|i| crate::CLASSES[crate::classify::most_probable(&probs[i]).0])
    };
    let swap = |p: &ClassProbs| -> ClassProbs { std::array::from_fn(|k| p[if k == 0 { 0 } else { (k + 5) % 12 + 1 }]) };
    let swapped: Vec<ClassProbs> = t.probs.iter().map(swap).collect();
    let (as_read, p) = orient::from_pieces(&displayed(&t.probs));
    let (as_swapped, q) = orient::from_pieces(&displayed(&swapped));
    if as_read != by_labels && p >= 0.9 && as_swapped == by_labels && q >= 0.9 {
        t.probs = swapped;
        return true;
    }
    false
}

/// A picture whose boards of squares hold a flat one with at least this many uncertain squares
/// is searched for text boards too ([`Recognizer::recognize`]).
pub const TEXT_SEARCH_UNSURE: usize = 8;

/// A picture with more ink pieces than this is no text to search for text boards in (a page of
/// terminal text at 12 px holds about 5,000 characters).
pub const MAX_TEXT_GLYPHS: usize = 20_000;

/// A board the kind classifier gives at least this probability of being a physical one is read
/// as one (`--kind auto`).
pub const PHYSICAL_AT: f32 = 0.5;

/// A board whose sides all run within this many degrees of the picture's axes is a flat one
/// whatever it looks like: screens and scans draw boards upright, and no camera lines up a real
/// board that closely (realdata-physical's boards lean at least 2.7 degrees, the rendered ones
/// 1.5).
pub const UPRIGHT_DEGREES: f64 = 0.5;

/// The board inside `quad` turned by a quarter: the corner shown at the bottom left becomes
/// the top-left one, so that a board photographed from beside it reads with its files across.
pub fn quarter_turned(quad: &Quad) -> Quad {
    let q = quad.0;
    Quad([q[3], q[0], q[1], q[2]])
}

/// Cells in display order of a board read with [`quarter_turned`] corners, from the cells in the
/// display order of the corners as they were.
fn quarter_turn_cells<T: Copy>(cells: &[T]) -> Vec<T> {
    (0..64).map(|i| cells[(7 - i % 8) * 8 + i / 8]).collect()
}

/// Everything the recognizer can be told; `Default` gives the CLI's defaults.
#[derive(Debug, Clone)]
pub struct Options {
    /// Backend and models.
    pub classifier: ClassifierOptions,
    /// The board finder's options.
    pub locate: LocateOptions,
    /// `None`: decide from the picture.
    pub orientation: Option<Orientation>,
    /// FEN fields 2-6.
    pub fen: FenOptions,
    /// Squares whose best class is less probable are uncertain ([`DEFAULT_MIN_CONFIDENCE`]).
    pub min_confidence: f32,
    /// Classify the unsure cells again from slightly moved boards and average (on by default).
    pub second_look: bool,
    /// `None`: decide for each board whether it is flat or physical ([`Recognizer::kind_of`]).
    pub kind: Option<BoardKind>,
    /// Read a large JPEG reduced first, and whole only when a board found is small or none is
    /// ([`Recognizer::read_picture`]; on by default).
    pub reduce_large_jpegs: bool,
    /// Read the boards a PDF page draws in a chess diagram font from its text layer
    /// ([`crate::pdf::text_layer`]) rather than from the picture (on by default).
    pub text_layer: bool,
    /// Log-odds for White at the bottom that the kind of document adds where the pieces decide
    /// the orientation ([`orient::from_pieces_and_coordinates`]): 0 for pictures. PDF pages
    /// use [`orient::BOOK_CONVENTION`] for diagrams set in a chess font without labels and for
    /// boards on scanned pages, whatever this says.
    pub white_convention: f32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            classifier: ClassifierOptions::default(),
            locate: LocateOptions::default(),
            orientation: None,
            fen: FenOptions::default(),
            min_confidence: DEFAULT_MIN_CONFIDENCE,
            second_look: true,
            kind: None,
            reduce_large_jpegs: true,
            text_layer: true,
            white_convention: 0.0,
        }
    }
}

/// The whole pipeline, built once and shared (it is `Sync`).
pub struct Recognizer {
    classifier: Classifier,
    opts: Options,
}

impl Recognizer {
    /// Loads the models `opts` asks for.
    pub fn new(opts: Options) -> Result<Self, Error> {
        let classifier = Classifier::new(&opts.classifier)?;
        if let (Some(kind), Some(set)) = (opts.kind, classifier.set()) {
            if set.model.kind() != kind {
                return Err(Error::Set {
                    path: None,
                    reason: format!(
                        "the learned set '{}' is for {} boards, and the boards are to be read as {} ones",
                        set.name,
                        set.model.kind().name(),
                        kind.name()
                    ),
                });
            }
        }
        Ok(Recognizer { classifier, opts })
    }

    /// The options it was built with.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Its classifier (step 3), to run alone.
    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    /// Reads every board in the file at `path`, in reading order ([`Recognizer::read_picture`]).
    pub fn read_file(&self, path: &Path) -> Result<Vec<BoardReading>, Error> {
        let bytes = read_bytes(path)?;
        self.read_picture(&bytes).and_then(|r| r.boards).map_err(|e| e.in_file(path))
    }

    /// The picture in the file at `path` decoded as [`Recognizer::read_file`] reads it
    /// ([`Recognizer::decode_for_reading`]).
    pub fn load_for_reading(&self, path: &Path) -> Result<DynamicImage, Error> {
        let bytes = read_bytes(path)?;
        self.decode_for_reading(&bytes).map(|(image, _)| image).map_err(|e| e.in_file(path))
    }

    /// Decodes a picture file's bytes and reads every board in it. A large JPEG
    /// ([`Options::reduce_large_jpegs`]) is decoded reduced first ([`decode_reduced`], to no less
    /// than [`REDUCED_MIN_SIDE`]) and read so when every board found there measures at least
    /// [`REDUCED_MIN_BOARD_PX`]. Else, before any board is read, it is decoded again at the
    /// largest size that gives the smallest board found that many pixels (whole when none was
    /// found) and read there. A phone photo's board needs no more pixels than that, and a
    /// 12-megapixel JPEG decodes in two thirds of the time at a quarter of its sides, which the
    /// board finder then searches in a third of the time. Corners are in the picture's own
    /// pixels either way. `Err` only when the bytes cannot be decoded; a picture without a board
    /// gives [`PictureReading::boards`] as `Err`.
    pub fn read_picture(&self, bytes: &[u8]) -> Result<PictureReading, Error> {
        let Prepared { image, reduction, located } = self.prepare(bytes)?;
        let boards = match located {
            Some((gray, found)) => self.read_found(&image, &gray, found),
            None => self.recognize(&image),
        };
        let boards = boards.map(|mut boards| {
            for b in &mut boards {
                b.corners = b.corners.scaled(reduction as f64);
            }
            boards
        });
        Ok(PictureReading { boards, image, reduction })
    }

    /// A picture file's bytes decoded as [`Recognizer::read_picture`] decodes them to read them
    /// (a large JPEG perhaps reduced), and by how much its sides were reduced: the pictures a
    /// piece set is learned from are cut as the ones it reads.
    pub fn decode_for_reading(&self, bytes: &[u8]) -> Result<(DynamicImage, u32), Error> {
        self.prepare(bytes).map(|p| (p.image, p.reduction))
    }

    /// Decodes a picture as [`Recognizer::read_picture`] reads it; a large JPEG read reduced comes
    /// with its grey copy and the boards found in it.
    fn prepare(&self, bytes: &[u8]) -> Result<Prepared, Error> {
        let mut again = 1;
        let first = self.opts.reduce_large_jpegs.then(|| jpeg_reduction(bytes, REDUCED_MIN_SIDE)).flatten();
        if let Some((image, f)) = first.and_then(|f| Some((decode_reduced(bytes, f)?, f))) {
            let gray = cells::grey(&image);
            let found = self.locate(&image, &gray);
            let smallest = found.iter().map(|b| b.quad.mean_side()).fold(f64::INFINITY, f64::min);
            if !found.is_empty() && smallest >= REDUCED_MIN_BOARD_PX {
                return Ok(Prepared { image, reduction: f, located: Some((gray, found)) });
            }
            // At 1/g of the picture's sides the smallest board measures smallest * f / g.
            let enough = |g: &u32| smallest.is_finite() && smallest * (f / g) as f64 >= REDUCED_MIN_BOARD_PX;
            again = [4, 2].into_iter().filter(|g| g < &f).find(enough).unwrap_or(1);
        }
        if again > 1 {
            if let Some(image) = decode_reduced(bytes, again) {
                return Ok(Prepared { image, reduction: again, located: None });
            }
        }
        Ok(Prepared { image: decode_image(bytes)?, reduction: 1, located: None })
    }

    /// Finds every board in a decoded picture and reads them, in reading order.
    pub fn recognize(&self, img: &DynamicImage) -> Result<Vec<BoardReading>, Error> {
        if img.width().min(img.height()) < locate::MIN_BOARD_PX as u32 {
            return Err(Error::TooSmall {
                path: None,
                width: img.width(),
                height: img.height(),
                min: locate::MIN_BOARD_PX as u32,
            });
        }
        let gray = cells::grey(img);
        let found = self.locate(img, &gray);
        self.read_found(img, &gray, found)
    }

    /// Reads the boards found in a picture (`gray` is its grey copy), or, when none was, its
    /// text boards.
    fn read_found(
        &self,
        img: &DynamicImage,
        gray: &GrayImage,
        found: Vec<Located>,
    ) -> Result<Vec<BoardReading>, Error> {
        if found.is_empty() {
            // A picture without a board of squares may show one printed as text.
            let (text, partial) = self.read_text_boards(gray)?;
            if !text.is_empty() {
                return Ok(text);
            }
            let nearest = match partial {
                Some(p) => {
                    format!("a text board, but {} rows of chess characters lie together where a board has 8", p.rows)
                }
                None => locate::nearest_grid(gray, &self.opts.locate)
                    .map_or_else(|| "no grid of alternating squares".to_string(), |g| g.describe(&self.opts.locate)),
            };
            return Err(Error::NoBoard { path: None, nearest });
        }
        let quads: Vec<Quad> = found.iter().map(|b| b.quad).collect();
        let mut boards: Vec<BoardReading> = found
            .iter()
            .map(|b| self.read_located(Some(img), gray, b, self.opts.white_convention, &quads))
            .collect::<Result<_, _>>()?;
        // The bars and dots of a board printed as text can pass for a grid of squares, read
        // then as a board whose squares are mostly in doubt: such a picture is searched for text
        // boards too, and one that covers a board found replaces it. (A clean board has no
        // square in doubt, so this costs it nothing; a physical board, whose squares are often in
        // doubt, is a photo of a set, never text: searching a phone photo for text boards took
        // longer than reading its board.)
        if boards.iter().any(|b| b.kind == BoardKind::Flat && b.uncertain().len() >= TEXT_SEARCH_UNSURE) {
            let (text, _) = self.read_text_boards(gray)?;
            for t in text {
                let covers =
                    |b: &BoardReading| t.corners.contains(b.corners.centre()) || b.corners.contains(t.corners.centre());
                match boards.iter().position(covers) {
                    Some(i) => boards[i] = t,
                    None => boards.push(t),
                }
            }
        }
        Ok(boards)
    }

    /// Reads page `index` (0-based) of a PDF document. Boards the text layer draws
    /// ([`Options::text_layer`]) are read from it and checked against the picture
    /// ([`Recognizer::read_text_board`]), each rendered alone at the resolution that gives its
    /// squares [`crate::pdf::MIN_SQUARE_PX`] unless the page's own rendering already does. A page
    /// that may draw other boards ([`crate::pdf::PageContent::may_draw_other_boards`]) is
    /// rendered whole, a scanned one at its picture's resolution, a vector one at
    /// [`crate::pdf::DEFAULT_DPI`], and searched; when the boards found come out with squares
    /// under `MIN_SQUARE_PX` it is rendered again at the resolution that gives them that size.
    /// Corners are in pixels of the page at the highest resolution any board was read at
    /// ([`crate::pdf::PageReading::dpi`]). A page without a board is no error: it reads as no
    /// boards.
    #[cfg(feature = "pdf")]
    pub fn read_pdf_page(&self, doc: &crate::pdf::Document, index: usize) -> Result<crate::pdf::PageReading, Error> {
        use crate::pdf::{PageReading, TextBoard, DEFAULT_DPI, MAX_DPI, MIN_DPI, MIN_SQUARE_PX};
        let content = doc.content(index)?;
        let scanned = content.scan_dpi.is_some();
        let mut document = content.is_document();
        // A page that draws nothing a board could be made of beyond its text boards (prose, and
        // diagrams set in a diagram font) is not drawn whole nor searched: its text boards are
        // drawn alone.
        let search = !self.opts.text_layer || scanned || content.may_draw_other_boards();
        let text: Vec<TextBoard> = if self.opts.text_layer { content.text_boards } else { Vec::new() };
        let dpi = content.scan_dpi.map_or(DEFAULT_DPI, |d| d.clamp(MIN_DPI, MAX_DPI));
        if !search && text.is_empty() {
            return Ok(PageReading { page: index + 1, dpi, scanned, boards: vec![] });
        }
        let mut page = None;
        let mut found = Vec::new();
        if search {
            let first = doc.render(index, dpi)?;
            if first.image.width().min(first.image.height()) < locate::MIN_BOARD_PX as u32 {
                return Ok(PageReading { page: index + 1, dpi: first.dpi, scanned, boards: vec![] });
            }
            // The boards the picture shows beyond the text layer's, found first, read once: at
            // this resolution, or at the one that gives the smallest board's squares
            // MIN_SQUARE_PX.
            let found_beyond = |image: &DynamicImage, gray: &GrayImage, dpi: f32| {
                let in_text = |b: &Located| {
                    let centre = b.quad.centre();
                    text.iter().any(|t| t.quad.scaled(dpi as f64 / 72.0).contains(centre))
                };
                // A book prints its diagrams upright: a page without one is not searched turned.
                let found = self.locate_with(image, gray, &LocateOptions { turned: false, ..self.opts.locate });
                found.into_iter().filter(|b| !in_text(b)).collect::<Vec<_>>()
            };
            let gray = cells::grey(&first.image);
            found = found_beyond(&first.image, &gray, first.dpi);
            let (mut first, mut gray) = (first, gray);
            let smallest = found.iter().map(|b| b.quad.mean_side() as f32 / 8.0).reduce(f32::min);
            let sharper = smallest
                .filter(|&square| !scanned && square < MIN_SQUARE_PX)
                .map(|square| (first.dpi * MIN_SQUARE_PX / square.max(1.0)).min(MAX_DPI))
                .filter(|&dpi| dpi > first.dpi * 1.05);
            if let Some(dpi) = sharper {
                let again = doc.render(index, dpi)?;
                let again_gray = cells::grey(&again.image);
                let again_found = found_beyond(&again.image, &again_gray, again.dpi);
                if again_found.len() >= found.len() {
                    (first, gray, found) = (again, again_gray, again_found);
                }
            }
            page = Some((first, gray));
        }
        // A page that sets several diagrams is a book's too: an app exports a board a page.
        document |= text.len() + found.len() >= 2;
        let page_dpi = page.as_ref().map_or(dpi, |(p, _)| p.dpi);
        // A text board whose squares the page gives fewer than MIN_SQUARE_PX pixels (or that of
        // a page not drawn whole) is drawn again alone, with a margin of a square and a half for
        // its labels, at the resolution that gives them MIN_SQUARE_PX.
        let dpi_for = |t: &TextBoard| {
            let square_pt = t.quad.mean_side() as f32 / 8.0;
            (72.0 * MIN_SQUARE_PX / square_pt.max(0.01)).clamp(page_dpi, MAX_DPI)
        };
        let alone: Vec<bool> =
            text.iter().map(|t| page.is_none() || (!scanned && dpi_for(t) > page_dpi * 1.05)).collect();
        let text_dpi: Vec<f32> = text.iter().zip(&alone).map(|(t, &a)| if a { dpi_for(t) } else { page_dpi }).collect();
        // Corners are given in pixels of the page at the highest resolution any board was read at.
        let out_dpi = text_dpi.iter().copied().fold(page_dpi, f32::max);
        let to_out = out_dpi as f64 / page_dpi as f64;
        let mut all: Vec<(Located, Option<usize>)> = text
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let quad = t.quad.scaled(out_dpi as f64 / 72.0);
                (Located { quad, corners_found: 49, rms_error: 0.0 }, Some(i))
            })
            .chain(found.into_iter().map(|b| (Located { quad: b.quad.scaled(to_out), ..b }, None)))
            .collect();
        let mut order: Vec<Located> = all.iter().map(|(b, _)| b.clone()).collect();
        locate::reading_order(&mut order);
        all.sort_by_key(|(b, _)| order.iter().position(|o| o.quad == b.quad));
        // Every board of the page, in the pixels of the page as drawn whole.
        let on_page: Vec<Quad> = all.iter().map(|(b, _)| b.quad.scaled(1.0 / to_out)).collect();
        let boards = all
            .iter()
            .map(|(b, from_text)| match (*from_text, &page) {
                (Some(i), _) if alone[i] => {
                    let t = &text[i];
                    let margin = 1.5 * t.quad.mean_side() as f32 / 8.0;
                    let [tl, _, br, _] = t.quad.0;
                    let rect = [tl.x as f32 - margin, tl.y as f32 - margin, br.x as f32 + margin, br.y as f32 + margin];
                    let (crop, [x0, y0]) = doc.render_region(index, text_dpi[i], rect)?;
                    let scale = text_dpi[i] as f64 / 72.0;
                    let located = Located {
                        quad: t.quad.translated(-x0 as f64, -y0 as f64).scaled(scale),
                        corners_found: 49,
                        rms_error: 0.0,
                    };
                    let mut r = self.read_text_board(&crop.image, &cells::grey(&crop.image), &located, t)?;
                    r.corners =
                        r.corners.scaled(1.0 / scale).translated(x0 as f64, y0 as f64).scaled(out_dpi as f64 / 72.0);
                    Ok(r)
                }
                (from_text, Some((image, gray))) => {
                    let located = Located { quad: b.quad.scaled(1.0 / to_out), ..b.clone() };
                    let mut r = match from_text {
                        Some(i) => self.read_text_board(&image.image, gray, &located, &text[i])?,
                        // A book's or an article's page, scanned or set, shows White at the bottom
                        // unless it says otherwise (a board drawn to PDF alone may be an app's view
                        // from either side).
                        None => self.read_located(
                            Some(&image.image),
                            gray,
                            &located,
                            if document { orient::BOOK_CONVENTION } else { self.opts.white_convention },
                            &on_page,
                        )?,
                    };
                    r.corners = r.corners.scaled(to_out);
                    Ok(r)
                }
                (_, None) => unreachable!("boards beyond the text layer are found on the page drawn whole"),
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(PageReading { page: index + 1, dpi: out_dpi, scanned, boards })
    }

    /// Reads a board a PDF's text layer draws (`text`), found at `located` in the page's
    /// picture: its pieces are the text layer's, its orientation is its labels' (or, without
    /// labels in the text, what its pieces say against the book convention of White at the
    /// bottom), and the classifier reads the picture too, so that the squares where the two differ are reported
    /// ([`BoardReading::picture_differs`], with a warning).
    #[cfg(feature = "pdf")]
    pub fn read_text_board(
        &self,
        colour: &DynamicImage,
        gray: &GrayImage,
        located: &Located,
        text: &crate::pdf::TextBoard,
    ) -> Result<BoardReading, Error> {
        use crate::classify::class_index;
        let cut = cells::Cut::new(gray, &located.quad);
        let pictured = self.classify(&cut)?;
        // Labels beside a board set as text are set as text too: without them in the text
        // layer, the picture's coordinate reader could only add noise.
        let coords = text.coordinates;
        let best = |p: &ClassProbs| crate::classify::most_probable(p).0;
        // Where the glyphs read differently under two font layouts, the one the picture agrees
        // with most is kept (the first listed on a tie).
        let agreement = |cells: &[Option<shakmaty::Piece>; 64]| {
            cells.iter().zip(&pictured).filter(|(&c, p)| class_index(c) == best(p)).count()
        };
        let mut cells = text.cells;
        for (_, alternative) in &text.alternatives {
            if agreement(alternative) > agreement(&cells) {
                cells = *alternative;
            }
        }
        let probs: Vec<ClassProbs> =
            cells.iter().map(|&p| std::array::from_fn(|c| if c == class_index(p) { 1.0 } else { 0.0 })).collect();
        let fen = &self.opts.fen;
        let tinted = if fen.turn_from_picture || fen.en_passant_from_picture {
            to_move::find_highlights(colour, &located.quad)
        } else {
            Vec::new()
        };
        // A book shows White at the bottom unless it says otherwise: without labels in the text,
        // the pieces must outweigh that convention.
        let opts = Options {
            white_convention: if text.coordinates.is_none() { orient::BOOK_CONVENTION } else { 0.0 },
            ..self.opts.clone()
        };
        let mut reading = assemble(probs, coords, located, cut.board, &tinted, &opts, Decoding::SquareBySquare);
        reading.source = crate::ReadingSource::TextLayer;
        reading.picture_differs = (0..64)
            .filter(|&i| best(&pictured[i]) != class_index(cells[i]))
            .map(|i| orient::square_shown(i, reading.orientation, reading.files_reversed))
            .collect();
        if !reading.picture_differs.is_empty() {
            let names: Vec<String> = reading.picture_differs.iter().map(|s| s.to_string()).collect();
            reading.warnings.push(format!(
                "the picture shows {} square{} differently from the PDF's text layer ({}); the text layer's reading is kept",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        reading.set = None;
        Ok(reading)
    }

    /// Every text board in a picture whose grey levels are `gray` ([`crate::textboard`]): its
    /// characters named by the glyph classifier, then steps 4 and 5. Also the largest group of
    /// rows that looked like part of a text board but made none, for the error that says so.
    /// None without a glyph classifier, when the picture's ink shows no monospace advance
    /// ([`crate::textboard::Glyphs::advance`]), or when it holds more ink pieces than
    /// [`MAX_TEXT_GLYPHS`] (a photo, not text).
    pub fn read_text_boards(
        &self,
        gray: &GrayImage,
    ) -> Result<(Vec<BoardReading>, Option<crate::textboard::Partial>), Error> {
        use crate::textboard;
        if !self.classifier.reads_text() {
            return Ok((Vec::new(), None));
        }
        // A text board is printed in a monospace font: a picture whose characters show no
        // advance is not searched.
        let Some(mut glyphs) =
            textboard::glyphs::find(gray).filter(|g| g.advance.is_some() && g.glyphs.len() <= MAX_TEXT_GLYPHS)
        else {
            return Ok((Vec::new(), None));
        };
        let read = |glyphs: &textboard::glyphs::Glyphs, which: &[usize]| -> Result<Vec<_>, Error> {
            let mut probs = Vec::with_capacity(which.len());
            for chunk in which.chunks(256) {
                probs.extend(self.classifier.read_glyphs(&glyphs.patches(gray, chunk))?.unwrap_or_default());
            }
            Ok(probs)
        };
        let all: Vec<usize> = (0..glyphs.glyphs.len()).collect();
        let mut probs = read(&glyphs, &all)?;
        let (mut boards, mut partial) = textboard::find_boards(&glyphs, &probs);
        if boards.is_empty() && partial.is_some() {
            // Rows of a board with a symbol missed by the ink threshold: classify the gaps too.
            let gaps = textboard::gaps(&glyphs, &probs);
            if !gaps.is_empty() {
                let first = glyphs.glyphs.len();
                glyphs.glyphs.extend(gaps);
                let added: Vec<usize> = (first..glyphs.glyphs.len()).collect();
                probs.extend(read(&glyphs, &added)?);
                let (b, p) = textboard::find_boards(&glyphs, &probs);
                if !b.is_empty() {
                    (boards, partial) = (b, p);
                }
            }
        }
        let readings = boards
            .into_iter()
            .map(|mut t| {
                let swapped = self.opts.orientation.is_none() && symbols_inverted(&mut t);
                let located = Located { quad: t.quad, corners_found: 0, rms_error: 0.0 };
                let warped = cells::extract(gray, &t.quad);
                let mut r = assemble(t.probs, t.coordinates, &located, warped, &[], &self.opts, Decoding::SquareBySquare);
                r.source = crate::ReadingSource::Text;
                if swapped {
                    r.warnings.insert(
                        0,
                        "the filled symbols stand for White (a board printed with inverted colours, as python-chess's invert_color prints it): its coordinates and where the pawns and kings stand say so"
                            .to_string(),
                    );
                }
                r.mark_outside(gray.width(), gray.height());
                r
            })
            .collect();
        Ok((readings, partial))
    }

    /// Step 1: every board in a decoded picture whose grey levels are `gray`
    /// ([`cells::grey`]), in reading order.
    pub fn locate(&self, img: &DynamicImage, gray: &GrayImage) -> Vec<Located> {
        self.locate_with(img, gray, &self.opts.locate)
    }

    /// [`Recognizer::locate`] with other options for the board finder.
    fn locate_with(&self, img: &DynamicImage, gray: &GrayImage, opts: &LocateOptions) -> Vec<Located> {
        let mut found = locate::locate_all_colour(img, gray, opts);
        locate::reading_order(&mut found);
        found
    }

    /// Step 3 on a board's cells: 13 class probabilities per cell, a8 to h1 as displayed, with
    /// the second look ([`Recognizer::second_look`]) when it is on.
    pub fn classify(&self, cut: &cells::Cut) -> Result<Vec<ClassProbs>, Error> {
        let mut probs = self.classifier.classify_sized(&cells::to_tensor(&cut.board), cut.square_px)?;
        self.second_look(cut, &mut probs)?;
        Ok(probs)
    }

    /// Reads one located board (steps 2-5). When its coordinates say beyond doubt that the board
    /// lies a row or column off, fit in place once it is moved, and the moved board alternates
    /// light and dark as clearly as the found one ([`MOVE_CONTRAST_SLACK`]), the moved board is
    /// read. Grey levels alone show no highlighted last move: [`Recognizer::recognize`] reads the
    /// side to move from the colours too.
    pub fn read_board(&self, gray: &GrayImage, located: &Located) -> Result<BoardReading, Error> {
        self.read_located(None, gray, located, self.opts.white_convention, &[])
    }

    /// [`Recognizer::read_board`] with the picture's colours, when there are, for the side to move,
    /// the log-odds for White at the bottom its kind of document adds ([`Options::white_convention`]),
    /// and the other boards of the picture (`boards`, this one among them or not), whose labels
    /// are not this board's ([`Recognizer::read_coordinates_beside`]).
    fn read_located(
        &self,
        colour: Option<&DynamicImage>,
        gray: &GrayImage,
        located: &Located,
        convention: f32,
        boards: &[Quad],
    ) -> Result<BoardReading, Error> {
        let centre = located.quad.centre();
        let neighbours: Vec<Quad> = boards.iter().copied().filter(|q| !q.contains(centre)).collect();
        let coords = self.read_coordinates_beside(gray, &located.quad, &neighbours)?;
        if let Some(shift) = coords.map(|c| c.shift).filter(|&s| s != (0, 0)) {
            let moved = Located { quad: orient::shifted(&located.quad, shift), ..located.clone() };
            // Labels a page misplaces (chessground's stock stylesheet sets its file letters 24
            // pixels right of their files) must not pull a clean board onto the page.
            let checkered = locate::window_contrast(gray, &moved.quad)
                >= locate::window_contrast(gray, &located.quad) - MOVE_CONTRAST_SLACK;
            let again = if checkered { self.read_coordinates_beside(gray, &moved.quad, &neighbours)? } else { None };
            if let Some(c) = again.filter(|c| c.shift == (0, 0) && c.orientation().is_some()) {
                let mut reading = self.read_at(colour, gray, &moved, Some(c), convention)?;
                let (dc, dr) = shift;
                let what = match (dc, dr) {
                    (0, _) => format!("one row {}", if dr > 0 { "lower" } else { "higher" }),
                    (_, 0) => format!("one column {}", if dc > 0 { "further right" } else { "further left" }),
                    _ => "one row and one column off".to_string(),
                };
                reading
                    .warnings
                    .insert(0, format!("the board was found {what} than its coordinates say; read where they put it"));
                return Ok(reading);
            }
        }
        self.read_at(colour, gray, located, coords, convention)
    }

    fn read_at(
        &self,
        colour: Option<&DynamicImage>,
        gray: &GrayImage,
        located: &Located,
        coords: Option<orient::CoordinateReading>,
        convention: f32,
    ) -> Result<BoardReading, Error> {
        let cut = cells::Cut::new(gray, &located.quad);
        let (kind, kind_confidence) = self.kind_of(&cut.board, &located.quad)?;
        let mut reading = if kind == BoardKind::Physical {
            self.read_physical(gray, located, coords, cut.board)?
        } else {
            let probs = self.classify(&cut)?;
            // Only a flat board's squares are tinted by a UI; the pixels are looked at only when
            // asked.
            let fen = &self.opts.fen;
            let tinted = match colour {
                Some(img) if fen.turn_from_picture || fen.en_passant_from_picture => {
                    to_move::find_highlights(img, &located.quad)
                }
                _ => Vec::new(),
            };
            let other = (convention != self.opts.white_convention)
                .then(|| Options { white_convention: convention, ..self.opts.clone() });
            assemble(
                probs,
                coords,
                located,
                cut.board,
                &tinted,
                other.as_ref().unwrap_or(&self.opts),
                Decoding::SquareBySquare,
            )
        };
        reading.kind_confidence = kind_confidence;
        reading.set = self.classifier.set().filter(|s| s.model.kind() == kind).map(|s| s.name.clone());
        reading.mark_outside(gray.width(), gray.height());
        Ok(reading)
    }

    /// Step 1c: whether the board inside `quad`, warped to `board` ([`cells::extract`]), is a
    /// flat or a physical one, with the probability of that answer: `--kind` when given
    /// (probability 1), else the kind a learned set is for (probability 1); flat when this build has no physical-board model or the board stands
    /// upright in the picture ([`UPRIGHT_DEGREES`]); else the kind classifier ([`PHYSICAL_AT`]),
    /// when there is one.
    pub fn kind_of(&self, board: &GrayImage, quad: &Quad) -> Result<(BoardKind, f32), Error> {
        if let Some(kind) = self.opts.kind.or(self.classifier.set().map(|s| s.model.kind())) {
            return Ok((kind, 1.0));
        }
        if !self.classifier.reads_physical() || quad.tilt() < UPRIGHT_DEGREES.to_radians() {
            return Ok((BoardKind::Flat, 1.0));
        }
        Ok(match self.classifier.physical_probability(&cells::kind_view(board))? {
            Some(p) if p >= PHYSICAL_AT => (BoardKind::Physical, p),
            Some(p) => (BoardKind::Flat, 1.0 - p),
            None => (BoardKind::Flat, 1.0),
        })
    }

    /// Reads a located board as a physical one: its tall cells ([`cells::tall_cells`]) through
    /// the physical-board model, then steps 4 and 5, the board decoded as a whole
    /// ([`Decoding::WholeBoard`]). A photo taken from beside the board shows the files running up
    /// the picture, so the board is read both as found and [`quarter_turned`]. Which of the four
    /// turns is up: coordinates that decide alone; else the turn that makes the whole board far
    /// more probable than the others ([`whole_board_orientation`]); else the turn whose
    /// orientation from the pieces is the more confident. `coords` and `warped` are the board's
    /// as found ([`Recognizer::read_coordinates`], [`cells::extract`]).
    pub fn read_physical(
        &self,
        gray: &GrayImage,
        located: &Located,
        coords: Option<orient::CoordinateReading>,
        warped: GrayImage,
    ) -> Result<BoardReading, Error> {
        let tall = cells::tall_cells(gray, &located.quad);
        let probs = self.classifier.classify_tall(&tall)?.ok_or_else(|| {
            Error::model_load(None, "this build has no physical-board model: pass --physical-model PATH")
        })?;
        let turned_probs = quarter_turn_cells(&probs);
        let quad = quarter_turned(&located.quad);
        let turned_coords = self.read_coordinates(gray, &quad)?;
        let decides = |c: &Option<orient::CoordinateReading>| c.as_ref().is_some_and(|c| c.orientation().is_some());
        // Without a flag or coordinates that decide, the turn that makes the whole board far
        // more probable than the others decides.
        let by_board = (self.opts.orientation.is_none() && !decides(&coords) && !decides(&turned_coords))
            .then(|| whole_board_orientation(&probs, &turned_probs))
            .flatten();
        let physical = |mut r: BoardReading| {
            r.kind = BoardKind::Physical;
            r
        };
        let read_found = |decoding| physical(assemble(probs, coords, located, warped, &[], &self.opts, decoding));
        let read_turned = |decoding| {
            let turned = Located { quad, ..located.clone() };
            let warped = cells::extract(gray, &quad);
            physical(assemble(turned_probs, turned_coords, &turned, warped, &[], &self.opts, decoding))
        };
        // Only the turn the whole board chose is read then.
        if let Some((is_turned, o, p)) = by_board {
            let decoding = Decoding::WholeBoard(Some((o, p)));
            return Ok(if is_turned { read_turned(decoding) } else { read_found(decoding) });
        }
        let found = read_found(Decoding::WholeBoard(None));
        let turned = read_turned(Decoding::WholeBoard(None));
        // Coordinates that decide alone win; else the surer orientation. (Faint labels that only
        // outweigh an empty piece witness must not: on a start position photographed from
        // beside the board, letters half read on the wrong turn beat pieces at 99%.)
        let decisive = |r: &BoardReading| {
            r.orientation_source == OrientationSource::Coordinates
                && r.coordinates.is_some_and(|c| c.orientation().is_some())
        };
        let key = |r: &BoardReading| (decisive(r), r.orientation_confidence);
        Ok(if key(&turned) > key(&found) { turned } else { found })
    }

    /// The second look: the cells whose best class is under [`SECOND_LOOK_BELOW`] are cut again
    /// from the board moved by [`SECOND_LOOK_SHIFT`] pixels along each diagonal, and each gets the
    /// normalised geometric mean of its five readings. A cell that looked unsure because of where
    /// the grid cut it settles; one that is truly ambiguous stays unsure.
    pub fn second_look(&self, cut: &cells::Cut, probs: &mut [ClassProbs]) -> Result<(), Error> {
        if !self.opts.second_look {
            return Ok(());
        }
        let top = |p: &ClassProbs| p.iter().copied().fold(0.0f32, f32::max);
        let unsure: Vec<usize> = (0..probs.len()).filter(|&i| top(&probs[i]) < SECOND_LOOK_BELOW).collect();
        if unsure.is_empty() {
            return Ok(());
        }
        let d = SECOND_LOOK_SHIFT;
        let moves = [(d, d), (-d, d), (d, -d), (-d, -d)];
        // One batch for all four moved boards.
        let parts: Vec<_> = moves.iter().map(|&(dx, dy)| cut.moved_cells(dx, dy, &unsure)).collect();
        let views: Vec<_> = parts.iter().map(|t| t.view()).collect();
        let batch = ndarray::concatenate(ndarray::Axis(0), &views).expect("cells of one shape");
        let again = self.classifier.classify_sized(&batch, cut.square_px)?;
        let n = unsure.len();
        for (k, &i) in unsure.iter().enumerate() {
            let mut log = probs[i].map(|p| p.max(1e-7).ln());
            for m in 0..moves.len() {
                for (l, p) in log.iter_mut().zip(again[m * n + k]) {
                    *l += p.max(1e-7).ln();
                }
            }
            let mean = log.map(|l| (l / (moves.len() + 1) as f32).exp());
            let z: f32 = mean.iter().sum();
            probs[i] = mean.map(|p| p / z);
        }
        Ok(())
    }

    /// What the coordinates drawn around the board inside `quad` say of its orientation; `None`
    /// when `--orientation` decides or there is no coordinate model.
    pub fn read_coordinates(&self, gray: &GrayImage, quad: &Quad) -> Result<Option<orient::CoordinateReading>, Error> {
        self.read_coordinates_beside(gray, quad, &[])
    }

    /// [`Recognizer::read_coordinates`] for a board beside others (`neighbours`, in the same
    /// picture): a patch of the far band that lies within a neighbour's own label sites holds
    /// that board's labels, if any (the file letters of the diagram above, in a puzzle table), and
    /// is not read for this one.
    pub fn read_coordinates_beside(
        &self,
        gray: &GrayImage,
        quad: &Quad,
        neighbours: &[Quad],
    ) -> Result<Option<orient::CoordinateReading>, Error> {
        if self.opts.orientation.is_some() || !self.classifier.reads_coordinates() {
            return Ok(None);
        }
        let n = orient::label_sites().len();
        // Patches too flat to hold a label read as nothing without running the model.
        let mut probs = vec![[0.0; 17]; n];
        probs.iter_mut().for_each(|p| p[0] = 1.0);
        // The labels inside the board first (screens); the band outside (books) only when those
        // do not settle it beyond doubt, and the far band (a word processor's labels beyond its
        // border glyphs) only when neither does. Beside other boards every band is read: the
        // labels between two diagrams may be the neighbour's (a diagram from Black's side, its
        // ranks printed just past this one's edge), and this board's own, further out, outvote
        // them.
        let far = orient::FAR_SITES;
        for part in [0..orient::INNER_SITES, orient::INNER_SITES..far, far..n] {
            let start = part.start;
            let mut cut = orient::label_patches_of(gray, quad, part);
            if start == far && !neighbours.is_empty() {
                // A far patch within a neighbour's label sites is left unread, as a flat one is.
                for (site, contrast) in orient::label_sites()[far..].iter().zip(&mut cut.contrast) {
                    if orient::near_another_board(quad, site, neighbours) {
                        *contrast = 0.0;
                    }
                }
            }
            let (readable, batch) = cut.readable();
            if !readable.is_empty() {
                let Some(read) = self.classifier.read_labels(&batch)? else { return Ok(None) };
                for (i, p) in readable.into_iter().zip(read) {
                    probs[start + i] = p;
                }
            }
            let reading = orient::from_coordinates(&probs);
            if neighbours.is_empty()
                && reading.total().abs() >= 2.0 * orient::COORDINATE_EVIDENCE
                && reading.shift == (0, 0)
                && !reading.files_reversed()
            {
                break;
            }
        }
        Ok(Some(orient::from_coordinates(&probs)))
    }

    /// Steps 4 and 5 ([`assemble`]) with this recognizer's options.
    pub fn assemble(
        &self,
        probs: Vec<ClassProbs>,
        coords: Option<orient::CoordinateReading>,
        located: &Located,
        warped: GrayImage,
    ) -> BoardReading {
        assemble(probs, coords, located, warped, &[], &self.opts, Decoding::SquareBySquare)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Point;

    #[test]
    fn a_quarter_turn_keeps_every_cell_on_its_square() {
        // A board seen at an angle, so that no symmetry hides a wrong mapping.
        let quad =
            Quad([Point::new(120.0, 80.0), Point::new(610.0, 95.0), Point::new(700.0, 500.0), Point::new(60.0, 470.0)]);
        let turned = quarter_turned(&quad);
        let (h, ht) = (quad.board_to_image(), turned.board_to_image());
        let index: Vec<usize> = (0..64).collect();
        let moved = quarter_turn_cells(&index);
        for (i, &j) in moved.iter().enumerate() {
            let centre = |k: usize| Point::new((k % 8) as f64 + 0.5, (k / 8) as f64 + 0.5);
            let (a, b) = (ht.apply(centre(i)), h.apply(centre(j)));
            assert!(a.dist(b) < 1e-6, "cell {i} of the turned board is cell {j} of the board: {a:?} vs {b:?}");
        }
        // Four quarter turns are none.
        let q4 = quarter_turned(&quarter_turned(&quarter_turned(&turned)));
        assert_eq!(q4, quad);
    }
}
