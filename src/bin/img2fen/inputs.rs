//! The inputs of a run: files, folders (every image below them, found by content), lists of
//! paths and standard input; a PDF or a multi-page TIFF stands for each of its pages.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use img2fen::pdf::Document;

use crate::Failure;

/// One input of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// An image file (or what was named as one: reading it says whether it is).
    File(PathBuf),
    /// Standard input (`-`), read when the input is.
    Stdin,
    /// Standard input, already read ([`open_pdfs`]).
    Piped(Arc<Vec<u8>>),
    /// One page (0-based) of a PDF or a multi-page TIFF.
    Page(Arc<PagedSource>, usize),
    /// Something named that yields no image to read, with why: a folder without images, a folder
    /// that cannot be listed.
    Bad(PathBuf, String),
}

impl Input {
    /// The name records and messages use: the path as given ([`path_name`]), or `-`.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) | Input::Bad(p, _) => path_name(p),
            Input::Stdin | Input::Piped(_) => "-".to_string(),
            Input::Page(pdf, page) => page_name(&pdf.name(), *page + 1),
        }
    }
}

/// The name of page `page` (from 1) of the PDF named `pdf`, as records give it: the PDF open
/// parameter of RFC 8118, `book.pdf#page=12`.
pub fn page_name(pdf: &str, page: usize) -> String {
    format!("{pdf}#page={page}")
}

/// A file of pages (a PDF, or a TIFF of more than one page), or standard input holding a PDF,
/// shared by the inputs of its pages. It is opened when its first page is read and let go when
/// its last one is done.
#[derive(Debug)]
pub struct PagedSource {
    /// The file; `None` for standard input, which is kept open from the start.
    path: Option<PathBuf>,
    /// Whether it is a TIFF file (else a PDF).
    tiff: bool,
    /// How many pages it has.
    pub pages: usize,
    open: Mutex<Option<Opened>>,
    /// Its pages not yet done.
    left: AtomicUsize,
}

/// A [`PagedSource`] opened: a parsed PDF, or a TIFF file's bytes and its pages' offsets.
#[derive(Debug, Clone)]
pub enum Opened {
    Pdf(Arc<Document>),
    Tiff(Arc<Vec<u8>>, Arc<Vec<u64>>),
}

impl PartialEq for PagedSource {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for PagedSource {}

impl PagedSource {
    /// The name records give it: its path, or `-`.
    pub fn name(&self) -> String {
        self.path.as_deref().map_or_else(|| "-".to_string(), path_name)
    }

    /// The file, when it is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The source opened, on first use.
    pub fn opened(&self) -> Result<Opened, img2fen::Error> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(o) = open.as_ref() {
            return Ok(o.clone());
        }
        let Some(p) = &self.path else {
            return Err(img2fen::Error::Decode {
                path: None,
                reason: "standard input was read once; its PDF is gone".into(),
            });
        };
        let bytes = std::fs::read(p).map_err(|source| img2fen::Error::Read { path: Some(p.clone()), source })?;
        let opened = if self.tiff {
            let pages = img2fen::tiff_pages(&bytes).unwrap_or_default();
            Opened::Tiff(Arc::new(bytes), Arc::new(pages))
        } else {
            Opened::Pdf(Arc::new(Document::open(bytes)?))
        };
        *open = Some(opened.clone());
        Ok(opened)
    }

    /// Says one page is done; the source is let go after the last.
    pub fn page_done(&self) {
        if self.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            *self.open.lock().unwrap_or_else(|p| p.into_inner()) = None;
        }
    }
}

/// Pages chosen with `--pages`: ranges of page numbers from 1, such as `3-40,55` or `10-`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSet(Vec<(usize, usize)>);

impl PageSet {
    /// Parses `3-40,55`, `10-` (to the end) or `7`.
    pub fn parse(text: &str) -> Result<PageSet, String> {
        let bad = || format!("'{text}' is not a list of pages such as 3-40,55 or 10-");
        let mut ranges = vec![];
        for part in text.split(',').map(str::trim) {
            let (a, b) = match part.split_once('-') {
                Some((a, "")) => (a.trim().parse().map_err(|_| bad())?, usize::MAX),
                Some((a, b)) => (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?),
                None => {
                    let n = part.parse().map_err(|_| bad())?;
                    (n, n)
                }
            };
            if a == 0 || b < a {
                return Err(bad());
            }
            ranges.push((a, b));
        }
        Ok(PageSet(ranges))
    }

    /// Whether page `page` (from 1) is chosen.
    pub fn contains(&self, page: usize) -> bool {
        self.0.iter().any(|&(a, b)| (a..=b).contains(&page))
    }
}

/// Replaces each PDF among `inputs` (by content: a file or standard input), and each TIFF file
/// of more than one page, with an input per page, those of `pages` when given. A PDF that
/// cannot be opened, or a file of which `pages` chooses none, becomes one input that says why.
/// Standard input is read here, to know what it holds.
pub fn open_documents(inputs: Vec<Input>, pages: Option<&PageSet>) -> Vec<Input> {
    let mut out = Vec::with_capacity(inputs.len());
    for input in inputs {
        let (path, bytes) = match &input {
            Input::File(p) if starts_like_document(p) => match std::fs::read(p) {
                Ok(bytes) => (Some(p.clone()), bytes),
                Err(_) => {
                    out.push(input);
                    continue;
                }
            },
            Input::Stdin => {
                let mut bytes = Vec::new();
                if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
                    out.push(Input::Bad("-".into(), format!("cannot read standard input: {e}")));
                    continue;
                }
                if !img2fen::pdf::is_pdf(&bytes) {
                    out.push(Input::Piped(Arc::new(bytes)));
                    continue;
                }
                (None, bytes)
            }
            _ => {
                out.push(input);
                continue;
            }
        };
        let (count, kept, tiff) = if img2fen::pdf::is_pdf(&bytes) {
            match Document::open(bytes) {
                // A file is opened again when its pages are read; standard input is kept.
                Ok(doc) => (doc.pages(), path.is_none().then(|| Opened::Pdf(Arc::new(doc))), false),
                Err(e) => {
                    out.push(Input::Bad(path.unwrap_or_else(|| "-".into()), e.to_string()));
                    continue;
                }
            }
        } else {
            match img2fen::tiff_pages(&bytes) {
                Some(offsets) if offsets.len() > 1 => (offsets.len(), None, true),
                // One page: read as any picture.
                _ => {
                    out.push(input);
                    continue;
                }
            }
        };
        let chosen: Vec<usize> = (0..count).filter(|&i| pages.is_none_or(|s| s.contains(i + 1))).collect();
        if chosen.is_empty() {
            let why = format!("--pages chooses none of its {count} pages");
            out.push(Input::Bad(path.unwrap_or_else(|| "-".into()), why));
            continue;
        }
        let source = Arc::new(PagedSource {
            path,
            tiff,
            pages: count,
            open: Mutex::new(kept),
            left: AtomicUsize::new(chosen.len()),
        });
        out.extend(chosen.into_iter().map(|i| Input::Page(source.clone(), i)));
    }
    out
}

/// Whether the file at `p` starts like a PDF (`%PDF-` in its first 1024 bytes) or a TIFF.
fn starts_like_document(p: &Path) -> bool {
    let mut head = [0u8; 1024];
    let n = File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    // A TIFF header (classic or BigTIFF) is all `tiff_pages` needs to say it is one.
    img2fen::pdf::is_pdf(&head[..n]) || img2fen::tiff_pages(&head[..n]).is_some()
}

/// A path as text: itself when it is UTF-8; else each byte that is not part of valid UTF-8
/// written as `\xHH`, so that two such names never print alike and a resumed run knows each.
pub fn path_name(p: &Path) -> String {
    if let Some(s) = p.to_str() {
        return s.to_string();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut out = String::new();
        for chunk in p.as_os_str().as_bytes().utf8_chunks() {
            out.push_str(chunk.valid());
            for b in chunk.invalid() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
        out
    }
    #[cfg(not(unix))]
    {
        p.display().to_string()
    }
}

/// File name endings of pictures. Below a folder, a regular file so named is an input even when
/// its content is no picture img2fen decodes (an empty file, a HEIC photo): it gets an error
/// record rather than silence. Other files are inputs when their content is a picture.
const IMAGE_EXTENSIONS: &[&str] =
    &["png", "jpg", "jpeg", "jpe", "jfif", "webp", "gif", "bmp", "tif", "tiff", "heic", "heif", "avif", "pdf"];

/// What the walk below folders passed over, for the run's summary.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Regular files neither named nor made like a picture.
    pub not_pictures: usize,
    /// FIFOs, sockets, devices and dangling links: never opened (a FIFO would block the run).
    pub not_regular: usize,
    /// Links to a folder already walked (a link to itself or to a parent, which would loop).
    pub repeated_folders: usize,
}

impl Skipped {
    /// A line for people, or `None` when nothing was skipped.
    pub fn describe(&self) -> Option<String> {
        let mut parts = vec![];
        let mut add = |n: usize, one: &str, many: &str| match n {
            0 => {}
            1 => parts.push(format!("1 {one}")),
            n => parts.push(format!("{n} {many}")),
        };
        add(self.not_pictures, "file that is not a picture", "files that are not pictures");
        add(self.not_regular, "entry that is not a regular file", "entries that are not regular files");
        add(self.repeated_folders, "link to a folder already read", "links to folders already read");
        (!parts.is_empty()).then(|| format!("skipped below folders: {}", parts.join(", ")))
    }
}

/// The inputs in order: each of `args`, then each line of `files_from` (a file, or `-` for
/// standard input; empty lines are skipped). `-` is standard input; a folder stands for every
/// picture below it, recursively and in path order: regular files named like pictures
/// ([`IMAGE_EXTENSIONS`]) or whose content is one; each real folder is walked once, however many
/// links lead to it. A name given more than once is one input. Standard input can serve once:
/// as one picture or as the list. Also says what the walk passed over.
pub fn expand(args: &[PathBuf], files_from: Option<&Path>) -> Result<(Vec<Input>, Skipped), Failure> {
    let mut named: Vec<PathBuf> = args.to_vec();
    if let Some(list) = files_from {
        let text = if list.as_os_str() == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| Failure::Usage(format!("cannot read the list of files from standard input: {e}")))?;
            s
        } else {
            std::fs::read_to_string(list)
                .map_err(|e| Failure::Usage(format!("{}: cannot read the list of files: {e}", list.display())))?
        };
        named.extend(
            text.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).filter(|l| !l.is_empty()).map(PathBuf::from),
        );
    }
    let stdin_uses = named.iter().filter(|a| a.as_os_str() == "-").count()
        + usize::from(files_from.is_some_and(|f| f.as_os_str() == "-"));
    if stdin_uses > 1 {
        return Err(Failure::Usage("standard input (-) can be read only once".into()));
    }
    let mut out = Vec::new();
    let mut walk = Walk::default();
    for a in named {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if a.is_dir() {
            walk.files.clear();
            let listed = collect_images(&a, &mut walk);
            let mut files = std::mem::take(&mut walk.files);
            files.sort();
            match listed {
                Err(e) => out.push(Input::Bad(a.clone(), e)),
                Ok(()) if files.is_empty() => out.push(Input::Bad(a.clone(), "no images in this folder".into())),
                Ok(()) => {}
            }
            out.extend(files.into_iter().map(Input::File));
        } else {
            out.push(Input::File(a));
        }
    }
    // A name given twice (on the command line, in the list, or a file below two folders named)
    // is one input: its record would otherwise be written twice, and resume could not tell
    // the two apart.
    let mut seen = HashSet::new();
    out.retain(|i| seen.insert(i.name()));
    Ok((out, walk.skipped))
}

/// The state of a walk below folders.
#[derive(Default)]
struct Walk {
    files: Vec<PathBuf>,
    /// Canonical paths of the folders walked.
    seen: HashSet<PathBuf>,
    skipped: Skipped,
}

/// Adds every picture below `dir` to `walk`; the first folder that cannot be listed is the error.
fn collect_images(dir: &Path, walk: &mut Walk) -> Result<(), String> {
    let real = dir.canonicalize().map_err(|e| format!("cannot list folder {}: {e}", dir.display()))?;
    if !walk.seen.insert(real) {
        walk.skipped.repeated_folders += 1;
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list folder {}: {e}", dir.display()))?;
    let mut first_error = Ok(());
    for e in entries.flatten() {
        let p = e.path();
        // Where a link leads; a dangling one is no regular file.
        let Ok(meta) = std::fs::metadata(&p) else {
            walk.skipped.not_regular += 1;
            continue;
        };
        if meta.is_dir() {
            let r = collect_images(&p, walk);
            if first_error.is_ok() {
                first_error = r;
            }
        } else if !meta.is_file() {
            walk.skipped.not_regular += 1;
        } else if named_like_image(&p) || looks_like_image(&p) {
            walk.files.push(p);
        } else {
            walk.skipped.not_pictures += 1;
        }
    }
    first_error
}

/// Whether the file's name ends like a picture's ([`IMAGE_EXTENSIONS`], any case).
fn named_like_image(p: &Path) -> bool {
    p.extension().and_then(|e| e.to_str()).is_some_and(|e| IMAGE_EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// Whether the file starts like a format img2fen reads (a picture or a PDF).
fn looks_like_image(p: &Path) -> bool {
    let mut head = [0u8; 1024];
    let n = File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    n > 0
        && (image::guess_format(&head[..n]).is_ok()
            || img2fen::pdf::is_pdf(&head[..n])
            || img2fen::heif::kind(&head[..n]).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::temp;

    #[test]
    fn files_from_lists_paths_and_folders() {
        let d = temp("list");
        std::fs::create_dir_all(d.join("empty")).unwrap();
        let list = d.join("list.txt");
        std::fs::write(&list, format!("a.png\r\n\n{}\n-\n", d.join("empty").display())).unwrap();
        let (inputs, _) = expand(&[PathBuf::from("first.png")], Some(&list)).unwrap();
        assert_eq!(
            inputs,
            vec![
                Input::File("first.png".into()),
                Input::File("a.png".into()),
                Input::Bad(d.join("empty"), "no images in this folder".into()),
                Input::Stdin,
            ]
        );
        // Standard input named twice (here once on the command line, once in the list) is
        // refused before anything is read.
        let err = expand(&[PathBuf::from("-")], Some(&list)).unwrap_err().to_string();
        assert_eq!(err, "standard input (-) can be read only once");
        // Named twice, read once.
        let (inputs, _) =
            expand(&[PathBuf::from("a.png"), PathBuf::from("b.png"), PathBuf::from("a.png")], None).unwrap();
        assert_eq!(inputs, vec![Input::File("a.png".into()), Input::File("b.png".into())]);
        let missing = d.join("missing.txt");
        let err = expand(&[], Some(&missing)).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: cannot read the list of files", missing.display())), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn folders_give_every_picture_once_and_never_open_what_is_not_a_file() {
        let d = temp("walk");
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/green_arrows.jpg"), d.join("a.jpg"))
            .unwrap();
        std::fs::write(d.join("empty.png"), b"").unwrap();
        std::fs::write(d.join("text.png"), b"hello").unwrap();
        std::fs::write(d.join("notes.txt"), b"hello").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::os::unix::fs::symlink(".", d.join("me")).unwrap();
        std::os::unix::fs::symlink("..", d.join("sub/up")).unwrap();
        std::os::unix::fs::symlink("missing.png", d.join("dangling.png")).unwrap();
        let fifo = std::process::Command::new("mkfifo").arg(d.join("x.png")).status();
        let (inputs, skipped) = expand(std::slice::from_ref(&d), None).unwrap();
        let names: Vec<String> = inputs.iter().map(|i| i.name()).collect();
        let want: Vec<String> =
            ["a.jpg", "empty.png", "text.png"].iter().map(|f| d.join(f).display().to_string()).collect();
        assert_eq!(names, want, "each picture once; files named like pictures are inputs");
        assert_eq!(skipped.not_pictures, 1, "notes.txt");
        assert_eq!(skipped.repeated_folders, 2, "me -> . and sub/up -> ..");
        let fifos = usize::from(fifo.is_ok_and(|s| s.success()));
        assert_eq!(skipped.not_regular, 1 + fifos, "the dangling link and the FIFO");
        assert!(skipped.describe().unwrap().starts_with("skipped below folders: 1 file that is not a picture"));
        assert_eq!(Skipped::default().describe(), None);
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_kept_apart() {
        use std::os::unix::ffi::OsStrExt;
        let a = Path::new(std::ffi::OsStr::from_bytes(b"caf\xe9.png"));
        let b = Path::new(std::ffi::OsStr::from_bytes(b"caf\xe8.png"));
        assert_eq!(path_name(a), "caf\\xe9.png");
        assert_ne!(path_name(a), path_name(b));
        assert_eq!(path_name(Path::new("plain/ü.png")), "plain/ü.png");
    }
}
