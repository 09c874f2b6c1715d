//! Ids and supersession: supersedes names no record in the store
//! (`value.supersedes_unknown`), supersedes forms a cycle (`value.supersedes_cycle`), a
//! superseded record whose valid_to was written by hand (`value.superseded_valid_to`). The
//! index follows every pointer to the record it names (`index/pointers.rs`); this check names
//! what they came to.

use super::super::index::Index;
use super::super::index::id_text::RecordName;
use super::super::warnings::{Code, Part, Spec, Warnings, Words};
use super::ValueCheck;

const SUPERSEDES_UNKNOWN: Code = Code::new(&Spec {
    code: "value.supersedes_unknown",
    field: "supersedes",
    caps_level: 2,
    meaning: "supersedes names no record in the store",
    many: None,
    words: None,
});

const SUPERSEDES_CYCLE: Code = Code::new(&Spec {
    code: "value.supersedes_cycle",
    field: "supersedes",
    caps_level: 2,
    meaning: "supersedes forms a cycle",
    many: Some("supersedes cycles"),
    words: Some(words),
});

const SUPERSEDED_VALID_TO: Code = Code::new(&Spec {
    code: "value.superseded_valid_to",
    field: "supersedes",
    caps_level: 2,
    meaning: "a superseded record whose valid_to was written by hand",
    many: None,
    words: None,
});

/// Nothing of its own to read or keep: the pointers are the index's.
#[derive(Default)]
pub(super) struct Supersession;

impl ValueCheck for Supersession {
    const CODES: &'static [Code] = &[SUPERSEDES_UNKNOWN, SUPERSEDES_CYCLE, SUPERSEDED_VALID_TO];

    type Facts = ();

    fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
        if index.names().dangling.len() > 0 {
            let message = "supersedes names a record that is not in the store";
            out.push_dangling(SUPERSEDES_UNKNOWN, message, "", 0);
        }
        let followed = index.followed();
        // one warning per group of records that supersede one another: a record is in one
        // group, so the warnings name each record once at most; their words are made from
        // the names when read
        for (cycle, records) in followed.cycles() {
            out.push_made(SUPERSEDES_CYCLE, cycle, records);
        }
        let written = followed.written();
        if written.len() > 0 {
            let message = "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched";
            out.push_named(SUPERSEDED_VALID_TO, message, "", written);
        }
    }
}

/// A cycle's words (see [`cycle_words`]): how many of its records are the cycle is kept.
fn words(w: &mut Words, part: Part) -> String {
    let cycle = w.kept as usize;
    let more = w.count.saturating_sub(cycle);
    let (subject, message) = cycle_words(cycle, more, w.name);
    match part {
        Part::Subject => subject,
        Part::Message => message,
    }
}

/// The records of a cycle a warning's message shows, the first ones of a longer cycle.
const PATH_SHOWN: usize = 4;

/// What the warning of a group of records that supersede one another says: its subject (the
/// cycle, shown by its first records when long, ending where it starts) and its message. The
/// cycle is `cycle` records long, named in order by `name`, and `more` records of the group
/// are not on it.
fn cycle_words<'n>(
    cycle: usize,
    more: usize,
    name: &dyn Fn(usize) -> RecordName<'n>,
) -> (String, String) {
    let long = cycle > PATH_SHOWN;
    let mut names: Vec<String> = (0..cycle.min(PATH_SHOWN))
        .map(|k| name(k).to_string())
        .collect();
    if long {
        names.push("…".into());
    }
    names.push(name(0).to_string());
    let shown = names.join(" → ");
    let words = match long {
        true => format!("supersedes forms a cycle of {cycle} records"),
        false => "supersedes forms a cycle".into(),
    };
    let message = match more {
        0 => format!("{words}: {shown}"),
        more => format!("{words}: {shown}, and {more} more records in cycles with it"),
    };
    (shown, message)
}

