//! PDF documents (feature `pdf`): each page rendered to a picture with hayro, in pure Rust, at a
//! resolution chosen for what the page holds, and read like any picture.
//!
//! - A diagram the page draws as text in a chess font is read from its glyphs
//!   ([`text_layer`]); each such board is rendered alone at the resolution that gives its
//!   squares [`MIN_SQUARE_PX`], for the picture to check it ([`Document::render_region`]).
//! - A vector page that may draw other boards ([`PageContent::may_draw_other_boards`]) is
//!   rendered at [`DEFAULT_DPI`]; where its boards come out with squares under
//!   [`MIN_SQUARE_PX`], it is rendered again at the resolution that gives them that size (at
//!   most [`MAX_DPI`]) and read again ([`crate::Recognizer::read_pdf_page`]). A page of prose
//!   and text boards alone is not rendered whole.
//! - A page that is one scanned picture is rendered at that picture's own resolution, so that
//!   its pixels are read as they were scanned, neither thinned nor blown up.
//! - Every page is interpreted and rendered on a thread of its own with a large stack, under
//!   `catch_unwind` and a time limit ([`PAGE_TIME_LIMIT`]): a crafted page is an error for that
//!   page alone. hayro bounds the nesting of objects (512) and of content streams (50) itself.
//!   Page boxes are clamped to [`MAX_PAGE_PIXELS`].

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use hayro::hayro_interpret::font::Glyph;
use hayro::hayro_interpret::hayro_cmap::BfString;
use hayro::hayro_interpret::util::TransformExt;
use hayro::hayro_interpret::{
    BlendMode, ClipPath, Context, Device, DrawMode, DrawProps, Image, ImageDrawProps, InterpreterCache,
    InterpreterSettings, SoftMask,
};
use hayro::hayro_syntax::{LoadPdfError, Pdf};
use hayro::kurbo::{BezPath, Rect};
use hayro::vello_cpu::color::palette::css::WHITE;
use image::{DynamicImage, RgbImage};

use crate::Error;

pub mod text_layer;
pub use text_layer::{PlacedGlyph, TextBoard};

/// The resolution vector pages are rendered at first, in dots per inch.
pub const DEFAULT_DPI: f32 = 150.0;
/// The highest resolution a page is rendered at, to bring small diagrams up to
/// [`MIN_SQUARE_PX`] or to match a scanned picture.
pub const MAX_DPI: f32 = 600.0;
/// The lowest resolution a page is rendered at: a page box too large for [`MAX_PAGE_PIXELS`]
/// below it is an error.
pub const MIN_DPI: f32 = 20.0;
/// Squares smaller than this, in pixels, make a page be rendered again, larger.
pub const MIN_SQUARE_PX: f32 = 48.0;
/// The most pixels a rendered page may have (the renderer also allows at most 65,535 a side).
pub const MAX_PAGE_PIXELS: u64 = 60_000_000;
/// How long one page may take to interpret and render before it is given up as an error.
pub const PAGE_TIME_LIMIT: Duration = Duration::from_secs(60);
/// The stack of a page's rendering thread: deeply nested content recurses.
const RENDER_STACK: usize = 256 << 20;

/// Whether the bytes are a PDF file: `%PDF-` within the first 1024 bytes, as readers accept it.
pub fn is_pdf(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(1024)].windows(5).any(|w| w == b"%PDF-")
}

/// A PDF document, parsed once and shared by the threads that render its pages.
pub struct Document {
    pdf: Arc<Pdf>,
    /// Each page's size as displayed (rotation applied), in points.
    sizes: Vec<(f32, f32)>,
}

/// One page rendered.
pub struct PageImage {
    /// The page as a picture.
    pub image: DynamicImage,
    /// The resolution it was rendered at, in dots per inch: a pixel of it is 72/dpi points.
    pub dpi: f32,
}

impl std::fmt::Debug for Document {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Document").field("pages", &self.sizes.len()).finish()
    }
}

impl Document {
    /// Parses a PDF file's bytes. An encrypted file that opens without a password is read; one
    /// that needs a password, or that is not a PDF hayro can parse, is an [`Error::Decode`].
    pub fn open(bytes: Vec<u8>) -> Result<Document, Error> {
        let loaded = isolated(move || match Pdf::new(bytes) {
            Ok(pdf) => {
                let sizes = pdf.pages().iter().map(|p| p.render_dimensions()).collect();
                Ok(Document { pdf: Arc::new(pdf), sizes })
            }
            Err(LoadPdfError::Decryption(e)) => Err(Error::decode(format!(
                "encrypted PDF ({e:?}): img2fen reads only PDFs that open without a password; \
                 save a copy without its password first"
            ))),
            Err(LoadPdfError::Invalid) => Err(Error::decode("corrupt PDF: no readable cross-reference table or pages")),
        })
        .map_err(|why| Error::decode(format!("corrupt PDF: {why}")))??;
        if loaded.sizes.is_empty() {
            return Err(Error::decode("a PDF without pages"));
        }
        Ok(loaded)
    }

    /// How many pages it has.
    pub fn pages(&self) -> usize {
        self.sizes.len()
    }

    /// Page `index`'s size as displayed, in points (1/72 inch).
    pub fn page_size(&self, index: usize) -> (f32, f32) {
        self.sizes[index]
    }

    /// What page `index` (0-based) draws, without rendering it ([`PageContent`]). Errors of
    /// this and [`Document::render`] are about the page asked for, and do not repeat its number.
    pub fn content(&self, index: usize) -> Result<PageContent, Error> {
        let pdf = self.pdf.clone();
        isolated(move || {
            let pages = pdf.pages();
            let page = &pages[index];
            let mut device = Survey::default();
            let cache = InterpreterCache::new();
            let (w, h) = page.render_dimensions();
            let mut ctx = Context::new(
                page.initial_transform(true).to_kurbo(),
                Rect::new(0.0, 0.0, w as f64, h as f64),
                &cache,
                page.xref(),
                InterpreterSettings::default(),
            );
            hayro::hayro_interpret::interpret_page(page, &mut ctx, &mut device);
            device.content((w, h))
        })
        .map_err(Error::decode)
    }

    /// Renders page `index` (0-based) at `dpi` on a white background. The resolution is lowered
    /// where the page would exceed [`MAX_PAGE_PIXELS`] (the [`PageImage`] says what was used);
    /// a page that would need less than [`MIN_DPI`] is an error.
    pub fn render(&self, index: usize, dpi: f32) -> Result<PageImage, Error> {
        let (w, h) = self.sizes[index];
        let dpi = fitting_dpi((w, h), dpi).ok_or_else(|| {
            Error::decode(format!("its page box, {w:.0}x{h:.0} points, is too large to render at {MIN_DPI} dpi"))
        })?;
        let scale = dpi / 72.0;
        let image = self.draw(index, dpi, [0.0, 0.0], ((w * scale) as u16, (h * scale) as u16))?;
        Ok(PageImage { image, dpi })
    }

    /// Renders the part of page `index` (0-based) within `rect` (page points, y down: left, top,
    /// right, bottom; clamped to the page) at `dpi`, on white: a small board seen sharper without
    /// drawing the whole page at that resolution. Also returns where the picture's (0, 0) stands
    /// on the page, in points (the rect's top left corner, as clamped).
    pub fn render_region(&self, index: usize, dpi: f32, rect: [f32; 4]) -> Result<(PageImage, [f32; 2]), Error> {
        let (w, h) = self.sizes[index];
        let [x0, y0, x1, y1] = [rect[0].max(0.0), rect[1].max(0.0), rect[2].min(w), rect[3].min(h)];
        let scale = dpi / 72.0;
        let (pw, ph) = (((x1 - x0) * scale).ceil(), ((y1 - y0) * scale).ceil());
        if !(pw >= 1.0 && ph >= 1.0) || pw * ph > MAX_PAGE_PIXELS as f32 || pw.max(ph) > u16::MAX as f32 {
            return Err(Error::decode(format!("a region of {pw:.0}x{ph:.0} pixels cannot be rendered")));
        }
        let image = self.draw(index, dpi, [x0, y0], (pw as u16, ph as u16))?;
        Ok((PageImage { image, dpi }, [x0, y0]))
    }

    /// Draws page `index` at `dpi` into a white picture of `size` pixels whose (0, 0) is the
    /// page's point `origin`, on a thread of its own ([`isolated`]).
    fn draw(&self, index: usize, dpi: f32, origin: [f32; 2], size: (u16, u16)) -> Result<DynamicImage, Error> {
        use hayro::vello_cpu::{Pixmap, RasterizerSettings, RenderContext, Resources, TargetInit};
        let pdf = self.pdf.clone();
        let image = isolated(move || {
            let pages = pdf.pages();
            let page = &pages[index];
            let cache = hayro::RenderCache::new();
            let scale = (dpi / 72.0) as f64;
            let mut ctx = RenderContext::new(size.0, size.1);
            let transform = hayro::kurbo::Affine::translate((-origin[0] as f64 * scale, -origin[1] as f64 * scale))
                * hayro::kurbo::Affine::scale(scale)
                * page.initial_transform(true).to_kurbo();
            hayro::render_into(
                page,
                &cache,
                &InterpreterSettings::default(),
                &hayro::RenderSettings::default(),
                &mut ctx,
                transform,
            );
            ctx.flush();
            let mut pixmap = Pixmap::new(ctx.width(), ctx.height());
            ctx.render_with(
                &mut pixmap,
                &mut Resources::default(),
                RasterizerSettings { target_init: TargetInit::Clear(WHITE), ..Default::default() },
            );
            // Premultiplied RGBA on white: every pixel is opaque.
            let rgb: Vec<u8> = pixmap.data_as_u8_slice().chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]).collect();
            RgbImage::from_raw(pixmap.width() as u32, pixmap.height() as u32, rgb)
        })
        .map_err(Error::decode)?
        .ok_or_else(|| Error::decode("the renderer gave no picture"))?;
        Ok(DynamicImage::ImageRgb8(image))
    }
}

/// The byte that stands for `c` in Windows-1252: the code page TeX's engines name the chess
/// fonts' field glyphs (149-154) by, and the one word processors' diagram fonts are made for.
fn windows_1252(c: char) -> Option<u32> {
    let code = c as u32;
    let high = ['\u{2022}', '\u{2013}', '\u{2014}', '\u{02DC}', '\u{2122}', '\u{0161}'];
    match high.iter().position(|&h| h == c) {
        Some(i) => Some(149 + i as u32),
        None => (code < 128 || (160..256).contains(&code)).then_some(code),
    }
}

/// The highest resolution at most `dpi` at which a page of `size` points stays within
/// [`MAX_PAGE_PIXELS`] and 65,535 pixels a side, if it is at least [`MIN_DPI`].
fn fitting_dpi((w, h): (f32, f32), dpi: f32) -> Option<f32> {
    if !(w.is_finite() && h.is_finite() && w > 0.0 && h > 0.0) {
        return None;
    }
    let side = 65_535.0 * 72.0 / w.max(h);
    let area = (MAX_PAGE_PIXELS as f32 * 72.0 * 72.0 / (w * h)).sqrt();
    let dpi = dpi.min(side).min(area);
    (dpi >= MIN_DPI).then_some(dpi)
}

/// Runs `f` on a thread of its own with a large stack, within [`PAGE_TIME_LIMIT`]. A panic or
/// an overrun is returned as text; an overrun leaves its thread to finish alone.
fn isolated<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("img2fen-pdf".into())
        .stack_size(RENDER_STACK)
        .spawn(move || {
            let _ = tx.send(std::panic::catch_unwind(AssertUnwindSafe(f)));
        })
        .map_err(|e| format!("cannot start a thread to render it: {e}"))?;
    match rx.recv_timeout(PAGE_TIME_LIMIT) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown".into());
            Err(format!("the PDF renderer failed on it ({what})"))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            Err(format!("not rendered within {} s; given up", PAGE_TIME_LIMIT.as_secs()))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err("the PDF renderer stopped".into()),
    }
}

/// What a page draws, as far as choosing how to render it goes.
#[derive(Debug, Clone, Default)]
pub struct PageContent {
    /// The resolution of the largest picture drawn on the page, in dots per inch, when that
    /// picture covers most of the page (over 60% of its area): a scanned page.
    pub scan_dpi: Option<f32>,
    /// How many glyphs the page shows (text drawn with fonts).
    pub glyphs: usize,
    /// How many pictures the page draws.
    pub images: usize,
    /// The boards its text layer draws in a chess diagram font ([`text_layer::find_boards`]),
    /// in page points.
    pub text_boards: Vec<TextBoard>,
    /// How many filled or stroked shapes it draws at least 4 points wide and high, and how many
    /// of those at least half an inch: a board drawn as vector graphics is such shapes.
    pub shapes: (usize, usize),
    /// How many glyphs a square wide (an em, within 5%) it shows outside its text boards: a
    /// board set in a diagram font none of [`text_layer::ENCODINGS`] decodes is such glyphs.
    pub square_glyphs: usize,
    /// How many letters it sets outside its text boards and narrower than a square: a page of a
    /// book or an article sets hundreds, an app's board drawn to PDF its coordinates at most.
    pub letters: usize,
}

/// The letters ([`PageContent::letters`]) from which a page is a typeset document's, whose
/// diagrams show White at the bottom unless their labels say otherwise, as a book's do. A line
/// of prose sets about 60.
pub const DOCUMENT_LETTERS: usize = 100;

impl PageContent {
    /// Whether the page is one a document sets text on (a book's, an article's), or a scan of
    /// one: its diagrams follow the book convention of White at the bottom.
    pub fn is_document(&self) -> bool {
        self.scan_dpi.is_some() || self.letters >= DOCUMENT_LETTERS
    }

    /// Whether the page may show a board beyond its text boards: it draws a picture, a shape
    /// half an inch wide, 16 smaller shapes or 16 glyphs a square wide outside its text boards.
    /// A page that does none of these (prose, or prose and diagrams set in a diagram font) need
    /// not be searched for boards in its pixels.
    pub fn may_draw_other_boards(&self) -> bool {
        self.images > 0 || self.shapes.1 > 0 || self.shapes.0 >= 16 || self.square_glyphs >= 16
    }
}

/// One page of a PDF read ([`crate::Recognizer::read_pdf_page`]).
#[derive(Debug, Clone)]
pub struct PageReading {
    /// Its number, from 1.
    pub page: usize,
    /// The resolution it was read at: the boards' corners are pixels of the page at this dpi.
    pub dpi: f32,
    /// Whether the page is one scanned picture, read at that picture's resolution.
    pub scanned: bool,
    /// Its boards in reading order; none on a page of text.
    pub boards: Vec<crate::BoardReading>,
}

/// A device that draws nothing and notes what a page holds.
#[derive(Default)]
struct Survey {
    /// Each picture drawn: its size in pixels and the area it covers, in points².
    images: Vec<(u32, u32, f64)>,
    /// Each glyph drawn upright, where it stands on the page.
    glyphs: Vec<PlacedGlyph>,
    /// How many glyphs were drawn, upright or not.
    glyph_count: usize,
    /// Shapes drawn at least 4 points wide and high, and those at least 36.
    shapes: (usize, usize),
}

impl Survey {
    fn content(&self, (w, h): (f32, f32)) -> PageContent {
        let page_area = w as f64 * h as f64;
        let scan_dpi = self
            .images
            .iter()
            .filter(|(_, _, area)| *area > 0.6 * page_area)
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .map(|&(pw, ph, area)| ((pw as f64 * ph as f64 / area).sqrt() * 72.0) as f32);
        let text_boards = text_layer::find_boards(&self.glyphs);
        // A text board's glyphs, and those of the frame a square wide round it (a word
        // processor's border glyphs).
        let in_boards = |g: &PlacedGlyph| {
            text_boards.iter().any(|b| {
                let (x0, y0, x1, y1) = b.quad.bounds();
                let m = (x1 - x0) / 8.0 + 1.0;
                let (x, y) = (g.x as f64, g.y as f64);
                x >= x0 - m && x <= x1 + m && y >= y0 - m && y <= y1 + m
            })
        };
        let square_wide = |g: &PlacedGlyph| g.size >= 4.0 && (g.advance - g.size).abs() < 0.05 * g.size;
        let square_glyphs = self.glyphs.iter().filter(|g| square_wide(g) && !in_boards(g)).count();
        let letters = self
            .glyphs
            .iter()
            .filter(|g| g.text.is_some_and(char::is_alphabetic) && !square_wide(g) && !in_boards(g))
            .count();
        // What the page draws as text, for finding out why a diagram font is not read.
        if std::env::var_os("IMG2FEN_TRACE_GLYPHS").is_some() {
            for g in &self.glyphs {
                eprintln!("{g:?}");
            }
        }
        PageContent {
            scan_dpi,
            glyphs: self.glyph_count,
            images: self.images.len(),
            text_boards,
            shapes: self.shapes,
            square_glyphs,
            letters,
        }
    }
}

impl<'a> Device<'a> for Survey {
    fn draw_path(&mut self, path: &BezPath, props: DrawProps<'a>, _: &DrawMode) {
        use hayro::kurbo::Shape;
        let b = props.transform.transform_rect_bbox(path.bounding_box());
        let (w, h) = (b.width().abs(), b.height().abs());
        if w >= 4.0 && h >= 4.0 {
            self.shapes.0 += 1;
            if w >= 36.0 && h >= 36.0 {
                self.shapes.1 += 1;
            }
        }
    }
    fn push_clip_path(&mut self, _: &ClipPath) {}
    fn push_transparency_group(&mut self, _: f32, _: Option<SoftMask<'a>>, _: BlendMode) {}
    fn draw_glyph_run(
        &mut self,
        run: &hayro::hayro_interpret::font::GlyphRun<'_, 'a>,
        props: DrawProps<'a>,
        _: &DrawMode,
    ) {
        self.glyph_count += run.glyphs().len();
        for g in run.glyphs() {
            // Glyph space is 1000 units to the em; y grows upwards in it and downwards on the page.
            let [a, b, c, d, x, y] = (props.transform * g.transform()).as_coeffs();
            let upright = a > 0.0 && d < 0.0 && b.abs() < 1e-3 * a && c.abs() < 1e-3 * a;
            let advance = match &**g {
                Glyph::Outline(o) => o.advance_width(),
                Glyph::Type3(t) => t.advance_width(),
            };
            let (Some(advance), true) = (advance, upright) else { continue };
            let text = g.as_unicode().and_then(|u| match u {
                BfString::Char(c) => Some(c),
                BfString::String(s) => s.chars().next().filter(|_| s.chars().count() == 1),
            });
            // Codes past a byte are a composite font's glyph numbers: its Unicode value names it.
            let code = match g.char_code() {
                code if code < 256 => Some(code),
                _ => text.and_then(windows_1252),
            };
            let Some(code) = code else { continue };
            self.glyphs.push(PlacedGlyph {
                code,
                text,
                x: x as f32,
                y: y as f32,
                advance: (advance as f64 * a) as f32,
                size: (-d * 1000.0) as f32,
            });
        }
    }
    fn draw_image(&mut self, image: Image<'a, '_>, props: ImageDrawProps<'a>) {
        // The transform maps the image's pixels, (0, 0) to (width, height), onto the page.
        let (w, h) = (image.width(), image.height());
        let [a, b, c, d, _, _] = props.transform.as_coeffs();
        let area = (a * d - b * c).abs() * w as f64 * h as f64;
        self.images.push((w, h, area));
    }
    fn pop_clip(&mut self) {}
    fn pop_transparency_group(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pdf_is_known_by_its_header() {
        assert!(is_pdf(b"%PDF-1.7\n"));
        assert!(is_pdf(b"\xef\xbb\xbfjunk%PDF-1.4"));
        assert!(!is_pdf(b"\x89PNG\r\n\x1a\n"));
        assert!(!is_pdf(b""));
    }

    #[test]
    fn a_page_box_too_large_lowers_the_resolution_or_is_refused() {
        assert_eq!(fitting_dpi((595.0, 842.0), 150.0), Some(150.0));
        let a0 = fitting_dpi((2384.0, 3370.0), 600.0).unwrap();
        assert!(a0 < 600.0 && (2384.0 * a0 / 72.0) * (3370.0 * a0 / 72.0) <= MAX_PAGE_PIXELS as f32 * 1.001);
        // PDF's largest page box, 200 inches a side, still renders; a crafted one does not.
        assert!(fitting_dpi((14_400.0, 14_400.0), 150.0).is_some());
        assert_eq!(fitting_dpi((1e9, 1e9), 150.0), None);
        assert_eq!(fitting_dpi((f32::NAN, 10.0), 150.0), None);
        assert_eq!(fitting_dpi((0.0, 10.0), 150.0), None);
    }

    fn testdata(name: &str) -> Vec<u8> {
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/pdf").join(name)).unwrap()
    }

    #[test]
    fn a_page_is_surveyed_and_rendered_at_the_resolution_asked() {
        let scan = Document::open(testdata("scan.pdf")).unwrap();
        assert_eq!(scan.pages(), 1);
        let content = scan.content(0).unwrap();
        assert_eq!((content.images, content.glyphs), (1, 0));
        assert_eq!(content.scan_dpi.map(f32::round), Some(200.0), "the scan's own resolution");
        let book = Document::open(testdata("book.pdf")).unwrap();
        assert_eq!(book.pages(), 2);
        let content = book.content(0).unwrap();
        assert!(content.scan_dpi.is_none() && content.glyphs > 100, "{content:?}");
        let (w, h) = book.page_size(0);
        let page = book.render(0, 72.0).unwrap();
        assert_eq!((page.image.width(), page.image.height()), (w as u32, h as u32));
        assert_eq!(page.dpi, 72.0);
        // Ink on a white page.
        let grey = page.image.to_luma8();
        assert_eq!(grey.get_pixel(0, 0).0, [255]);
        assert!(grey.pixels().any(|p| p.0[0] < 64));
    }

    #[test]
    fn only_pages_that_draw_more_than_text_boards_are_searched_for_boards() {
        // The scan is a picture; the book's pages are prose and skak diagrams, nothing more.
        let scan = Document::open(testdata("scan.pdf")).unwrap();
        assert!(scan.content(0).unwrap().may_draw_other_boards());
        let book = Document::open(testdata("book.pdf")).unwrap();
        for page in 0..book.pages() {
            let c = book.content(page).unwrap();
            assert!(!c.may_draw_other_boards(), "page {}: {:?} {}", page + 1, c.shapes, c.square_glyphs);
        }
        // The word processor's page: its frames' border glyphs are a square wide, and frame its
        // text boards.
        let font = Document::open(testdata("diagram_font.pdf")).unwrap();
        let c = font.content(0).unwrap();
        assert_eq!((c.text_boards.len(), c.square_glyphs, c.may_draw_other_boards()), (2, 0, false));
    }

    #[test]
    fn pages_of_prose_and_scans_are_documents_and_a_drawing_alone_is_not() {
        // The book's pages set paragraphs beside their diagrams; the diagrams' glyphs are not
        // letters of its text.
        let book = Document::open(testdata("book.pdf")).unwrap();
        for page in 0..book.pages() {
            let c = book.content(page).unwrap();
            assert!(c.letters >= DOCUMENT_LETTERS && c.is_document(), "page {}: {} letters", page + 1, c.letters);
            assert!(c.letters < c.glyphs - 64 * c.text_boards.len(), "page {}: {c:?}", page + 1);
        }
        let scan = Document::open(testdata("scan.pdf")).unwrap().content(0).unwrap();
        assert!(scan.letters == 0 && scan.is_document());
        let bad = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/bad/huge_page.pdf");
        let drawing = Document::open(std::fs::read(bad).unwrap()).unwrap().content(0).unwrap();
        assert!(drawing.letters == 0 && !drawing.is_document());
    }

    #[test]
    fn a_region_renders_as_the_same_part_of_the_whole_page() {
        let book = Document::open(testdata("book.pdf")).unwrap();
        let board = &book.content(0).unwrap().text_boards[0];
        let [tl, _, br, _] = board.quad.0;
        let rect = [tl.x as f32 - 10.0, tl.y as f32 - 10.0, br.x as f32 + 10.0, br.y as f32 + 10.0];
        let (region, [x0, y0]) = book.render_region(0, 300.0, rect).unwrap();
        assert_eq!([x0, y0], [rect[0], rect[1]]);
        let page = book.render(0, 300.0).unwrap().image.to_luma8();
        let region = region.image.to_luma8();
        let (dx, dy) = ((x0 * 300.0 / 72.0).round() as u32, (y0 * 300.0 / 72.0).round() as u32);
        // Pixel for pixel, but for a pixel's offset in where the two grids fall.
        let (mut close, mut all) = (0, 0);
        for (x, y, p) in region.enumerate_pixels().filter(|(x, y, _)| x % 3 == 0 && y % 3 == 0) {
            if let Some(q) = page.get_pixel_checked(x + dx, y + dy) {
                all += 1;
                close += ((p.0[0] as i32 - q.0[0] as i32).abs() < 96) as usize;
            }
        }
        assert!(all > 10_000 && close as f64 > 0.97 * all as f64, "{close} of {all}");
        // Clamped to the page; nothing left is an error, not a panic.
        let (w, h) = book.page_size(0);
        let (edge, origin) = book.render_region(0, 72.0, [-50.0, -50.0, 20.0, 20.0]).unwrap();
        assert_eq!((origin, edge.image.width()), ([0.0, 0.0], 20));
        assert!(book.render_region(0, 72.0, [w + 1.0, h + 1.0, w + 9.0, h + 9.0]).is_err());
    }

    #[test]
    fn a_typeset_book_draws_its_boards_in_its_text_layer() {
        // testdata/pdf/book.pdf: pdfTeX, the chessboard package, skak fonts (Type 3), LSB.
        let book = Document::open(testdata("book.pdf")).unwrap();
        let mut found = Vec::new();
        for page in 0..book.pages() {
            for b in book.content(page).unwrap().text_boards {
                let o = b.coordinates.and_then(|c| c.orientation()).map(|(o, _)| o);
                let board = crate::orient::to_board(&b.cells, o.unwrap_or(crate::Orientation::White), false);
                found.push((page + 1, board.to_string(), o, b.encoding));
            }
        }
        use crate::Orientation::{Black, White};
        assert_eq!(
            found,
            [
                (1, "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R".into(), Some(White), "LSB"),
                (1, "6k1/5ppp/8/8/8/8/5PPP/3R2K1".into(), Some(Black), "LSB"),
                (2, "8/P1K5/8/8/8/8/5kp1/8".into(), None, "LSB"),
            ]
        );
        // The scan is a picture: no text.
        assert!(Document::open(testdata("scan.pdf")).unwrap().content(0).unwrap().text_boards.is_empty());
    }

    #[test]
    fn what_is_not_a_pdf_is_an_error_not_a_panic() {
        for bytes in [&b"%PDF-1.4\n"[..], b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF", b""] {
            let e = Document::open(bytes.to_vec()).unwrap_err().to_string();
            assert!(e.contains("PDF"), "{e}");
        }
    }
}
