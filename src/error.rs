//! Every failure vercy reports: one enum, each variant a miette diagnostic with a stable code.
//!
//! Exit code 2 belongs to all of them (see `lib.rs`). Errors about a place in a file carry a
//! [`Snippet`]: the offending line with its true line number, so the caret lands on the right
//! character even in a file of millions of lines.

use crate::text::terminal_safe;
use miette::{Diagnostic, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::fmt;
use std::io;
use thiserror::Error;

/// Exit code for any error (unreadable input, bad arguments or environment).
pub const EXIT_ERROR: u8 = 2;
/// Exit code after Ctrl-C ([`VercyError::Interrupted`]).
pub const EXIT_INTERRUPTED: u8 = 130;

/// Where in a file something went wrong: 1-based line, 1-based column counted in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: u64,
    pub column: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The one line of a file that an error points into, rendered with its real line number.
#[derive(Debug, Clone)]
pub struct Snippet {
    name: String,
    text: String,
    line: u64,
}

impl Snippet {
    /// `text` is the whole offending line (without its newline); `line` is 1-based.
    /// Very long lines are cut around the error so a 64 MB record does not flood the terminal.
    pub fn new(name: &str, text: &str, line: u64, byte_in_line: usize) -> (Self, SourceSpan) {
        const WINDOW: usize = 160;
        let byte_in_line = floor_char_boundary(text, byte_in_line.min(text.len()));
        let (start, end) = if text.len() > 2 * WINDOW {
            (
                floor_char_boundary(text, byte_in_line.saturating_sub(WINDOW)),
                floor_char_boundary(text, (byte_in_line + WINDOW).min(text.len())),
            )
        } else {
            (0, text.len())
        };
        // the line is shown terminal-safe (a record's ESC or CR must not reach the terminal),
        // and the span is measured in the text as shown, so the caret stays on its character
        let raw = &text[start..end];
        let raw_at = byte_in_line - start;
        let at = terminal_safe(&raw[..raw_at]).len();
        let len = raw[raw_at..]
            .chars()
            .next()
            .map_or(0, |c| terminal_safe(c.encode_utf8(&mut [0; 4])).len());
        (
            Snippet {
                name: terminal_safe(name).into_owned(),
                text: terminal_safe(raw).into_owned(),
                line,
            },
            SourceSpan::new(at.into(), len),
        )
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        _before: usize,
        _after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, miette::MietteError> {
        let _ = span;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            self.text.as_bytes(),
            SourceSpan::new(0.into(), self.text.len()),
            (self.line.saturating_sub(1)) as usize,
            0,
            1,
        )))
    }
}

/// All of vercy's errors. Every one ends the command with exit code 2.
#[derive(Debug, Error, Diagnostic)]
pub enum VercyError {
    #[error("{path}: cannot read: {reason}")]
    #[diagnostic(
        code(vercy::io::read),
        help("check that the path exists, is a file and is readable; use `-` for stdin")
    )]
    Read { path: String, reason: String },

    #[error("{path}: is a directory, not a store")]
    #[diagnostic(
        code(vercy::io::directory),
        help("name a JSON, JSONL, engrama NDJSON or compact file inside it")
    )]
    Directory { path: String },

    #[error("{path}: cannot write: {reason}")]
    #[diagnostic(
        code(vercy::io::write),
        help("check free space and permissions; nothing was replaced")
    )]
    Write { path: String, reason: String },

    #[error("{path}: {message}")]
    #[diagnostic(code(vercy::io::output), help("{help}"))]
    Output {
        path: String,
        message: String,
        help: String,
    },

    #[error("{path}: another vercy is writing it")]
    #[diagnostic(
        code(vercy::io::busy),
        help(
            "run again when it is done, or without --no-wait to wait for it; nothing was written"
        )
    )]
    Busy { path: String },

    #[error("{path}:{pos}: {message}")]
    #[diagnostic(code(vercy::store::json), help("{help}"))]
    Json {
        path: String,
        pos: Position,
        message: String,
        help: String,
        #[source_code]
        snippet: Snippet,
        #[label("here")]
        span: SourceSpan,
    },

    #[error("{path}:{pos}: the text is not valid UTF-8")]
    #[diagnostic(
        code(vercy::store::utf8),
        help("re-encode the file as UTF-8 (for example `iconv -f latin1 -t utf-8`)")
    )]
    Utf8 { path: String, pos: Position },

    #[error("{path}:{pos}: a record must be a JSON object, found {found}")]
    #[diagnostic(
        code(vercy::store::not_object),
        help("each line (or each element of the array) must be one `{{...}}` object")
    )]
    NotObject {
        path: String,
        pos: Position,
        found: String,
        #[source_code]
        snippet: Snippet,
        #[label("this is {found}")]
        span: SourceSpan,
    },

    #[error("{path}:{pos}: {message}")]
    #[diagnostic(code(vercy::store::shape), help("{help}"))]
    Shape {
        path: String,
        pos: Position,
        message: String,
        help: String,
    },

    #[error("{path}:{pos}: {message}")]
    #[diagnostic(code(vercy::store::compact), help("{help}"))]
    Compact {
        path: String,
        pos: Position,
        message: String,
        help: String,
        #[source_code]
        snippet: Snippet,
        #[label("here")]
        span: SourceSpan,
    },

    #[error("--map: {message}")]
    #[diagnostic(code(vercy::args::map), help("write role=path pairs separated by commas (record_id=uuid,source=metadata.source) or a named map: {names}"))]
    Map { message: String, names: String },

    #[error("{what}: {message}")]
    #[diagnostic(code(vercy::args::value), help("{help}"))]
    Argument {
        what: String,
        message: String,
        help: String,
    },

    #[error("environment variable {name}={value:?}: {message}")]
    #[diagnostic(code(vercy::env::value), help("{help}"))]
    Environment {
        name: String,
        value: String,
        message: String,
        help: String,
    },

    #[error("the embedded {what} is broken: {message}")]
    #[diagnostic(
        code(vercy::internal::data),
        help("this is a bug in this build of vercy; please report it")
    )]
    EmbeddedData { what: String, message: String },

    #[error("{store}: {message}")]
    #[diagnostic(code(vercy::store::database), help("{help}"))]
    Database {
        store: String,
        message: String,
        help: String,
    },

    #[error("{store}: {message}")]
    #[diagnostic(code(vercy::store::git), help("{help}"))]
    Git {
        store: String,
        message: String,
        help: String,
    },

    /// Two stores `diff` cannot compare as two versions of one store (the same store twice,
    /// an id on both lines of one side, no id to match by, two different maps).
    #[error("{side} {store}: {message}")]
    #[diagnostic(code(vercy::diff::input), help("{help}"))]
    DiffInput {
        side: String,
        store: String,
        message: String,
        help: String,
    },

    /// One side of a diff could not be read: which side, and the reader's diagnostic (its
    /// file, line and column in its message, its advice as this one's).
    #[error("{side} {store} cannot be read: {error}")]
    #[diagnostic(code(vercy::diff::side), help("{help}"))]
    DiffSide {
        side: String,
        store: String,
        error: Box<VercyError>,
        help: String,
    },

    #[error("{path}:{pos}: {message}")]
    #[diagnostic(code(vercy::host::invalid), help("{help}"))]
    Host {
        path: String,
        pos: Position,
        message: String,
        help: String,
        #[source_code]
        snippet: Snippet,
        #[label("here")]
        span: SourceSpan,
    },

    #[error("{path}:{pos}: {message}")]
    #[diagnostic(code(vercy::shard::input), help("{help}"))]
    Shard {
        path: String,
        pos: Position,
        message: String,
        help: String,
    },

    #[error("interrupted")]
    #[diagnostic(code(vercy::interrupted))]
    Interrupted,
}

pub type Result<T, E = VercyError> = std::result::Result<T, E>;

impl VercyError {
    /// The error with every text it shows terminal-safe: paths, messages and what was found
    /// can quote a record or a file name, and reach the terminal through the diagnostic.
    pub fn terminal_safe(mut self) -> Self {
        fn fix(s: &mut String) {
            let fixed = match terminal_safe(s) {
                std::borrow::Cow::Owned(o) => Some(o),
                std::borrow::Cow::Borrowed(_) => None,
            };
            if let Some(o) = fixed {
                *s = o;
            }
        }
        use VercyError::*;
        match &mut self {
            Read { path, reason } | Write { path, reason } => {
                [path, reason].into_iter().for_each(fix)
            }
            Directory { path } | Utf8 { path, .. } | Busy { path } => {
                [path].into_iter().for_each(fix)
            }
            Output {
                path,
                message,
                help,
            } => [path, message, help].into_iter().for_each(fix),
            Json {
                path,
                message,
                help,
                ..
            }
            | Shape {
                path,
                message,
                help,
                ..
            }
            | Compact {
                path,
                message,
                help,
                ..
            }
            | Host {
                path,
                message,
                help,
                ..
            }
            | Shard {
                path,
                message,
                help,
                ..
            } => [path, message, help].into_iter().for_each(fix),
            Database {
                store,
                message,
                help,
            }
            | Git {
                store,
                message,
                help,
            } => [store, message, help].into_iter().for_each(fix),
            NotObject { path, found, .. } => [path, found].into_iter().for_each(fix),
            Map { message, names } => [message, names].into_iter().for_each(fix),
            Argument {
                what,
                message,
                help,
            } => [what, message, help].into_iter().for_each(fix),
            // the value is shown through `{:?}`, which escapes it already
            Environment {
                name,
                message,
                help,
                ..
            } => [name, message, help].into_iter().for_each(fix),
            EmbeddedData { what, message } => [what, message].into_iter().for_each(fix),
            DiffInput {
                side,
                store,
                message,
                help,
            } => [side, store, message, help].into_iter().for_each(fix),
            DiffSide {
                side,
                store,
                error,
                help,
            } => {
                [side, store, help].into_iter().for_each(fix);
                let inner = std::mem::replace(&mut **error, Interrupted);
                **error = inner.terminal_safe();
            }
            Interrupted => {}
        };
        self
    }

    pub fn argument(
        what: impl Into<String>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        VercyError::Argument {
            what: what.into(),
            message: message.into(),
            help: help.into(),
        }
    }
}

/// An I/O error's reason as a diagnostic gives it: short words for the common kinds, and
/// the system's message without its `(os error N)`.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}
