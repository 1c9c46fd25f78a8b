//! Every output format: the record of one input as FEN, JSON Lines or CSV. The JSON and CSV
//! fields are the contract documented in GUIDE.md ("Output formats"); `tests/cli.rs` compares
//! each format with its record in `tests/fixtures/`.

use std::fmt::Display;

use img2fen::BoardReading;
use serde_json::json;
use shakmaty::Piece;

/// How records are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The FEN alone (after the file name and a tab with several inputs or an output file; failures only on stderr)
    Fen,
    /// JSON Lines, one object per input (GUIDE.md, "Output formats")
    Json,
    /// CSV with a header, one row per board or failure
    Csv,
}

/// The header line of `--format csv`.
pub const CSV_HEADER: [&str; 10] = [
    "file",
    "board",
    "fen",
    "orientation",
    "orientation_source",
    "min_p",
    "uncertain",
    "check_whole_board",
    "error",
    "page",
];

/// The page of a PDF or multi-page TIFF a record is about.
#[derive(Debug, Clone, PartialEq)]
pub struct PageOf {
    /// The file's name.
    pub file: String,
    /// The page's number, from 1.
    pub number: usize,
    /// The resolution a PDF page was read at, when it was.
    pub dpi: Option<f32>,
}

/// One input's record: its lines, each ending with a newline; empty for a FEN record of a
/// failure or of a PDF page without boards (failures are reported on stderr). `with_name` puts
/// the input's name before each FEN. A PDF page's record says which page it is (`page`): its
/// name is `book.pdf#page=N` in FEN, JSON and CSV give the PDF and the page apart.
pub fn record<B: AsRef<[BoardReading]>, E: Display>(
    format: Format,
    name: &str,
    with_name: bool,
    page: Option<&PageOf>,
    result: &Result<B, E>,
) -> String {
    let file = page.map_or(name, |p| p.file.as_str());
    let number = page.map(|p| p.number.to_string()).unwrap_or_default();
    match (format, result) {
        (Format::Fen, Ok(boards)) => boards
            .as_ref()
            .iter()
            .map(|b| if with_name { format!("{}\t{}\n", escape_name(name), b.fen) } else { format!("{}\n", b.fen) })
            .collect(),
        (Format::Fen, Err(_)) => String::new(),
        (Format::Json, r) => {
            let mut v = json!({
                "file": file,
                "error": r.as_ref().err().map(|e| e.to_string()),
                "boards": r.as_ref().map(|b| b.as_ref().iter().map(board_json).collect::<Vec<_>>()).unwrap_or_default(),
            });
            if let Some(p) = page {
                v["page"] = json!(p.number);
                v["dpi"] = json!(p.dpi.map(|d| (d as f64 * 10.0).round() / 10.0));
            }
            let mut line = v.to_string();
            line.push('\n');
            line
        }
        (Format::Csv, r) => {
            let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
            let row = |w: &mut csv::Writer<Vec<u8>>, fields: [String; 10]| {
                w.write_record(&fields).expect("writing to memory")
            };
            match r {
                Ok(boards) if boards.as_ref().is_empty() && page.is_some() => {
                    // A page without boards has a row, so that resume knows it was read.
                    let mut fields: [String; 10] = Default::default();
                    fields[0] = file.to_string();
                    fields[9] = number.clone();
                    row(&mut w, fields)
                }
                Ok(boards) => {
                    for (n, b) in boards.as_ref().iter().enumerate() {
                        let uncertain: Vec<String> = b.uncertain().iter().map(|s| s.square.to_string()).collect();
                        row(
                            &mut w,
                            [
                                file.to_string(),
                                (n + 1).to_string(),
                                b.fen.clone(),
                                b.orientation.name().to_string(),
                                b.orientation_source.name().to_string(),
                                format!("{:.4}", b.min_p()),
                                uncertain.join(" "),
                                b.check_whole_board().unwrap_or_default(),
                                String::new(),
                                number.clone(),
                            ],
                        );
                    }
                }
                Err(e) => {
                    let mut fields: [String; 10] = Default::default();
                    fields[0] = file.to_string();
                    fields[8] = e.to_string();
                    fields[9] = number.clone();
                    row(&mut w, fields)
                }
            }
            String::from_utf8(w.into_inner().expect("writing to memory")).expect("CSV of UTF-8 fields")
        }
    }
}

/// A file name as the FEN format's `NAME<TAB>FEN` lines hold it: a backslash, tab, newline,
/// carriage return or other control character is written as a backslash escape (`\\`, `\t`,
/// `\n`, `\r`, `\u{1b}`), so that a name cannot split or forge a line. [`unescape_name`]
/// reverses it.
pub fn escape_name(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.chars().any(|c| c == '\\' || c.is_control()) {
        return name.into();
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.into()
}

/// The name [`escape_name`] wrote.
pub fn unescape_name(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let code: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                out.extend(u32::from_str_radix(&code, 16).ok().and_then(char::from_u32));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// A board as a JSON object of the documented `--format json` contract.
pub fn board_json(b: &BoardReading) -> serde_json::Value {
    let pc = |p: Option<Piece>| p.map(|p| p.char().to_string()).unwrap_or_else(|| ".".into());
    let round = |v: f32| (v as f64 * 10_000.0).round() / 10_000.0;
    json!({
        "kind": b.kind.name(),
        "kind_confidence": round(b.kind_confidence),
        "source": b.source.name(),
        "picture_differs": b.picture_differs.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "set": b.set,
        "fen": b.fen,
        "placement": b.placement,
        "side_to_move": {
            "color": b.side_to_move.color.char().to_string(),
            "source": b.side_to_move.source.name(),
            "confidence": round(b.side_to_move.confidence),
            "last_move": b.side_to_move.last_move.map(|(from, to)| [from.to_string(), to.to_string()]),
            "en_passant": b.side_to_move.en_passant.map(|sq| sq.to_string()),
        },
        "orientation": b.orientation.name(),
        "orientation_source": b.orientation_source.name(),
        "orientation_confidence": round(b.orientation_confidence),
        "files_reversed": b.files_reversed,
        "coordinates": b.coordinates.map(|c| json!({"ranks": round(c.ranks), "files": round(c.files)})),
        "corners": b.corners.0.iter().map(|p| [(p.x * 10.0).round() / 10.0, (p.y * 10.0).round() / 10.0]).collect::<Vec<_>>(),
        "min_confidence": round(b.min_confidence),
        "min_p": round(b.min_p()),
        "squares": b.squares.iter().map(|s| json!({"square": s.square.to_string(), "piece": pc(s.piece), "p": round(s.p)})).collect::<Vec<_>>(),
        "uncertain": b.uncertain().iter().map(|s| json!({
            "square": s.square.to_string(),
            "piece": pc(s.piece),
            "p": round(s.p),
            "alternatives": s.alternatives(0.01).iter().take(3).map(|(p, q)| json!({"piece": pc(*p), "p": round(*q)})).collect::<Vec<_>>(),
            "rule": s.suspect,
        })).collect::<Vec<_>>(),
        "outside": b.outside.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "check_whole_board": b.check_whole_board(),
        "warnings": b.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_escaped_so_that_a_fen_line_stays_one_line() {
        for name in ["plain.png", "new\nline.png", "tab\tand\\back.png", "bell\u{7}\u{1b}.png", "\\n literal.png"] {
            let e = escape_name(name);
            assert!(!e.contains('\n') && !e.contains('\t') && !e.chars().any(char::is_control), "{e:?}");
            assert_eq!(unescape_name(&e), name);
        }
        assert_eq!(escape_name("a\nb.png"), "a\\nb.png");
    }
}
