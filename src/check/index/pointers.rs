//! The supersedes pointers: every record that supersedes and the ids it names, gathered in
//! store order, and once the ids are matched up (`ids.rs`), followed to the records they name:
//! the pointers that name no record (kept compact with the names, `dangling.rs`), the
//! superseded records that carry a written valid_to, and the groups of records that supersede
//! one another (`cycles.rs`).

use super::super::table::{self, Bits};
use super::cycles::{find_cycles, Cycles, Graph};
use super::id_text::RecordName;
use super::ids::{small, FoundInOrder, Ids, Matched, ReadAhead, Target};
use super::names::{RecordNames, AS_ID, NAMED};
use super::sought::Sought;
use super::{Folding, SharedFacts, ValueRoles};
use crate::store::{RecordView, RoleValue};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::io;

/// A record that supersedes, and how many pointers it has: their targets are the next ones
/// in [`Pointers::targets`].
#[derive(Debug, Clone, Copy)]
struct Superseding {
    from: Superseder,
    pointers: u32,
}

/// A superseding record: by its id's index in `ids`, or, without an id, by its index in
/// `Pointers::nameless`.
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

/// The ids the record's supersedes names (sorted, distinct), when it is filled.
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
/// in store order.
///
/// Memory: 12 bytes a record that supersedes and 1 a pointer (each text sought is kept in
/// `sought.rs`, and what matching found of it read in the order sought), 12 more a record
/// without an id; 4 bytes a pointer from when the ids are matched up until they are
/// followed, and then the graph's 4 bytes an edge and a node while the cycles are found.
#[derive(Default)]
pub struct Pointers {
    superseding: Vec<Superseding>,
    /// Each pointer's target, by where it was sought.
    targets: Vec<Sought>,
    nameless: Vec<Nameless>,
}

/// What the pointers came to (see [`Pointers::follow`]) besides the pointers that name no
/// record (kept with the names): the cycles (graph nodes), the superseded records that carry
/// a valid_to (ids), and the names of the records without an id that supersede.
#[derive(Default)]
pub struct Followed {
    cycles: Cycles,
    written: Vec<u32>,
    /// By graph node past the ids, the record's place among the names kept aside.
    nameless: Vec<u32>,
    /// How many ids the store holds: the graph's first nodes.
    ids: usize,
}

impl Followed {
    /// Each group of records that supersede one another (a record is in one group at most):
    /// how many of its records are its cycle, and its records by `who`, the cycle's first
    /// along the pointers (an id named by its text, as the pointers name it).
    pub fn cycles(&self) -> impl Iterator<Item = (usize, impl Iterator<Item = u32> + '_)> + '_ {
        self.cycles.iter().map(|(cycle, with)| {
            let records =
                cycle
                    .iter()
                    .chain(with)
                    .map(|&node| match (node as usize).checked_sub(self.ids) {
                        None => node | AS_ID,
                        Some(k) => self.nameless.get(k).map_or(NAMED, |&n| n | NAMED),
                    });
            (cycle.len(), records)
        })
    }

    /// The superseded records that carry a written valid_to, by `who` (each named by its id's
    /// text, as the pointers name it), in store order.
    pub fn written(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.written.iter().map(|&t| t | AS_ID)
    }
}

impl Pointers {
    /// Room for `pointers` more pointers.
    pub fn reserve(&mut self, pointers: usize) {
        self.targets.reserve(pointers);
    }

    /// How many pointers the records have.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    /// Add the pointers of a record that supersedes (`own`: its id's index, when it has one),
    /// in store order.
    #[inline(always)]
    pub(super) fn fold(&mut self, shared: &SharedFacts, own: Option<u32>, record: &mut Folding) {
        let from = match own {
            Some(i) => Superseder::Id(i),
            None => {
                // a record without an id is named aside, and its name sought among the ids
                let named = record.who() & !NAMED;
                let ids = &mut record.names.ids;
                let ids_before = small(ids.len());
                let sought = ids.seek(record.name, table::hash(record.name));
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

    /// Follow every supersedes pointer to the record it names: what they come to is small
    /// whatever the store (the cycles, the superseded records that carry a valid_to), or kept
    /// compact with the names (the pointers that name no record: `dangling.rs`); the pointers
    /// go, with what matching found of them. Fails only when a text sought cannot be read
    /// back.
    pub(super) fn follow(
        self,
        names: &mut RecordNames,
        matched: &mut Matched,
    ) -> io::Result<Followed> {
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
        let nameless: Vec<u32> = self.nameless.iter().map(|n| n.named).collect();
        drop(self);
        matched.forget_found();
        // the search reads the names of the nodes that reach a cycle in their order, which is
        // store order: read back from the temporary file a block ahead
        let ahead = RefCell::new(ReadAhead::default());
        let name = |n: usize| node_name(&nameless, names, n, &mut ahead.borrow_mut());
        let cycles = graph.map_or_else(Cycles::default, |graph| find_cycles(graph, &name));
        // in store order (an id's number is its first record's place); each once already.
        // Not by line: a one-line array holds every record on line 1.
        written.sort_unstable();
        Ok(Followed {
            cycles,
            written,
            nameless,
            ids: names.ids.len(),
        })
    }
}

/// The name of graph node `n` (see [`Pointers::node`]): an id, or past them the record
/// without one whose name is kept aside at `nameless[n - ids]`.
fn node_name<'n>(
    nameless: &[u32],
    names: &'n RecordNames,
    n: usize,
    ahead: &mut ReadAhead,
) -> RecordName<'n> {
    match n.checked_sub(names.ids.len()) {
        None => names.ids.text_ahead(small(n), ahead),
        Some(k) => nameless
            .get(k)
            .map_or(RecordName::Text(""), |&j| names.named_at(j as usize).0),
    }
}
