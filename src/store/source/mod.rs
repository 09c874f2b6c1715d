//! Where a store's bytes come from. A store argument names a source: `-` (stdin), a file's
//! path, `sqlite:PATH`, a `postgres://` or `postgresql://` URL, `chroma:PATH[#collection]`,
//! `git:REV:PATH` (a store as a git revision holds it), a file that starts with SQLite's
//! header; a library caller hands over bytes in memory. Each kind is a type that implements
//! [`Source`], in a module of its own, and one line of [`SOURCES`] says how an argument names
//! it. What a source gives is the store's own bytes, whose shape the reader then finds
//! (`shape/`), or a database's rows rendered as the JSON lines its dump would hold
//! (`database.rs`). Either way the shapes read them through one [`Stream`].

mod chroma;
mod database;
mod file;
mod git;
mod postgres;
mod sqlite;
mod stream;

pub use database::Select;
pub use stream::{fill, leading_py_space, Stream, MAX_LINE_BYTES};

use crate::error::{io_reason, Result, VercyError};
use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;

/// A place a store is read from. The methods with a default are the ones a plain source (a
/// file's bytes, read again when asked) needs none of.
pub trait Source: std::fmt::Debug + Send + Sync {
    /// Start reading, from the first byte. `name` names the store in errors; `select` is what
    /// `--table` / `--sql` chose, never other than [`Select::Detect`] unless
    /// [`Source::takes_select`].
    fn open(&self, name: &str, select: &Select) -> Result<Opened>;

    /// What reports call the store, from the argument as given: `arg` less anything secret in
    /// it (a URL's password).
    fn arg(&self, arg: &str) -> String {
        arg.to_string()
    }

    /// How messages name the store (`<stdin>`); what reports call it unless said otherwise.
    fn display(&self, arg: &str) -> String {
        self.arg(arg)
    }

    /// Another program's database, read where it lives: nothing is written into it
    /// (`import --into` refuses it).
    fn is_database(&self) -> bool {
        false
    }

    /// `--table` and `--sql` choose what of it is read (a database read by its rows).
    fn takes_select(&self) -> bool {
        false
    }

    /// Read as a pipe is: once, each read stopping at what the pipe holds, so a shape that
    /// reads a store twice keeps a copy of what its first pass read (stdin).
    fn is_pipe(&self) -> bool {
        false
    }

    /// The file the store is, when it is one: a command may read it a second time, or look at
    /// it before it writes anything.
    fn file(&self) -> Option<&Path> {
        None
    }
}

/// What an opened source gives to read.
pub enum Opened {
    /// The store's own bytes: the reader finds their shape.
    Bytes(Box<dyn Read + Send>),
    /// A database's rows as the JSON lines a dump of it holds, and what the rows were read as
    /// (`engrama SQLite database`): the store's shape in reports.
    Rows(Box<dyn Read + Send>, String),
}

/// How a store argument names a source: the source, when the argument is one of its names.
pub type Naming = fn(&str) -> Option<Box<dyn Source>>;

/// Every source a store argument can name, asked in this order: the first that knows the
/// argument for one of its names reads it, and an argument none knows is a file's path
/// ([`file::File`]). A new source is one module and one line here, above the last: that one
/// opens any other path to look at its first bytes.
const SOURCES: &[Naming] = &[
    file::stdin,       // `-`
    sqlite::named,     // sqlite:PATH
    postgres::named,   // postgres://…, postgresql://…
    chroma::named,     // chroma:PATH, chroma:PATH#collection
    git::named,        // git:REV:PATH
    sqlite::by_header, // a regular file that starts with SQLite's header, whatever its name
];

/// A store named on the command line, or held in memory by a library caller.
#[derive(Debug, Clone)]
pub struct Input {
    /// The argument as given (`-` for stdin): what reports call the store.
    pub arg: String,
    /// How to name it in messages: the path as given, `<stdin>`, or the caller's name.
    pub display: String,
    /// Where its bytes come from.
    source: Arc<dyn Source>,
    /// What to read from a database (`--table`, `--sql`).
    pub select: Select,
}

impl Input {
    /// The store `arg` names (see `SOURCES`).
    pub fn new(arg: &str) -> Self {
        Self::named(arg, SOURCES)
    }

    /// The store `arg` names among `sources`, asked in order; a file's path when none knows
    /// it.
    fn named(arg: &str, sources: &[Naming]) -> Self {
        let source: Arc<dyn Source> = match sources.iter().find_map(|naming| naming(arg)) {
            Some(named) => named.into(),
            None => Arc::new(file::File::new(arg)),
        };
        Input {
            arg: source.arg(arg),
            display: source.display(arg),
            source,
            select: Select::Detect,
        }
    }

    /// The store, reading what `--table` / `--sql` name when it is a database.
    pub fn selecting(mut self, select: Select) -> Self {
        self.select = select;
        self
    }

    /// A store already in memory (text an agent sent, a fuzz case), read through the same
    /// reader as a file; `display` names it in messages and reports.
    pub fn from_bytes(display: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Self {
        let display = display.into();
        Input {
            arg: display.clone(),
            display,
            source: Arc::new(file::Memory::new(bytes.into())),
            select: Select::Detect,
        }
    }

    /// The same store, its names kept, read from the file `path` (the file a symbolic link
    /// named, once a writer has claimed it).
    pub fn reading_file(self, path: &Path) -> Self {
        Input {
            source: Arc::new(file::File::new(path)),
            ..self
        }
    }

    /// The file the store is, when it is one.
    pub fn path(&self) -> Option<&Path> {
        self.source.file()
    }

    /// The store is a database (see `Source::is_database`).
    pub fn is_database(&self) -> bool {
        self.source.is_database()
    }

    /// The store is read as a pipe (see `Source::is_pipe`).
    pub fn is_pipe(&self) -> bool {
        self.source.is_pipe()
    }

    /// Open the store for reading: its stream, and for a database what its rows were read as.
    pub(super) fn open_source(&self) -> Result<(Stream, Option<String>)> {
        if !self.source.takes_select() && self.select != Select::Detect {
            let flag = match self.select {
                Select::Table(_) => "--table",
                _ => "--sql",
            };
            let (message, help) = match self.source.is_database() {
                false => (
                    format!("{} is not a database", self.display),
                    "--table and --sql read a database: name it sqlite:PATH or postgresql://…",
                ),
                true => (
                    format!("{} is not read by table or query", self.display),
                    "the store argument names what is read (chroma:PATH#collection); --table \
                     and --sql read sqlite:PATH and postgresql://… (a Chroma folder's own \
                     tables: sqlite:PATH/chroma.sqlite3)",
                ),
            };
            return Err(VercyError::argument(flag, message, help));
        }
        let (reader, rows) = match self.source.open(&self.display, &self.select)? {
            Opened::Bytes(reader) => (reader, None),
            Opened::Rows(reader, described) => (reader, Some(described)),
        };
        Ok((Stream::over(&self.display, reader), rows))
    }

    /// Open the store for reading, from its first byte.
    pub fn open(&self) -> Result<Stream> {
        Ok(self.open_source()?.0)
    }

    pub fn read_error(&self, e: &io::Error) -> VercyError {
        VercyError::Read {
            path: self.display.clone(),
            reason: io_reason(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_a_database_only_by_its_scheme_or_header() {
        assert!(Input::new("sqlite:/tmp/x.db").is_database());
        assert!(Input::new("postgresql://h/db").is_database());
        assert!(Input::new("postgres://h/db").is_database());
        let file = Input::new("fixtures/reference-store.jsonl");
        assert!(!file.is_database());
        assert_eq!(
            file.path(),
            Some(Path::new("fixtures/reference-store.jsonl"))
        );
        let stdin = Input::new("-");
        assert!(stdin.is_pipe() && stdin.path().is_none() && !stdin.is_database());
        assert_eq!(
            (stdin.arg.as_str(), stdin.display.as_str()),
            ("-", "<stdin>")
        );
    }

    /// A source as a test names it, `echo:TEXT`: its bytes are TEXT, a record a line
    /// (`echo-rows:TEXT`, the same lines as a database's rows).
    #[derive(Debug)]
    struct Echo {
        text: String,
        rows: bool,
    }

    impl Source for Echo {
        fn open(&self, _name: &str, _select: &Select) -> Result<Opened> {
            let bytes = Box::new(io::Cursor::new(self.text.clone().into_bytes()));
            Ok(match self.rows {
                true => Opened::Rows(bytes, "echoed rows".into()),
                false => Opened::Bytes(bytes),
            })
        }

        fn arg(&self, _arg: &str) -> String {
            "echo".into()
        }

        fn is_database(&self) -> bool {
            self.rows
        }

        fn takes_select(&self) -> bool {
            self.rows
        }
    }

    fn echo(arg: &str) -> Option<Box<dyn Source>> {
        let (rows, text) = match arg.split_once(':')? {
            ("echo", text) => (false, text),
            ("echo-rows", text) => (true, text),
            _ => return None,
        };
        Some(Box::new(Echo {
            text: text.replace(';', "\n"),
            rows,
        }))
    }

    /// A new source is a type and one line of the table: named by it, read by every shape.
    #[test]
    fn a_source_is_one_type_and_one_line_of_the_table() {
        let sources: Vec<Naming> = std::iter::once(echo as Naming)
            .chain(SOURCES.iter().copied())
            .collect();
        let ids = |input: &Input| {
            let mut ids = Vec::new();
            let shape = crate::store::read_records(input, &mut |r| {
                ids.push(r.fields["record_id"].to_string());
                Ok(())
            })
            .expect("read");
            (shape.name(), ids)
        };
        let lines = Input::named(r#"echo:{"record_id": "a"};{"record_id": "b"}"#, &sources);
        assert_eq!(
            (lines.arg.as_str(), lines.display.as_str()),
            ("echo", "echo")
        );
        assert_eq!(
            ids(&lines),
            ("JSON lines".into(), vec!["\"a\"".into(), "\"b\"".into()])
        );
        // its bytes are a store's: their shape is found as a file's is
        let array = Input::named(r#"echo:[{"record_id": 1}]"#, &sources);
        assert_eq!(ids(&array), ("JSON array".into(), vec!["1".into()]));
        // a database's rows are JSON lines, the shape what they were read as
        let rows = Input::named(r#"echo-rows:{"record_id": "r"}"#, &sources);
        assert_eq!(ids(&rows), ("echoed rows".into(), vec!["\"r\"".into()]));
        // --table and --sql read a database only
        let refused = lines.selecting(Select::Table("t".into())).open();
        assert_eq!(
            refused.err().map(|e| e.to_string()).as_deref(),
            Some("--table: echo is not a database")
        );
        assert!(rows.selecting(Select::Table("t".into())).open().is_ok());
        // the other names are the table's as before
        assert!(Input::named("-", &sources).is_pipe());
        assert!(Input::named("sqlite:x.db", &sources).is_database());
    }
}
