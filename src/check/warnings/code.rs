//! A value warning's code: what it is called, the field it concerns, the level it caps, what
//! it means, and how a warning's words are made when they are not kept. Each value check
//! declares its codes in its own file (`values/`); the order the checks are listed in, each
//! check's codes in its order, is the order every report lists them in (the SARIF rules
//! among them).

use super::super::index::book::{BookAhead, OwnersBook};
use super::super::index::id_text::RecordName;

/// The README section that explains the check codes: every code's documentation (and every
/// SARIF rule's `helpUri`).
pub const CODES_HELP_URI: &str = "https://github.com/ver-cy/vercy/blob/main/README.md#check-codes";

/// What a code says of itself.
#[derive(Debug)]
pub struct Spec {
    /// The stable code, e.g. `value.date`.
    pub code: &'static str,
    /// The field the warning concerns.
    pub field: &'static str,
    /// Under `--strict`, a warning of this code lets the level be no higher than this.
    pub caps_level: u8,
    /// What the code means, in a few words.
    pub meaning: &'static str,
    /// How the human report counts several warnings of the code (after the number), when
    /// not as `warnings: <meaning>`.
    pub many: Option<&'static str>,
    /// How a warning's subject and message are made when it is read, for a code that keeps
    /// none (see [`Words`]): a code that can have a warning every few records.
    pub words: Option<fn(&mut Words, Part) -> String>,
}

/// A value warning's code.
#[derive(Clone, Copy)]
pub struct Code(&'static Spec);

impl Code {
    pub const fn new(spec: &'static Spec) -> Code {
        Code(spec)
    }

    /// The stable code, e.g. `value.date`.
    pub const fn code(self) -> &'static str {
        self.0.code
    }

    /// The field the warning concerns.
    pub const fn field(self) -> &'static str {
        self.0.field
    }

    /// Under `--strict`, the level can be no higher than this.
    pub const fn caps_level(self) -> u8 {
        self.0.caps_level
    }

    /// What the code means, in a few words.
    pub const fn meaning(self) -> &'static str {
        self.0.meaning
    }

    /// What a reader does about a warning of the code.
    pub fn help(self) -> String {
        format!(
            "{}: {}. The records are named with their lines; --strict counts this warning \
             against the level.",
            self.code(),
            self.meaning()
        )
    }

    /// Where the code is documented.
    pub const fn doc(self) -> &'static str {
        CODES_HELP_URI
    }

    /// `n` warnings of the code, counted in a few words.
    pub fn many(self, n: &str) -> String {
        match self.0.many {
            Some(many) => format!("{n} {many}"),
            None => format!("{n} warnings: {}", self.meaning()),
        }
    }

    /// How a warning's words are made when read, if they are not kept.
    pub(super) fn words(self) -> Option<fn(&mut Words, Part) -> String> {
        self.0.words
    }
}

/// Two codes are one when they have one name (a test keeps the names unique).
impl PartialEq for Code {
    fn eq(&self, other: &Code) -> bool {
        self.code() == other.code()
    }
}

impl Eq for Code {}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The stable code, padded as asked (the reports line codes up in columns).
impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.code())
    }
}

/// Which of a warning's words to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// What it is about in a few words (a report that lists many warnings of one code shows
    /// these).
    Subject,
    /// What it says.
    Message,
}

/// What a warning's words are made from when read (see [`Spec::words`]).
pub struct Words<'w, 'a> {
    /// The number the check kept with the warning (a concept's place in the owners book, how
    /// many of its records are a cycle).
    pub kept: u32,
    /// How many records the warning names ...
    pub count: usize,
    /// ... and the name of the `k`th.
    pub name: &'w dyn Fn(usize) -> RecordName<'a>,
    /// The concepts with several owners, read back through `ahead` when given.
    pub book: &'a OwnersBook,
    pub ahead: Option<&'w mut BookAhead>,
}
