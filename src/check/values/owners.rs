//! One owner per concept (`value.owners`): the index gathers every concept with its owners and
//! settles them into the book of concepts with several owners; this check names, for each,
//! the first record of each owner, so together the warnings name each record once at most.

use super::super::index::Index;
use super::super::warnings::{Code, Part, Spec, Warnings, Words};
use super::ValueCheck;

const OWNERS: Code = Code::new(&Spec {
    code: "value.owners",
    field: "concept_owner",
    caps_level: 1,
    meaning: "more than one owner for one concept",
    many: Some("concepts have more than one owner"),
    words: Some(words),
});

/// One warning per concept with several owners, its words made from the book when read (a
/// messy store has a quarter of a million): nothing of its own to read or keep.
#[derive(Default)]
pub(super) struct Owners;

impl ValueCheck for Owners {
    const CODES: &'static [Code] = &[OWNERS];

    type Facts = ();

    fn warnings(&mut self, index: &mut Index, out: &mut Warnings) {
        let Some(book) = index.take_book() else {
            return;
        };
        let concepts = 0..book.concepts.len();
        let owners = concepts.clone().map(|i| book.concepts.owners(i).len()).sum();
        out.reserve(book.concepts.len(), owners);
        for i in concepts {
            out.push_made(OWNERS, i, book.concepts.owners(i).iter().map(|o| o.who));
        }
        out.keep_owners(book);
    }
}

/// A warning's words: `concept (owner, owner)`, and that the concept has that many owners.
fn words(w: &mut Words, part: Part) -> String {
    let concept = w.kept as usize;
    match part {
        Part::Subject => {
            let (concept, owners) = w.book.concept(concept);
            format!("{concept} ({owners})")
        }
        Part::Message => {
            let (concept, owners) = w.book.concept_through(concept, w.ahead.take());
            format!("concept {concept:?} has {} owners: {owners}", w.count)
        }
    }
}
