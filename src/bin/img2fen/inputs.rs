//! The inputs of a run: files, folders (every image below them, found by content), lists of
//! paths and standard input.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::Failure;

/// One input of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// An image file (or what was named as one: reading it says whether it is).
    File(PathBuf),
    /// Standard input (`-`).
    Stdin,
    /// Something named that yields no image to read, with why: a folder without images, a folder
    /// that cannot be listed.
    Bad(PathBuf, String),
}

impl Input {
    /// The name records and messages use: the path as given, or `-`.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) | Input::Bad(p, _) => p.display().to_string(),
            Input::Stdin => "-".to_string(),
        }
    }
}

/// The inputs in order: each of `args`, then each line of `files_from` (a file, or `-` for
/// standard input; empty lines are skipped). `-` is standard input; a folder stands for every
/// image below it, recursively and in path order, recognised by its content whatever its name.
/// Standard input can serve once: as one picture or as the list.
pub fn expand(args: &[PathBuf], files_from: Option<&Path>) -> Result<Vec<Input>, Failure> {
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
    for a in named {
        if a.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if a.is_dir() {
            let mut files = Vec::new();
            let listed = collect_images(&a, &mut files);
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
    Ok(out)
}

/// Adds every image file below `dir`; the first folder that cannot be listed is the error.
fn collect_images(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list folder {}: {e}", dir.display()))?;
    let mut first_error = Ok(());
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            let r = collect_images(&p, out);
            if first_error.is_ok() {
                first_error = r;
            }
        } else if looks_like_image(&p) {
            out.push(p);
        }
    }
    first_error
}

/// Whether the file starts like a format img2fen decodes.
fn looks_like_image(p: &Path) -> bool {
    let mut head = [0u8; 32];
    let n = File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
    n > 0 && image::guess_format(&head[..n]).is_ok()
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
        let inputs = expand(&[PathBuf::from("first.png")], Some(&list)).unwrap();
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
        let missing = d.join("missing.txt");
        let err = expand(&[], Some(&missing)).unwrap_err().to_string();
        assert!(err.starts_with(&format!("{}: cannot read the list of files", missing.display())), "{err}");
    }
}
