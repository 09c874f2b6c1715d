//! Ids and supersession: supersedes names no record in the store
//! (`value.supersedes_unknown`), supersedes forms a cycle (`value.supersedes_cycle`), a
//! superseded record whose valid_to was written by hand (`value.superseded_valid_to`). The
//! ids and the targets are matched up in `ids.rs`; here the pointers between them.

use super::super::table;
use super::super::warnings::{RecordList, Warnings};
use super::cycles::{find_cycles, Cycle};
use super::id_text::RecordName;
use super::ids::{small, Matched, Sought};
use super::record_names::{RecordNames, NAMED};
use super::{Code, Folding, Settled, Settling, ValueCheck, ValueRoles};
use crate::store::{RecordView, RoleValue};
use std::borrow::Cow;
use std::collections::HashSet;

/// A supersedes pointer: which record points, and at what (a text sought among the ids, see
/// `ids.rs`). The record's line is where its name is kept ([`Supersession::line`]).
#[derive(Debug, Clone, Copy)]
struct Pointer {
    from: Superseder,
    target: Sought,
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
            super::super::rules::collect_ids(json, &mut ids);
            ids.into_iter().map(Cow::Owned).collect()
        }
    };
    targets.sort();
    targets.dedup();
    Some(targets)
}

/// Every supersedes pointer and the records without an id that supersede, in store order
/// (one entry per pointer: linear), and once they are followed, what they come to.
#[derive(Default)]
pub(super) struct Supersession {
    pointers: Vec<Pointer>,
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
            self.pointers.push(Pointer { from, target });
        }
    }

    /// Follow the pointers, then let the texts they sought go: what they come to is small,
    /// and they go before the other checks settle and the shared concepts are made.
    fn settle(&mut self, store: &mut Settling) -> std::io::Result<()> {
        self.found = Some(self.follow_pointers(store.names, store.matched));
        store.names.ids.forget_sought();
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
        self.pointers.reserve(pointers);
    }

    /// The graph node of a superseding record: its id's first index, or past every id, its
    /// name's place among the records without one (when no earlier id has that name).
    fn node(&self, names: &RecordNames, from: Superseder, matched: &Matched) -> usize {
        match from {
            Superseder::Id(i) => matched.first(i) as usize,
            Superseder::Nameless(k) => {
                let n = self.nameless[k as usize];
                match matched.found(n.sought) {
                    Some(i) if i < n.ids_before => i as usize,
                    _ => names.ids.len() + k as usize,
                }
            }
        }
    }

    /// The line of a superseding record.
    fn line(&self, names: &RecordNames, from: Superseder) -> u64 {
        match from {
            Superseder::Id(i) => names.ids.line(i),
            Superseder::Nameless(k) => self.nameless_named(names, k as usize).1,
        }
    }

    /// The name of graph node `n` (see [`Self::node`]).
    fn node_name<'n>(&self, names: &'n RecordNames, n: usize) -> RecordName<'n> {
        match n.checked_sub(names.ids.len()) {
            None => names.ids.text(small(n)),
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
    /// whatever the store (the pointers that name no record, the cycles, the superseded
    /// records that carry a valid_to), and the pointers, the longest list left of the pass,
    /// are let go here, before the shared concepts and the warnings are made.
    fn follow_pointers(&mut self, names: &RecordNames, matched: &Matched) -> Superseded {
        let pointers = std::mem::take(&mut self.pointers);
        let mut unknown = RecordList::default();
        let mut written = Vec::new();
        // The graph's nodes are numbers: the store's ids by the index of their first record,
        // then the records that supersede without an id of their own. Edges are pairs, kept
        // in store order: linear memory, no map keyed by text.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(pointers.len());
        for p in &pointers {
            let from = self.node(names, p.from, matched);
            match matched.found(p.target) {
                None => unknown.push(
                    &format!(
                        "{} → {}",
                        self.node_name(names, from),
                        names.ids.sought(p.target)
                    ),
                    self.line(names, p.from),
                ),
                Some(target) => {
                    if names.ids.carries_valid_to(target) {
                        written.push(target);
                    }
                    edges.push((small(from), target));
                }
            }
        }
        drop(pointers);
        let nodes = names.ids.len() + self.nameless.len();
        let name = |n: usize| self.node_name(names, n);
        let cycles = find_cycles(nodes, edges, &name);
        // by line, each record once (one id a line: its text goes with it)
        written.sort_by_key(|&t| names.ids.line(t));
        written.dedup_by_key(|t| names.ids.line(*t));
        Superseded {
            unknown,
            cycles,
            written,
        }
    }

    /// The warnings of what [`Self::follow_pointers`] found.
    fn supersession(&self, names: &RecordNames, found: Superseded, out: &mut Warnings) {
        let Superseded {
            unknown,
            cycles,
            written,
        } = found;
        if !unknown.is_empty() {
            let message = "supersedes names a record that is not in the store";
            out.push(Code::SupersedesUnknown, message, "", unknown.iter());
        }
        let ids = names.ids.len();
        let name = |n: usize| self.node_name(names, n);
        // one warning per group of records that supersede one another: a record is in one
        // group, so the warnings name each record once at most (`cycles.rs`)
        for Cycle { path, with } in cycles {
            let inner = &path[..path.len().saturating_sub(1)];
            let records = inner.iter().chain(&with).map(|&node| {
                let line = if node < ids {
                    names.ids.line(small(node))
                } else {
                    0
                };
                (name(node), line)
            });
            // a long cycle is shown by its first records (the warning names every one)
            let long = inner.len() > PATH_SHOWN;
            let shown = if long { &path[..PATH_SHOWN] } else { &path[..] };
            let mut names: Vec<String> = shown.iter().map(|&n| name(n).to_string()).collect();
            if long {
                names.push("…".into());
                names.push(name(path[0]).to_string());
            }
            let shown = names.join(" → ");
            let cycle = match long {
                true => format!("supersedes forms a cycle of {} records", inner.len()),
                false => "supersedes forms a cycle".into(),
            };
            let message = match with.len() {
                0 => format!("{cycle}: {shown}"),
                more => format!("{cycle}: {shown}, and {more} more records in cycles with it"),
            };
            out.push(Code::SupersedesCycle, &message, &shown, records);
        }
        if !written.is_empty() {
            let message = "a superseded record carries a valid_to: the end of a superseded interval is derived when reading; leave the old record untouched";
            let records = written
                .iter()
                .map(|&t| (names.ids.text(t), names.ids.line(t)));
            out.push(Code::SupersededValidTo, message, "", records);
        }
    }
}

/// The records of a cycle a warning's message shows, the first ones of a longer cycle.
const PATH_SHOWN: usize = 4;

/// What the supersedes pointers come to (see [`Supersession::follow_pointers`]): the
/// pointers that name no record (as their warning names them), the cycles (graph nodes), and
/// the superseded records that carry a valid_to (ids, by line).
pub(super) struct Superseded {
    unknown: RecordList,
    cycles: Vec<Cycle>,
    written: Vec<u32>,
}
