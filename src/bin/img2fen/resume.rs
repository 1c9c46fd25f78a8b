//! Output files that a later run can resume. An output file only ever grows by whole records:
//! each input's record (all its lines) goes out in one `write` to a file opened for appending
//! (cut back off when the write fails). `--resume` first cuts a trailing partial line left by a
//! crash and, in the formats where a record can hold several lines (FEN and CSV, a line per
//! board), the whole last record: a kill during its write may have left only some of its boards.
//! It then skips every input the file still names. A run holds an exclusive lock on its output
//! file.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::output::{Format, CSV_HEADER};
use crate::Failure;

/// An output file that grows by whole records.
pub struct OutputFile {
    file: File,
    path: PathBuf,
}

impl OutputFile {
    /// Opens `path` for `format`. Without `resume` the file is started afresh. With `resume` an
    /// existing file is kept: a trailing partial line (from a killed run) is cut, in FEN and CSV
    /// so is the last record (it may lack boards), and the names of the inputs it still holds
    /// are returned so that they can be skipped.
    pub fn open(path: &Path, format: Format, resume: bool) -> Result<(OutputFile, HashSet<String>), Failure> {
        let fail = |what: &str, e: std::io::Error| Failure::Output(format!("{}: cannot {what}: {e}", path.display()));
        let existed = path.exists();
        let file =
            OpenOptions::new().create(true).append(true).open(path).map_err(|e| fail("open the output file", e))?;
        // One run at a time: two runs resuming one file would both read what is missing.
        file.try_lock().map_err(|e| match e {
            std::fs::TryLockError::WouldBlock => Failure::Output(format!(
                "{}: another img2fen run is writing this file; wait for it to finish",
                path.display()
            )),
            std::fs::TryLockError::Error(e) => fail("lock the output file", e),
        })?;
        let mut done = HashSet::new();
        let mut keep = 0u64;
        if resume && existed {
            let bytes = std::fs::read(path).map_err(|e| fail("read the output file to resume", e))?;
            let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let text = std::str::from_utf8(&bytes[..complete])
                .map_err(|_| Failure::Output(format!("{}: not a text file; cannot resume it", path.display())))?;
            let mut records = recorded(text, format)
                .map_err(|e| Failure::Output(format!("{}: cannot resume: {e}", path.display())))?;
            keep = complete as u64;
            if format != Format::Json {
                // The last input's lines: written in one append, but a kill can stop a write
                // part way, between the lines of its boards. It is read again.
                if let Some((last, _)) = records.last().cloned() {
                    while records.last().is_some_and(|(name, _)| *name == last) {
                        keep = records.pop().expect("a last record").1 as u64;
                    }
                }
            }
            done = records.into_iter().map(|(name, _)| name).collect();
        }
        file.set_len(keep).map_err(|e| fail("cut the output file", e))?;
        let mut out = OutputFile { file, path: path.to_path_buf() };
        if format == Format::Csv && keep == 0 {
            out.write(&(CSV_HEADER.join(",") + "\n"))?;
        }
        Ok((out, done))
    }

    /// Appends one record in a single write and flushes it to the file. A write that fails
    /// part way (a full disk) is cut back off, so that the file ends with the last whole record
    /// and `--resume` reads the input again (a picture's boards are written all or none).
    pub fn write(&mut self, record: &str) -> Result<(), Failure> {
        if record.is_empty() {
            return Ok(());
        }
        let before = self.file.metadata().map(|m| m.len());
        self.file.write_all(record.as_bytes()).and_then(|_| self.file.flush()).map_err(|e| {
            if let Ok(len) = before {
                let _ = self.file.set_len(len);
            }
            Failure::Output(format!("{}: cannot write: {e}", self.path.display()))
        })
    }
}

/// The input name of each line (FEN, JSON) or row (CSV) of the whole lines of an output file,
/// in order, with the byte offset where it starts.
fn recorded(text: &str, format: Format) -> Result<Vec<(String, usize)>, String> {
    let mut names = Vec::new();
    let lines = || text.split_inclusive('\n').scan(0, |at, line| Some((std::mem::replace(at, *at + line.len()), line)));
    match format {
        Format::Fen => {
            for (n, (at, line)) in lines().enumerate() {
                let (name, _) = line.trim_end_matches('\n').rsplit_once('\t').ok_or_else(|| {
                    format!("line {} is not NAME<TAB>FEN (was it written with another --format?)", n + 1)
                })?;
                names.push((crate::output::unescape_name(name), at));
            }
        }
        Format::Json => {
            for (n, (at, line)) in lines().enumerate() {
                let v: serde_json::Value = serde_json::from_str(line)
                    .map_err(|_| format!("line {} is not JSON (was it written with another --format?)", n + 1))?;
                let name =
                    v.get("file").and_then(|f| f.as_str()).ok_or_else(|| format!("line {} has no \"file\"", n + 1))?;
                let name = match v.get("page").and_then(|p| p.as_u64()) {
                    Some(page) => crate::inputs::page_name(name, page as usize),
                    None => name.to_string(),
                };
                names.push((name, at));
            }
        }
        Format::Csv => {
            if text.is_empty() {
                return Ok(names);
            }
            let mut r = csv::Reader::from_reader(text.as_bytes());
            let header = r.headers().map_err(|e| e.to_string())?.clone();
            if header.iter().ne(CSV_HEADER.iter().copied()) {
                // Before the check_whole_board column (2026-12-01) and the page column
                // (2026-12-03), rows had fewer fields.
                for (since, without) in [("check_whole_board", &["check_whole_board", "page"][..]), ("page", &["page"])]
                {
                    let older = CSV_HEADER.iter().copied().filter(|h| !without.contains(h));
                    if header.iter().eq(older) {
                        return Err(format!(
                            "it was written by an older img2fen, without the {since} column; \
                             finish it with that version or write a new file"
                        ));
                    }
                }
                return Err("its first line is not img2fen's CSV header (was it written with another --format?)".into());
            }
            for rec in r.records() {
                let rec = rec.map_err(|e| e.to_string())?;
                let at = rec.position().map_or(0, |p| p.byte() as usize);
                let file = rec.get(0).unwrap_or_default();
                let name = match rec.get(9).and_then(|p| p.parse().ok()) {
                    Some(page) => crate::inputs::page_name(file, page),
                    None => file.to_string(),
                };
                names.push((name, at));
            }
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::InputError;
    use crate::output::record;
    use crate::test_support::temp;

    #[test]
    fn resume_cuts_a_partial_line_and_returns_the_recorded_names() {
        let d = temp("resume");
        let path = d.join("out.csv");
        let (mut out, done) = OutputFile::open(&path, Format::Csv, false).unwrap();
        assert!(done.is_empty());
        out.write(&record::<Vec<img2fen::BoardReading>, _>(
            Format::Csv,
            "a.png",
            true,
            None,
            &Err(InputError::Read(img2fen::Error::NoBoard {
                path: None,
                nearest: "no grid of alternating squares".into(),
            })),
        ))
        .unwrap();
        out.write(&record::<Vec<img2fen::BoardReading>, _>(
            Format::Csv,
            "b,c.png",
            true,
            None,
            &Err(InputError::Other("corrupt image".into())),
        ))
        .unwrap();
        drop(out);
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}d.png,1,8/8/8")).unwrap();
        let (_, done) = OutputFile::open(&path, Format::Csv, true).unwrap();
        // The partial line goes, and so does the last whole record, which may lack boards.
        assert_eq!(done, HashSet::from(["a.png".to_string()]));
        let first_record = whole.lines().take(2).map(|l| format!("{l}\n")).collect::<String>();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), first_record);
        // Another format's file is refused, not overwritten.
        assert!(OutputFile::open(&path, Format::Json, true).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), first_record);
    }

    #[test]
    fn resume_drops_every_line_of_the_last_record_and_keeps_json_whole() {
        let d = temp("resume-last");
        // FEN: a.png had two boards, b.png one of its two (a kill between its lines).
        let path = d.join("out.fen");
        let a = "a.png\t8/8/8/8/8/8/8/K6k w - - 0 1\na.png\t8/8/8/8/8/8/8/k6K w - - 0 1\n";
        std::fs::write(&path, format!("{a}b.png\t8/8/8/8/8/8/8/K5k1 w - - 0 1\n")).unwrap();
        let (_, done) = OutputFile::open(&path, Format::Fen, true).unwrap();
        assert_eq!(done, HashSet::from(["a.png".to_string()]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), a);
        // CSV: the last record's rows go, quoted names with line breaks included.
        let path = d.join("out.csv");
        let head = CSV_HEADER.join(",") + "\n";
        let a = "a.png,1,8/8/8/8/8/8/8/K6k w - - 0 1,white,coordinates,0.9000,,,,\n";
        let b = "\"b\nc.png\",1,8/8/8/8/8/8/8/K6k w - - 0 1,white,coordinates,0.9000,,,,\n\
                 \"b\nc.png\",2,8/8/8/8/8/8/8/k6K w - - 0 1,white,coordinates,0.9000,,,,\n";
        std::fs::write(&path, format!("{head}{a}{b}")).unwrap();
        let (_, done) = OutputFile::open(&path, Format::Csv, true).unwrap();
        assert_eq!(done, HashSet::from(["a.png".to_string()]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{head}{a}"));
        // A file holding only the header stays as it is.
        let (_, done) = OutputFile::open(&path, Format::Csv, true).unwrap();
        assert!(done.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), head);
        // JSON Lines: a line is a whole record, so every whole line is kept.
        let path = d.join("out.jsonl");
        let lines = "{\"file\":\"a.png\",\"boards\":[]}\n{\"file\":\"b.png\",\"boards\":[]}\n";
        std::fs::write(&path, lines).unwrap();
        let (_, done) = OutputFile::open(&path, Format::Json, true).unwrap();
        assert_eq!(done, HashSet::from(["a.png".to_string(), "b.png".to_string()]));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), lines);
    }

    #[test]
    fn a_fresh_output_file_replaces_the_old_one() {
        let d = temp("fresh");
        let path = d.join("out.fen");
        std::fs::write(&path, "old\tline\n").unwrap();
        let (mut out, done) = OutputFile::open(&path, Format::Fen, false).unwrap();
        assert!(done.is_empty());
        out.write(&record::<Vec<img2fen::BoardReading>, _>(
            Format::Fen,
            "x.png",
            true,
            None,
            &Err(InputError::Read(img2fen::Error::NoBoard {
                path: None,
                nearest: "no grid of alternating squares".into(),
            })),
        ))
        .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn a_csv_of_an_older_version_is_not_resumed_and_says_why() {
        let d = temp("older-csv");
        let path = d.join("out.csv");
        std::fs::write(&path, "file,board,fen,orientation,orientation_source,min_p,uncertain,error\na.png,1,8/8/8/8/8/8/8/K6k w - - 0 1,white,pieces,0.9,,\n").unwrap();
        let err = OutputFile::open(&path, Format::Csv, true).err().expect("refused").to_string();
        assert!(err.contains("written by an older img2fen, without the check_whole_board column"), "{err}");
        std::fs::write(&path, "{\"file\": \"a.png\"}\n").unwrap();
        let err = OutputFile::open(&path, Format::Csv, true).err().expect("refused").to_string();
        assert!(err.contains("not img2fen's CSV header"), "{err}");
    }

    #[test]
    fn a_second_run_on_the_same_output_file_is_refused_while_the_first_writes() {
        let d = temp("lock");
        let path = d.join("out.fen");
        let (first, _) = OutputFile::open(&path, Format::Fen, false).unwrap();
        let second = OutputFile::open(&path, Format::Fen, true).err().expect("refused while locked");
        assert!(second.to_string().contains("another img2fen run is writing this file"), "{second}");
        drop(first);
        assert!(OutputFile::open(&path, Format::Fen, true).is_ok(), "free once the first is done");
    }
}
