//! Every way inputs reach img2fen, through the real command (`src/bin/img2fen/main.rs`, compiled
//! in): a folder tree made from the fuzzer's bytes (files with arbitrary names and contents,
//! pieces of real pictures, cut or not, nested folders, links to files, folders, parents and
//! nowhere, FIFOs), named on the command line, listed in a `--files-from` file or on standard
//! input, or a picture on standard input; every output format, written to a file and resumed.
//!
//! What must hold: the command answers (no panic, no hang: libFuzzer's timeout), with exit
//! status 0, 1 or 2; every record in the output file is whole, and a JSON file names each input
//! once (an input named twice is read once); and `--resume` on a finished file leaves it byte
//! for byte as it was.
//!
//! Run: `scripts/fuzz.sh 1800 batch` (docs/testing.md, "Fuzzing").
#![no_main]

use std::collections::HashSet;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

/// The command, as its binary compiles it.
#[path = "../../src/bin/img2fen/main.rs"]
#[allow(dead_code)]
mod cli;
// The command's modules name each other as `crate::...`.
#[allow(unused_imports)]
use cli::*;

/// A file or folder name: any bytes but `/` and NUL, at most 24, never `.` or `..`.
#[derive(Debug)]
struct Name(OsString);

impl<'a> Arbitrary<'a> for Name {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let len = u.int_in_range(1..=24)?;
        let mut bytes: Vec<u8> = (0..len).map(|_| u.arbitrary::<u8>()).collect::<arbitrary::Result<_>>()?;
        bytes.retain(|&b| b != b'/' && b != 0);
        if bytes.is_empty() || bytes == b"." || bytes == b".." {
            bytes = b"x".to_vec();
        }
        // Often named like a picture, so that the folder walk takes it whatever it holds.
        if u.ratio(1, 2)? {
            let ext: &[u8] = u.choose(&[&b".png"[..], b".jpg", b".JPG", b".webp", b".heic", b".tif", b".gif"])?;
            bytes.extend_from_slice(ext);
        }
        Ok(Name(OsString::from_vec(bytes)))
    }
}

/// What a file holds.
#[derive(Debug, Arbitrary)]
enum Content {
    /// Bytes of the fuzzer's (an empty file too).
    Bytes(Vec<u8>),
    /// One of the testdata pictures, whole or cut after `cut` bytes (when smaller than it).
    Picture { which: u8, cut: Option<u32> },
}

/// Where an entry goes: the tree's root or one of the folders made before it.
#[derive(Debug, Arbitrary)]
enum Entry {
    File { parent: u8, name: Name, content: Content },
    Folder { parent: u8, name: Name },
    /// A symbolic link to an earlier entry (a folder: maybe one above it, a loop), to the root,
    /// or to nothing.
    Link { parent: u8, name: Name, to: Option<u8> },
    Fifo { parent: u8, name: Name },
}

/// How an input is named to the command.
#[derive(Debug, Arbitrary)]
enum Pick {
    Root,
    /// An entry, by its place in the tree.
    Entry(u8),
    /// The same entry, named through `./` and the root folder's name.
    Dotted(u8),
    Missing,
}

#[derive(Debug, Arbitrary)]
enum Stdin {
    Nothing,
    /// A picture on standard input (`-`).
    Picture(Content),
    /// The list of files on standard input (`--files-from -`).
    List,
}

#[derive(Debug, Arbitrary)]
struct Case {
    entries: Vec<Entry>,
    args: Vec<Pick>,
    /// Also named in a `--files-from` list, one a line.
    listed: Vec<Pick>,
    stdin: Stdin,
    format: u8,
    jobs: u8,
    board: Option<u8>,
}

/// The small testdata pictures, read once.
fn pictures() -> &'static [Vec<u8>] {
    static PICTURES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    PICTURES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
        ["small_board_article.png", "book_black_side_coords.png", "green_arrows.jpg", "formats/lossy.webp"]
            .iter()
            .map(|f| std::fs::read(dir.join(f)).expect("a testdata picture"))
            .collect()
    })
}

fn bytes_of(content: &Content) -> Vec<u8> {
    match content {
        Content::Bytes(b) => b.clone(),
        Content::Picture { which, cut } => {
            let pictures = pictures();
            let p = &pictures[*which as usize % pictures.len()];
            let n = cut.map_or(p.len(), |c| (c as usize).min(p.len()));
            p[..n].to_vec()
        }
    }
}

/// Makes the tree below `root`; returns each entry's path (in order) and the folders made.
fn make_tree(root: &Path, entries: &[Entry]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut paths: Vec<PathBuf> = vec![];
    let mut folders = vec![root.to_path_buf()];
    for e in entries.iter().take(24) {
        let (parent, name) = match e {
            Entry::File { parent, name, .. }
            | Entry::Folder { parent, name }
            | Entry::Link { parent, name, .. }
            | Entry::Fifo { parent, name } => (folders[*parent as usize % folders.len()].clone(), name),
        };
        let path = parent.join(&name.0);
        let made = match e {
            Entry::File { content, .. } => std::fs::write(&path, bytes_of(content)).is_ok(),
            Entry::Folder { .. } => {
                let ok = std::fs::create_dir(&path).is_ok();
                if ok {
                    folders.push(path.clone());
                }
                ok
            }
            Entry::Link { to, .. } => {
                let target = match to {
                    Some(i) if !paths.is_empty() => paths[*i as usize % paths.len()].clone(),
                    Some(_) => root.to_path_buf(),
                    None => root.join("nowhere"),
                };
                std::os::unix::fs::symlink(target, &path).is_ok()
            }
            Entry::Fifo { .. } => {
                let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("no NUL in names");
                unsafe { libc::mkfifo(c.as_ptr(), 0o644) == 0 }
            }
        };
        if made {
            paths.push(path);
        }
    }
    (paths, folders)
}

fn named(pick: &Pick, root: &Path, paths: &[PathBuf]) -> PathBuf {
    match pick {
        Pick::Root => root.to_path_buf(),
        Pick::Entry(i) | Pick::Dotted(i) if paths.is_empty() => {
            let _ = i;
            root.to_path_buf()
        }
        Pick::Entry(i) => paths[*i as usize % paths.len()].clone(),
        Pick::Dotted(i) => {
            let p = &paths[*i as usize % paths.len()];
            let rel = p.strip_prefix(root).expect("below the root");
            root.join(".").join(rel)
        }
        Pick::Missing => root.join("missing.png"),
    }
}

/// Puts `bytes` on file descriptor 0, where the command's standard input reads.
fn set_stdin(dir: &Path, bytes: &[u8]) {
    let path = dir.join("stdin");
    std::fs::write(&path, bytes).expect("the stdin file");
    let f = std::fs::File::open(&path).expect("the stdin file");
    use std::os::fd::AsRawFd;
    assert!(unsafe { libc::dup2(f.as_raw_fd(), 0) } == 0);
}

/// The input names of a finished output file's records, each checked whole.
fn recorded(text: &str, format: &str) -> Vec<String> {
    assert!(text.is_empty() || text.ends_with('\n'), "a partial line: {text:?}");
    match format {
        "json" => text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("a JSON record");
                v["file"].as_str().expect("a file name").to_string()
            })
            .collect(),
        "csv" => {
            let mut r = csv::Reader::from_reader(text.as_bytes());
            r.records().map(|rec| rec.expect("a CSV row").get(0).expect("a name").to_string()).collect()
        }
        _ => text.lines().map(|l| l.rsplit_once('\t').expect("NAME<TAB>FEN").0.to_string()).collect(),
    }
}

fn code(c: ExitCode) -> u8 {
    // ExitCode has no accessor: its Debug form holds the number.
    let text = format!("{c:?}");
    let digits: String = text.chars().filter(|c| c.is_ascii_digit()).collect();
    digits.parse().expect("an exit status")
}

fuzz_target!(|case: Case| {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = std::env::temp_dir().join(format!("img2fen-fuzz-batch-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let root = work.join("tree");
    std::fs::create_dir_all(&root).unwrap();

    let (paths, _) = make_tree(&root, &case.entries);
    let format = ["fen", "json", "csv"][case.format as usize % 3];
    let out = work.join("out");
    let mut args: Vec<OsString> = ["img2fen", "--backend", "tract", "--progress", "never", "--format", format]
        .iter()
        .map(OsString::from)
        .collect();
    args.extend(["-j".into(), (1 + case.jobs % 4).to_string().into()]);
    if let Some(b) = case.board {
        args.extend(["--board".into(), (1 + b % 3).to_string().into()]);
    }
    args.extend(["-o".into(), out.clone().into_os_string()]);
    for p in case.args.iter().take(6) {
        args.push(named(p, &root, &paths).into_os_string());
    }
    let list: Vec<u8> = case
        .listed
        .iter()
        .take(6)
        .flat_map(|p| {
            let mut line = named(p, &root, &paths).into_os_string().into_vec();
            line.push(b'\n');
            line
        })
        .collect();
    match &case.stdin {
        Stdin::Nothing => set_stdin(&work, b""),
        Stdin::Picture(c) => {
            set_stdin(&work, &bytes_of(c));
            args.push("-".into());
        }
        Stdin::List => {
            set_stdin(&work, &list);
            args.extend(["--files-from".into(), "-".into()]);
        }
    }
    if !matches!(case.stdin, Stdin::List) && !case.listed.is_empty() {
        let file = work.join("list");
        std::fs::write(&file, &list).unwrap();
        args.extend(["--files-from".into(), file.into_os_string()]);
    }
    if case.args.is_empty() && case.listed.is_empty() && !matches!(case.stdin, Stdin::Picture(_)) {
        args.push(root.clone().into_os_string());
    }

    let first = code(cli::run(args.clone()));
    assert!(first <= 2, "exit status {first}");
    if let Ok(text) = std::fs::read_to_string(&out) {
        let names = recorded(&text, format);
        if format == "json" {
            // A record an input, and an input named twice is one input.
            let distinct: HashSet<&String> = names.iter().collect();
            assert_eq!(distinct.len(), names.len(), "an input recorded twice: {text}");
        }
        if first < 2 && matches!(case.stdin, Stdin::Nothing) {
            // Resumed once finished, the file stays as it was.
            let mut again = args.clone();
            again.push("--resume".into());
            set_stdin(&work, &list);
            let second = code(cli::run(again));
            assert!(second <= 2, "exit status {second} on resume");
            let after = std::fs::read_to_string(&out).unwrap_or_default();
            assert_eq!(after, text, "resume changed a finished file");
        }
    }
    let _ = std::fs::remove_dir_all(&work);
});
