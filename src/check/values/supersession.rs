//! Ids and supersession: supersedes names no record in the store
//! (`value.supersedes_unknown`), supersedes forms a cycle (`value.supersedes_cycle`), a
//! superseded record whose valid_to was written by hand (`value.superseded_valid_to`). The
//! ids and the targets are matched up in `ids.rs`; here the pointers between them.

use super::super::table;
use super::super::warnings::{RecordList, Warnings};
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
        // one warning per cycle the search finds: a node is on the search's path once, so
        // the cycles name each record once at most
        for cycle in cycles {
            let records = cycle[..cycle.len() - 1].iter().map(|&node| {
                let line = if node < ids {
                    names.ids.line(small(node))
                } else {
                    0
                };
                (name(node), line)
            });
            let path = cycle
                .iter()
                .map(|&node| name(node))
                .collect::<Vec<_>>()
                .join(" → ");
            let message = format!("supersedes forms a cycle: {path}");
            out.push(Code::SupersedesCycle, &message, &path, records);
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

/// What the supersedes pointers come to (see [`Supersession::follow_pointers`]): the
/// pointers that name no record (as their warning names them), the cycles (graph nodes), and
/// the superseded records that carry a valid_to (ids, by line).
pub(super) struct Superseded {
    unknown: RecordList,
    cycles: Vec<Vec<usize>>,
    written: Vec<u32>,
}

/// The cycles of a supersedes graph of `nodes` numbered nodes, given its edges in order
/// (iterative depth-first search from each node with edges, in the order of their names,
/// following each node's edges in the order given: linear in the graph's size).
fn find_cycles<'n>(
    nodes: usize,
    edges: Vec<(u32, u32)>,
    name: &dyn Fn(usize) -> RecordName<'n>,
) -> Vec<Vec<usize>> {
    // When every edge points to a lower number than its source, that numbering is itself a
    // topological order: there is no cycle, and nothing to search. It is the common case (a
    // record supersedes one written before it, and ids are numbered in first-seen order),
    // and one sequential pass over the edges replaces a search across every node, which
    // would all run after the last record is read, when nothing else is left to overlap it.
    if edges.iter().all(|&(from, to)| to < from) {
        return Vec::new();
    }
    // each node's targets, in the order given (a counting sort by source); u32 positions:
    // a graph of more than 2^32 edges is beyond any memory this pass could have. The search
    // runs while the pass's ids and concepts are all still held: the edges go once sorted,
    // and no copy of the positions is made to fill them
    let mut first = vec![0u32; nodes + 1];
    for &(from, _) in &edges {
        first[from as usize + 1] += 1;
    }
    for i in 0..nodes {
        first[i + 1] += first[i];
    }
    let mut targets = vec![0u32; edges.len()];
    for &(from, to) in &edges {
        // node `from`'s position moves along as its targets are placed ...
        let at = &mut first[from as usize];
        targets[*at as usize] = to;
        *at += 1;
    }
    drop(edges);
    // ... to where the next node's start: one place back, the positions are the starts again
    first.copy_within(0..nodes, 1);
    first[0] = 0;
    let out_of = |node: usize| &targets[first[node] as usize..first[node + 1] as usize];
    // A graph has a cycle whatever order a search starts in; only when it has one does the
    // order matter (which cycles are reported, from where): then search in name order.
    let (cycles, marks) = search(
        (0..nodes).filter(|&n| !out_of(n).is_empty()),
        nodes,
        &out_of,
    );
    if cycles.is_empty() {
        return Vec::new();
    }
    // Only the starts that reach a cycle are searched again, in name order: a search from
    // one that reaches none meets no node that reaches one, so leaving it out changes nothing
    // the others find, and a store with a few cycles sorts a few names, not every superseder.
    let mut starts: Vec<usize> = (0..nodes).filter(|&n| marks[n] & REACHES != 0).collect();
    drop(marks);
    starts.sort_by(|a, b| name(*a).as_str().cmp(name(*b).as_str()));
    search(starts, nodes, &out_of).0
}

/// A node in a search: not met yet, on the search's path, or done (the low two bits) ...
const NEW: u8 = 0;
const ACTIVE: u8 = 1;
const DONE: u8 = 2;
/// ... and whether it reaches a cycle.
const REACHES: u8 = 4;

/// The cycles a depth-first search finds, starting from each of `starts` in turn, and what
/// it left of each node: whether it reaches a cycle is known of every node it met (a node
/// with an edge to one on the path is on a cycle; a node reaches one when a node it has an
/// edge to does, known once that one is done or on the path).
fn search<'t>(
    starts: impl IntoIterator<Item = usize>,
    nodes: usize,
    out_of: &dyn Fn(usize) -> &'t [u32],
) -> (Vec<Vec<usize>>, Vec<u8>) {
    let mut marks = vec![NEW; nodes];
    let mut cycles = Vec::new();
    for start in starts {
        if marks[start] != NEW {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = ACTIVE;
        while let Some(&(node, i)) = stack.last() {
            match out_of(node).get(i).map(|&n| n as usize) {
                Some(n) => {
                    if let Some(top) = stack.last_mut() {
                        top.1 += 1;
                    }
                    match marks[n] & !REACHES {
                        NEW => {
                            marks[n] = ACTIVE;
                            stack.push((n, 0));
                        }
                        ACTIVE => {
                            let from = stack.iter().position(|(s, _)| *s == n).unwrap_or(0);
                            let mut cycle: Vec<usize> =
                                stack[from..].iter().map(|(s, _)| *s).collect();
                            cycle.push(n);
                            cycles.push(cycle);
                            marks[node] |= REACHES;
                        }
                        _ => marks[node] |= marks[n] & REACHES,
                    }
                }
                None => {
                    let reaches = marks[node] & REACHES;
                    marks[node] = DONE | reaches;
                    stack.pop();
                    if let Some(&(parent, _)) = stack.last() {
                        marks[parent] |= reaches;
                    }
                }
            }
        }
    }
    (cycles, marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_found_once() {
        let names = ["a", "b", "c", "d"];
        let name = |n: usize| RecordName::Text(names[n]);
        let c = find_cycles(4, [(0, 1), (1, 2), (2, 0), (3, 0)].to_vec(), &name);
        assert_eq!(c, vec![vec![0, 1, 2, 0]]);
    }

    /// Edges that all point back are no cycle; a self-loop, or one edge pointing forward
    /// that closes a loop of backward ones, is still found.
    #[test]
    fn backward_edges_alone_make_no_cycle() {
        let names = ["a", "b", "c", "d"];
        let name = |n: usize| RecordName::Text(names[n]);
        assert!(find_cycles(4, [(1, 0), (2, 0), (3, 2), (3, 1)].to_vec(), &name).is_empty());
        assert_eq!(
            find_cycles(4, [(1, 0), (2, 2)].to_vec(), &name),
            vec![vec![2, 2]]
        );
        assert_eq!(
            find_cycles(4, [(3, 2), (2, 1), (1, 3)].to_vec(), &name),
            vec![vec![1, 3, 2, 1]]
        );
        assert!(find_cycles(4, [(1, 3), (3, 2)].to_vec(), &name).is_empty());
    }

    /// The cycles as a search from every node with edges, in name order, finds them.
    fn every_start_in_name_order(
        nodes: usize,
        edges: &[(u32, u32)],
        name: &dyn Fn(usize) -> String,
    ) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for &(from, to) in edges {
            out[from as usize].push(to);
        }
        let out_of = |n: usize| out[n].as_slice();
        let mut starts: Vec<usize> = (0..nodes).filter(|&n| !out[n].is_empty()).collect();
        starts.sort_by_key(|&n| name(n));
        search(starts, nodes, &out_of).0
    }

    proptest::proptest! {
        /// Searching again only from the starts that reach a cycle finds what a search from
        /// every start finds, names repeated and all.
        #[test]
        fn only_the_starts_that_reach_a_cycle_are_needed(
            nodes in 1usize..24,
            raw in proptest::collection::vec((0u32..24, 0u32..24), 0..40),
            names in proptest::collection::vec("[abc]{1,2}", 24),
        ) {
            let edges: Vec<(u32, u32)> = raw
                .iter()
                .map(|&(a, b)| (a % nodes as u32, b % nodes as u32))
                .collect();
            let name = |n: usize| RecordName::Text(names[n].as_str());
            let owned = |n: usize| names[n].clone();
            proptest::prop_assert_eq!(
                find_cycles(nodes, edges.clone(), &name),
                every_start_in_name_order(nodes, &edges, &owned)
            );
        }
    }
}
