//! A shard's facts: what a check of one shard writes beside its report (`check --facts
//! FILE`), and the merge reads. JSON lines: a header (the facts' format, the vercy that
//! wrote them, the shard as checked and its size, the settings of the check), then every
//! record's facts in the shard's order (what the check folds of it, `check/mod.rs`'s
//! `RecordFacts`), then an end line (how many records, the shape). A file without its end line is a check that did not finish.
//!
//! Memory: the writer holds its buffer; the reader a line.

use super::shard_error;
use crate::check::{Options, RecordFacts};
use crate::error::{Result, VercyError};
use crate::write::AtomicFile;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};

/// The facts' format.
const FORMAT: u32 = 1;

/// An end line starts so; a record's line never does (its first key is `rules`).
const END: &str = "{\"end\":";

/// What a check of a shard was asked: the settings every shard of a merge shares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// `--map`, as given.
    pub map: Vec<String>,
    /// `--policy`.
    pub policy: bool,
    pub min_level: u8,
    pub strict: bool,
    /// The concepts of `--expected FILE`.
    pub expected: Vec<String>,
}

/// The facts' first line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Header {
    pub vercy_facts: u32,
    /// The version of the vercy that wrote them (the facts are its fold's).
    pub vercy: String,
    /// The shard as the check was given it, and its size in bytes then.
    pub store: String,
    pub bytes: Option<u64>,
    pub settings: Settings,
}

/// The facts' last line.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct End {
    pub records: u64,
    /// The shape the shard was read as.
    pub shape: String,
}

#[derive(Serialize, Deserialize)]
struct EndLine {
    end: End,
}

/// Writes a shard's facts, replacing `path` atomically once the check is done.
pub struct FactsWriter {
    file: AtomicFile,
    records: u64,
}

impl FactsWriter {
    /// Start the facts of checking `store` (`args` as given) with `settings`.
    pub fn create(path: &str, store: &str, settings: Settings) -> Result<FactsWriter> {
        super::fixed_hashes()?;
        let bytes = std::fs::metadata(store).ok().map(|m| m.len());
        let header = Header {
            vercy_facts: FORMAT,
            vercy: env!("CARGO_PKG_VERSION").to_string(),
            store: store.to_string(),
            bytes,
            settings,
        };
        let mut writer = FactsWriter {
            file: AtomicFile::create(path)?,
            records: 0,
        };
        writer.line(&header)?;
        Ok(writer)
    }

    fn line(&mut self, value: &impl Serialize) -> Result<()> {
        let out = self.file.writer();
        let written = serde_json::to_writer(&mut *out, value)
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"));
        written.map_err(|e| VercyError::Write {
            path: self.file.target().display().to_string(),
            reason: crate::error::io_reason(&e),
        })
    }

    /// One record's facts, in the shard's order.
    pub(crate) fn record(&mut self, facts: &RecordFacts) -> Result<()> {
        self.records += 1;
        self.line(facts)
    }

    /// The end line, and the file in place.
    pub fn finish(mut self, report: &crate::check::report::Report) -> Result<()> {
        let end = EndLine {
            end: End {
                records: self.records,
                shape: report.shape.name(),
            },
        };
        self.line(&end)?;
        self.file.commit()
    }
}

impl Settings {
    /// The settings of a check (`map`: `--map` as given), as its facts keep them.
    pub fn of(opts: &Options, map: &[String]) -> Settings {
        Settings {
            map: map.to_vec(),
            policy: opts.policy_outside_records,
            min_level: opts.min_level,
            strict: opts.strict,
            expected: opts.expected.clone(),
        }
    }

    /// The check's options these settings come from.
    pub fn options(&self) -> Result<Options> {
        Ok(Options {
            policy_outside_records: self.policy,
            min_level: self.min_level,
            strict: self.strict,
            expected: self.expected.clone(),
            ..Options::with_map(&self.map)?
        })
    }

    /// How these settings differ from `other`'s, in words (`--strict`, `--min-level 2`).
    pub fn differences(&self, other: &Settings) -> String {
        let mut said = Vec::new();
        if self.policy != other.policy {
            said.push(format!("--policy {} against {}", self.policy, other.policy));
        }
        if self.min_level != other.min_level {
            said.push(format!(
                "--min-level {} against {}",
                self.min_level, other.min_level
            ));
        }
        if self.strict != other.strict {
            said.push(format!("--strict {} against {}", self.strict, other.strict));
        }
        if self.expected != other.expected {
            said.push("another --expected register".to_string());
        }
        if self.map != other.map {
            said.push("another --map".to_string());
        }
        said.join(", ")
    }
}

/// Reads a shard's facts: the header and the end line first, then the records in order.
pub struct FactsReader {
    pub path: String,
    pub header: Header,
    pub end: End,
    lines: BufReader<File>,
    line: u64,
    text: String,
    done: bool,
}

impl FactsReader {
    pub fn open(path: &str) -> Result<FactsReader> {
        let read_error = |e: std::io::Error| VercyError::Read {
            path: path.to_string(),
            reason: crate::error::io_reason(&e),
        };
        let mut file = File::open(path).map_err(read_error)?;
        if file.metadata().map_err(read_error)?.is_dir() {
            return Err(VercyError::Directory {
                path: path.to_string(),
            });
        }
        let (end_text, end_line) = last_line(&mut file).map_err(read_error)?;
        file.seek(SeekFrom::Start(0)).map_err(read_error)?;
        let mut lines = BufReader::with_capacity(1 << 20, file);
        let mut first = String::new();
        read_line(&mut lines, &mut first).map_err(read_error)?;
        let not_facts = |at: (u64, u64), why: String| {
            shard_error(
                path,
                at,
                format!("not a shard's facts: {why}"),
                "name the files `vercy check --facts FILE` wrote, one a shard",
            )
        };
        let header: Header = serde_json::from_str(&first)
            .map_err(|e| not_facts((1, e.column() as u64), e.to_string()))?;
        if header.vercy_facts != FORMAT || header.vercy != env!("CARGO_PKG_VERSION") {
            return Err(shard_error(
                path,
                (1, 1),
                format!(
                    "facts of format {} written by vercy {}, not this vercy {}",
                    header.vercy_facts,
                    header.vercy,
                    env!("CARGO_PKG_VERSION")
                ),
                "check every shard again with the vercy that merges them",
            ));
        }
        let end =
            match end_text.strip_prefix(END) {
                Some(_) => {
                    serde_json::from_str::<EndLine>(&end_text)
                        .map_err(|e| not_facts((end_line, e.column() as u64), e.to_string()))?
                        .end
                }
                None => return Err(shard_error(
                    path,
                    (end_line, 1),
                    "the facts end before their end line: the check of the shard did not finish",
                    "check the shard again (exit 0 means its facts were written whole)",
                )),
            };
        Ok(FactsReader {
            path: path.to_string(),
            header,
            end,
            lines,
            line: 1,
            text: String::new(),
            done: false,
        })
    }

    /// The next record's facts, in the shard's order; `None` at the end line.
    pub(crate) fn next(&mut self) -> Result<Option<RecordFacts>> {
        if self.done {
            return Ok(None);
        }
        self.text.clear();
        let read = read_line(&mut self.lines, &mut self.text).map_err(|e| VercyError::Read {
            path: self.path.clone(),
            reason: crate::error::io_reason(&e),
        })?;
        self.line += 1;
        if read == 0 || self.text.starts_with(END) {
            self.done = true;
            return Ok(None);
        }
        serde_json::from_str(&self.text).map(Some).map_err(|e| {
            shard_error(
                &self.path,
                (self.line, e.column() as u64),
                format!("a record's facts that do not read: {e}"),
                "check the shard again: its facts file was changed or cut",
            )
        })
    }
}

/// Read one line (its newline dropped); 0 at the end.
fn read_line(lines: &mut impl BufRead, text: &mut String) -> std::io::Result<usize> {
    let read = lines.read_line(text)?;
    if text.ends_with('\n') {
        text.pop();
    }
    Ok(read)
}

/// The last line of `file` (without its newline) and its number, read from the end: the
/// whole file is not read twice for it.
fn last_line(file: &mut File) -> std::io::Result<(String, u64)> {
    let size = file.metadata()?.len();
    let mut end = size;
    let mut tail: Vec<u8> = Vec::new();
    // the end line's newline, then back to the one before it
    let mut start = None;
    while end > 0 && start.is_none() {
        let from = end.saturating_sub(64 << 10);
        let mut chunk = vec![0; (end - from) as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut chunk)?;
        chunk.extend_from_slice(&tail);
        tail = chunk;
        let body = tail.strip_suffix(b"\n").unwrap_or(&tail);
        start = memchr::memrchr(b'\n', body).map(|at| at + 1);
        if from == 0 && start.is_none() {
            start = Some(0);
        }
        end = from;
    }
    let at = start.unwrap_or(0);
    let text = String::from_utf8_lossy(&tail[at..])
        .trim_end_matches('\n')
        .to_string();
    // its number: the lines before it, counted
    let before = end + at as u64;
    let mut counted = 0u64;
    let mut left = before;
    file.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0u8; 1 << 16];
    while left > 0 {
        let n = file.read(&mut buf[..left.min(1 << 16) as usize])?;
        if n == 0 {
            break;
        }
        counted += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        left -= n as u64;
    }
    Ok((text, counted + 1))
}
