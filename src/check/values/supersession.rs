//! Ids and supersession: supersedes names no record in the store
//! (`value.supersedes_unknown`), supersedes forms a cycle (`value.supersedes_cycle`), a
//! superseded record whose valid_to was written by hand (`value.superseded_valid_to`). The
//! ids and the targets are matched up in `ids.rs`; here the pointers between them (the cycles
//! in `cycles.rs`, the pointers that name no record kept in `dangling.rs`).

use super::super::table::{self, Bits};
use super::super::warnings::Warnings;
use super::cycles::{find_cycles, Cycles, Graph};
use super::id_text::RecordName;
use super::ids::{small, FoundInOrder, Ids, Matched, ReadAhead, Target};
use super::record_names::{RecordNames, AS_ID, NAMED};
use super::sought::Sought;
use super::{Code, Folding, Settled, Settling, ValueCheck, ValueRoles};
use crate::store::{RecordView, RoleValue};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::io;

/// A record that supersedes, and how many pointers it has: their targets are the next ones
/// in [`Supersession::targets`].
#[derive(Debug, Clone, Copy)]
struct Superseding {
    from: Superseder,
    pointers: u32,
}

/// A superseding record: by its id's index in `ids`, or, without an id, by its index in
/// `Supersession::nameless`.
#[derive(Debug, Clone, Copy)]
enum Superseder {
    Id(u32),
    Nameless(u32),
}

/// A record without an id that supersedes: its name (in `named`), that name sought among the
/// ids, and how many ids came before it (its name counts as an id only if one of those had
/// it).
#[derive(Debug, Clone, Copy)]
struct Nameless {
    named: u32,
    sought: Sought,
    ids_before: u32,
}

/// The ids the record's supersedes names (sorted, distinct), when it is filled: every check
/// that follows a record's pointers reads them (`SharedFacts`).
#[inline(always)]
pub(super) fn targets<'a>(view: &'a RecordView, r: &ValueRoles) -> Option<Vec<Cow<'a, str>>> {
    let v = view.filled(r.supersedes)?;
    let mut targets: Vec<Cow<str>> = match &v {
        // one id, as written
        RoleValue::Text(_) => vec![v.text()],
        RoleValue::Json(json) => {
            let mut ids = HashSet::new();
            crate::record::collect_ids(json, &mut ids);
            ids.into_iter().map(Cow::Owned).collect()
        }
    };
    targets.sort();
    targets.dedup();
    Some(targets)
}

/// Every record that supersedes and its pointers, and the records without an id among them,
/// in store order, and once they are followed, what they come to.
///
/// Memory: 12 bytes a record that supersedes and 1 a pointer (each text sought is kept in
/// `sought.rs`, and what matching found of it read in the order sought), 12 more a record
/// without an id; 4 bytes a pointer from when the ids are matched up until they are
/// followed, and then the graph's 4 bytes an edge and a node while the cycles are found. A
/// pointer that names no record is kept with the names, a byte and its bytes (`dangling.rs`).
#[derive(Default)]
pub(super) struct Supersession {
    superseding: Vec<Superseding>,
    /// Each pointer's target, by where it was sought.
    targets: Vec<Sought>,
    nameless: Vec<Nameless>,
    found: Option<Superseded>,
}

impl ValueCheck for Supersession {
    /// The record's targets are among what every check shares of it.
    type Facts = ();

    /// Add one record's supersedes pointers, in store order.
    #[inline(always)]
    fn fold(&mut self, _: &(), record: &mut Folding) {
        let shared = record.shared;
        if !shared.supersedes {
            return;
        }
        let from = match record.own {
            Some(i) => Superseder::Id(i),
            None => {
                // a record without an id is named aside, and its name sought among the ids
                let named = record.who() & !NAMED;
                let ids_before = small(record.names.ids.len());
                let sought = record.names.ids.seek(record.name, table::hash(record.name));
                self.nameless.push(Nameless {
                    named,
                    sought,
                    ids_before,
                });
                Superseder::Nameless(small(self.nameless.len() - 1))
            }
        };
        for packed in &shared.targets {
            let target = record.names.ids.seek(shared.text(packed), packed.hash);
            self.targets.push(target);
        }
        let pointers = small(shared.targets.len());
        self.superseding.push(Superseding { from, pointers });
    }

    /// Follow the pointers: what they come to is small, and they go, with what matching
    /// found of their targets, before the other checks settle and the shared concepts are
    /// made.
    fn settle(&mut self, store: &mut Settling) -> std::io::Result<()> {
        self.found = Some(self.follow_pointers(store.names, store.matched)?);
        Ok(())
    }

    fn warnings(&mut self, store: &mut Settled, out: &mut Warnings) {
        if let Some(found) = self.found.take() {
            self.supersession(store.names, found, out);
        }
        self.nameless = Vec::new();
    }
}

impl Supersession {
    /// Room for `pointers` more pointers.
    pub(super) fn reserve(&mut self, pointers: usize) {
        self.targets.reserve(pointers);
    }

    /// How many pointers the records have (until they are followed).
    pub(super) fn pointers(&self) -> usize {
        self.targets.len()
    }

    /// Every pointer in store order, as `f(its record's graph node, its record, what its
    /// target came to)` (see [`FoundInOrder`]: the first id with the target's text, or none,
    /// and then the target's kept form when `texts`). Fails only when the texts are read and
    /// one does not read back whole.
    fn each_pointer(
        &self,
        (ids, matched): (&Ids, &Matched),
        texts: bool,
        mut f: impl FnMut(usize, Superseder, Target),
    ) -> io::Result<()> {
        let mut found = ids.found_in_order(matched, texts);
        let mut targets = self.targets.iter();
        for record in &self.superseding {
            // a record without an id sought its name before its targets
            let from = self.node((ids, matched), record.from, &mut found)?;
            for &target in targets.by_ref().take(record.pointers as usize) {
                f(from, record.from, found.next(target)?);
            }
        }
        Ok(())
    }

    /// The graph node of a superseding record: its id's first index, or past every id, its
    /// name's place among the records without one (when no earlier id has that name; what
    /// was found of its name is the next of `found` when it has none).
    fn node(
        &self,
        (ids, matched): (&Ids, &Matched),
        from: Superseder,
        found: &mut FoundInOrder,
    ) -> io::Result<usize> {
        Ok(match from {
            Superseder::Id(i) => matched.first(i) as usize,
            Superseder::Nameless(k) => {
                let n = self.nameless[k as usize];
                match found.next(n.sought)? {
                    Ok(i) if i < n.ids_before => i as usize,
                    _ => ids.len() + k as usize,
                }
            }
        })
    }

    /// The name of graph node `n` (see [`Self::node`]).
    fn node_name<'n>(
        &self,
        names: &'n RecordNames,
        n: usize,
        ahead: &mut ReadAhead,
    ) -> RecordName<'n> {
        match n.checked_sub(names.ids.len()) {
            None => names.ids.text_ahead(small(n), ahead),
            Some(k) => self.nameless_named(names, k).0,
        }
    }

    /// The name and line of the `k`th record that supersedes without an id.
    fn nameless_named<'n>(&self, names: &'n RecordNames, k: usize) -> (RecordName<'n>, u64) {
        self.nameless.get(k).map_or((RecordName::Text(""), 0), |n| {
            names.named_at(n.named as usize)
        })
    }

    /// Follow every supersedes pointer to the record it names: what they come to is small
    /// whatever the store (the cycles, the superseded records that carry a valid_to), or kept
    /// compact with the names (the pointers that name no record: `dangling.rs`), and the
    /// pointers, the longest lists left of the pass, are let go here with what matching found
    /// of them, before the shared concepts and the warnings are made. Fails only when a text
    /// sought cannot be read back.
    fn follow_pointers(
        &mut self,
        names: &mut RecordNames,
        matched: &mut Matched,
    ) -> io::Result<Superseded> {
        // each superseded record with a valid_to once, in the order first met
        let mut written = Vec::new();
        let mut met = Bits::new(names.ids.len());
        let dangling = &mut names.dangling;
        dangling.reserve(self.targets.len());
        let ids = &names.ids;
        self.each_pointer((ids, matched), true, |_, record, target| match target {
            Err(kept) => {
                // named as the pointer names it: by the record's id, or its name without one
                let from = match record {
                    Superseder::Id(i) => i,
                    Superseder::Nameless(k) => self.nameless[k as usize].named | NAMED,
                };
                dangling.push(from, kept);
            }
            Ok(target) => {
                if ids.carries_valid_to(target) && met.insert(target) {
                    written.push(target);
                }
            }
        })?;
        drop(met);
        names.ids.forget_sought();
        // The graph's nodes are numbers: the store's ids by the index of their first record,
        // then the records that supersede without an id of their own. Its edges are the
        // pointers that name a record, in store order: linear memory, no map keyed by text.
        let nodes = names.ids.len() + self.nameless.len();
        let edges = |edge: &mut dyn FnMut(u32, u32)| {
            let walk = self.each_pointer((&names.ids, matched), false, |from, _, target| {
                if let Ok(target) = target {
                    edge(small(from), target);
                }
            });
            // without the texts, nothing is read back: nothing to fail
            debug_assert!(walk.is_ok());
        };
        let graph = Graph::of(nodes, &edges);
        // the graph holds all the search needs of them
        self.superseding = Vec::new();
        self.targets = Vec::new();
        matched.forget_found();
        // the search reads the names of the nodes that reach a cycle in their order, which is
        // store order: read back from the temporary file a block ahead
        let ahead = RefCell::new(ReadAhead::default());
        let name = |n: usize| self.node_name(names, n, &mut ahead.borrow_mut());
        let cycles = graph.map_or_else(Cycles::default, |graph| find_cycles(graph, &name));
        // in store order (an id's number is its first record's place); each once already.
        // Not by line: a one-line array holds every record on line 1.
        written.sort_unstable();
        Ok(Superseded { cycles, written })
    }

    /// The warnings of what [`Self::follow_pointers`] found.
    fn supersession(&self, names: &RecordNames, found: Superseded, out: &mut Warnings) {
        let Superseded { cycles, written } = found;
        if names.dangling.len() > 0 {
            let message = "supersedes names a record that is not in the store";
            out.push_dangling(Code::SupersedesUnknown, message, "", 0);
        }
        let ids = names.ids.len();
        // one warning per group of records that supersede one another: a record is in one
        // group, so the warnings name each record once at most (`cycles.rs`); their words
        // are made from the names when read (`cycle_words`)
        for (cycle, with) in cycles.iter() {
            // by `who`: a node is an id (named by its text, as the pointers name it), or past
            // them a record without one
            let records =
                cycle
                    .iter()
                    .chain(with)
                    .map(|&node| match (node as usize).checked_sub(ids) {
                        None => node | AS_ID,
                        Some(k) => self.nameless.get(k).map_or(NAMED, |n| n.named | NAMED),
                    });
            out.push_cycle(cycle.len(), records);
        }
        if !written.is_empty() {
            let message = "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched";
            // by `who`, each named by its id's text, as the pointers name it
            let records = written.iter().map(|&t| t | AS_ID);
            out.push_named(Code::SupersededValidTo, message, "", records);
        }
    }
}

/// The records of a cycle a warning's message shows, the first ones of a longer cycle.
const PATH_SHOWN: usize = 4;

/// What the warning of a group of records that supersede one another says: its subject (the
/// cycle, shown by its first records when long, ending where it starts) and its message. The
/// cycle is `cycle` records long, named in order by `name`, and `more` records of the group
/// are not on it.
pub(crate) fn cycle_words<'n>(
    cycle: usize,
    more: usize,
    name: impl Fn(usize) -> RecordName<'n>,
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

/// What the supersedes pointers come to (see [`Supersession::follow_pointers`]) besides the
/// pointers that name no record (kept with the names): the cycles (graph nodes), and the
/// superseded records that carry a valid_to (ids, by line).
pub(super) struct Superseded {
    cycles: Cycles,
    written: Vec<u32>,
}
