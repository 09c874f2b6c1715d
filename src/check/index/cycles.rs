//! The cycles of a supersedes graph (`value.supersedes_cycle`): one for each group of records
//! that supersede one another (a strongly connected component), so the warnings name each
//! record once at most however tangled the pointers are. A search lists the first cycle it
//! finds through each group, the rest of the group named after it.
//!
//! Memory and time: linear in the graph. A search that listed a cycle for every pointer
//! back into its path named the same records again and again: records that each supersede the
//! five before them, with one id written twice, made a cycle of thousands for nearly every
//! pointer (a 20,000-record store held 8.7 GB).

use super::id_text::RecordName;

/// The groups of records that supersede one another, as their warnings name them: for each,
/// the first cycle the search finds through it (its nodes along the pointers, from the one
/// it starts at, which it ends at again), then the group's other nodes by number; the
/// groups' nodes in one list.
///
/// Memory: 4 bytes a node named and 8 a group. A store of half a million pairs of records
/// that supersede each other had kept two lists a group.
#[derive(Debug, Default)]
pub(super) struct Cycles {
    nodes: Vec<u32>,
    /// Each group's end in `nodes`, and how many of its nodes are its cycle.
    groups: Vec<(u32, u32)>,
}

impl Cycles {
    /// Each group: its cycle, and its other nodes.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&[u32], &[u32])> + '_ {
        let starts = std::iter::once(0).chain(self.groups.iter().map(|&(end, _)| end));
        starts.zip(&self.groups).map(|(start, &(end, cycle))| {
            let nodes = &self.nodes[start as usize..end as usize];
            nodes.split_at(cycle as usize)
        })
    }
}

/// The cycles of a supersedes graph: one for each group that holds one, found by a
/// depth-first search from each node that reaches a cycle, in the order of their names,
/// following each node's edges in the order given.
pub(super) fn find_cycles<'n>(graph: Graph, name: &dyn Fn(usize) -> RecordName<'n>) -> Cycles {
    // Only the nodes that reach a cycle are searched (a store with a few cycles has few):
    // every node of a group holding a cycle is one, and a node that reaches none leads to no
    // node that does, so leaving them out changes nothing the search finds.
    let part = Reaching::of(&graph);
    if part.nodes.is_empty() {
        return Cycles::default();
    }
    let groups = Groups::find(&part);
    // A graph has its cycles whatever order a search starts in; which one it lists for a
    // group depends on the order: name order.
    // Each name is read once for its first bytes, and again only to break a tie between two
    // names that begin alike: a name can be read back from the temporary file, and a sort
    // that read two names a comparison read a million of them twenty times over.
    // Names that all begin alike (paths, numbered ids) are keyed past what they share.
    let mut shared: Option<(String, usize)> = None;
    for n in 0..part.len() as u32 {
        let text = name(part.node(n));
        let text = text.as_str();
        match &mut shared {
            None => shared = Some((text.to_string(), text.len())),
            Some((first, len)) => *len = common_prefix(&first.as_bytes()[..*len], text.as_bytes()),
        }
    }
    let skip = shared.map_or(0, |(_, len)| len);
    let firsts: Vec<u64> = (0..part.len() as u32)
        .map(|n| name_prefix(&name(part.node(n)).as_str().as_bytes()[skip..]))
        .collect();
    let mut starts: Vec<u32> = (0..part.len() as u32).collect();
    starts.sort_by(|&a, &b| {
        firsts[a as usize]
            .cmp(&firsts[b as usize])
            .then_with(|| name(part.node(a)).as_str().cmp(name(part.node(b)).as_str()))
    });
    let found = search(starts, &part, &groups);
    // each group's other nodes, by number, after the cycle listed: counted, then placed
    let mut listed = vec![NOT_LISTED; groups.cyclic.len()];
    let mut on_path = vec![false; part.len()];
    let mut ends: Vec<u32> = Vec::with_capacity(found.groups.len());
    for (i, (&group, cycle)) in found.groups.iter().zip(found.iter()).enumerate() {
        listed[group as usize] = i as u32;
        for &n in cycle {
            on_path[n as usize] = true;
        }
        ends.push(cycle.len() as u32);
    }
    let with_listed = |n: usize| {
        Some(listed[groups.group[n] as usize]).filter(|&at| at != NOT_LISTED && !on_path[n])
    };
    for n in 0..part.len() {
        if let Some(at) = with_listed(n) {
            ends[at as usize] += 1;
        }
    }
    // where each group's next node goes, from its start on
    let mut next: Vec<u32> = Vec::with_capacity(ends.len());
    let mut total = 0;
    for end in &mut ends {
        next.push(total);
        total += *end;
        *end = total;
    }
    let mut nodes = vec![0u32; total as usize];
    let mut cycle_lens = Vec::with_capacity(ends.len());
    for (at, cycle) in next.iter_mut().zip(found.iter()) {
        for &n in cycle {
            nodes[*at as usize] = part.node(n) as u32;
            *at += 1;
        }
        cycle_lens.push(cycle.len() as u32);
    }
    drop(found);
    for n in 0..part.len() {
        if let Some(at) = with_listed(n) {
            let at = &mut next[at as usize];
            nodes[*at as usize] = part.node(n as u32) as u32;
            *at += 1;
        }
    }
    Cycles {
        nodes,
        groups: ends.into_iter().zip(cycle_lens).collect(),
    }
}

/// A name's first eight bytes (past those every name shares) as a number that orders as
/// the names do: two names whose numbers differ are in that order (a name that ends sooner
/// is padded with zeros, and is then a prefix of the other, or differs from it before its
/// end); equal numbers decide nothing.
fn name_prefix(bytes: &[u8]) -> u64 {
    let mut first = [0u8; 8];
    let n = bytes.len().min(8);
    first[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(first)
}

/// How many bytes `a` and `b` begin with alike.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The first cycle the search finds through each group (see [`search`]): the group, and the
/// cycle's nodes numbered among the nodes that reach a cycle (the one it ends at again not
/// repeated), each cycle's after the one before.
#[derive(Default)]
struct Found {
    groups: Vec<u32>,
    nodes: Vec<u32>,
    ends: Vec<u32>,
}

impl Found {
    fn iter(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| &self.nodes[start as usize..end as usize])
    }
}

/// A group no cycle is listed for (see [`find_cycles`]).
const NOT_LISTED: u32 = u32::MAX;

/// Each node's targets, in the order given (a counting sort by source); u32 positions: a
/// graph of more than 2^32 edges is beyond any memory this pass could have.
pub(super) struct Graph {
    first: Vec<u32>,
    targets: Vec<u32>,
}

/// A graph's edges, given in order to the function passed, as (source, target); given as
/// often as asked, so that no list of them is held beside the graph.
pub(super) type Edges<'e> = dyn Fn(&mut dyn FnMut(u32, u32)) + 'e;

impl Graph {
    /// The graph of `nodes` numbered nodes and `edges`, or `None` when it can have no cycle.
    ///
    /// The search runs while the pass's ids and concepts are all still held: the edges are
    /// placed as they are given, with no list of them and no copy of the positions.
    pub(super) fn of(nodes: usize, edges: &Edges) -> Option<Graph> {
        // When every edge points to a lower number than its source, that numbering is itself
        // a topological order: there is no cycle, and nothing to search. It is the common
        // case (a record supersedes one written before it, and ids are numbered in
        // first-seen order), and one sequential pass over the edges replaces a search across
        // every node, which would all run after the last record is read, when nothing else
        // is left to overlap it.
        let mut forward = false;
        edges(&mut |from, to| forward |= to >= from);
        if !forward {
            return None;
        }
        let mut first = vec![0u32; nodes + 1];
        edges(&mut |from, _| first[from as usize + 1] += 1);
        for i in 0..nodes {
            first[i + 1] += first[i];
        }
        let mut targets = vec![0u32; first[nodes] as usize];
        edges(&mut |from, to| {
            // node `from`'s position moves along as its targets are placed ...
            let at = &mut first[from as usize];
            targets[*at as usize] = to;
            *at += 1;
        });
        // ... to where the next node's start: one place back, the positions are the starts
        first.copy_within(0..nodes, 1);
        first[0] = 0;
        Some(Graph { first, targets })
    }

    fn nodes(&self) -> usize {
        self.first.len() - 1
    }

    fn out_of(&self, node: usize) -> &[u32] {
        &self.targets[self.first[node] as usize..self.first[node + 1] as usize]
    }
}

/// The nodes of a graph that are on a cycle or reach one, numbered among themselves (their
/// place in `nodes`), with the edges between them.
struct Reaching<'g> {
    graph: &'g Graph,
    /// By number.
    nodes: Vec<u32>,
    /// By the graph's number, the number here ([`UNSEEN`]: none), when more than
    /// [`SEARCHED`] nodes reach a cycle: every edge is looked up here, and a search among
    /// many numbers missed the cache at each step.
    numbers: Vec<u32>,
}

/// Nodes that reach a cycle up to which an edge's number is searched for among them.
const SEARCHED: usize = 1 << 12;

/// A node in a search: not met yet, on the search's path, or done (the low two bits) ...
const NEW: u8 = 0;
const ACTIVE: u8 = 1;
const DONE: u8 = 2;
/// ... and whether it reaches a cycle.
const REACHES: u8 = 4;

impl<'g> Reaching<'g> {
    /// A depth-first search from every node with edges, a byte a node: a node with an edge
    /// to one on the path is on a cycle; a node reaches one when a node it has an edge to
    /// does, known once that one is done or on the path.
    fn of(graph: &'g Graph) -> Reaching<'g> {
        let mut marks = vec![NEW; graph.nodes()];
        for start in 0..graph.nodes() {
            if marks[start] != NEW || graph.out_of(start).is_empty() {
                continue;
            }
            let mut path: Vec<(usize, usize)> = vec![(start, 0)];
            marks[start] = ACTIVE;
            while let Some(&(node, i)) = path.last() {
                let Some(n) = graph.out_of(node).get(i).map(|&n| n as usize) else {
                    let reaches = marks[node] & REACHES;
                    marks[node] = DONE | reaches;
                    path.pop();
                    if let Some(&(parent, _)) = path.last() {
                        marks[parent] |= reaches;
                    }
                    continue;
                };
                if let Some(top) = path.last_mut() {
                    top.1 += 1;
                }
                match marks[n] & !REACHES {
                    NEW => {
                        marks[n] = ACTIVE;
                        path.push((n, 0));
                    }
                    ACTIVE => marks[node] |= REACHES,
                    _ => marks[node] |= marks[n] & REACHES,
                }
            }
        }
        let nodes: Vec<u32> = (0..graph.nodes() as u32)
            .filter(|&n| marks[n as usize] & REACHES != 0)
            .collect();
        let mut numbers = Vec::new();
        if nodes.len() > SEARCHED {
            numbers = vec![UNSEEN; graph.nodes()];
            for (at, &n) in nodes.iter().enumerate() {
                numbers[n as usize] = at as u32;
            }
        }
        Reaching {
            graph,
            nodes,
            numbers,
        }
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The graph's number of the `n`th node here.
    fn node(&self, n: u32) -> usize {
        self.nodes[n as usize] as usize
    }

    /// The `i`th edge out of the `n`th node here, as a number here (`None`: no such edge;
    /// `Some(None)`: an edge to a node that reaches no cycle, skipped).
    fn edge(&self, n: u32, i: u32) -> Option<Option<u32>> {
        let target = *self.graph.out_of(self.node(n)).get(i as usize)?;
        if !self.numbers.is_empty() {
            let at = self.numbers[target as usize];
            return Some((at != UNSEEN).then_some(at));
        }
        Some(self.nodes.binary_search(&target).ok().map(|at| at as u32))
    }
}

/// Not met yet (in [`Groups::find`]'s numbering and groups).
const UNSEEN: u32 = u32::MAX;

/// The strongly connected components of the nodes that reach a cycle: each node's group (by
/// its number there), and whether each group holds a cycle (two nodes or more, or a node
/// that supersedes itself).
struct Groups {
    group: Vec<u32>,
    cyclic: Vec<bool>,
}

impl Groups {
    /// Tarjan's algorithm, without recursion.
    fn find(part: &Reaching) -> Groups {
        let nodes = part.len();
        let mut order = vec![UNSEEN; nodes];
        let mut low = vec![0u32; nodes];
        let mut group = vec![UNSEEN; nodes];
        let mut cyclic: Vec<bool> = Vec::new();
        // the nodes met whose group is still open, and the search's path (node, next edge)
        let mut open: Vec<u32> = Vec::new();
        let mut path: Vec<(u32, u32)> = Vec::new();
        let mut next = 0u32;
        for start in 0..nodes {
            if order[start] != UNSEEN {
                continue;
            }
            (order[start], low[start]) = (next, next);
            next += 1;
            open.push(start as u32);
            path.push((start as u32, 0));
            while let Some(&(node, i)) = path.last() {
                let v = node as usize;
                if let Some(edge) = part.edge(node, i) {
                    if let Some(top) = path.last_mut() {
                        top.1 += 1;
                    }
                    let Some(w) = edge else {
                        continue;
                    };
                    let w_at = w as usize;
                    if order[w_at] == UNSEEN {
                        (order[w_at], low[w_at]) = (next, next);
                        next += 1;
                        open.push(w);
                        path.push((w, 0));
                    } else if group[w_at] == UNSEEN {
                        // still open: on this search's stack
                        low[v] = low[v].min(order[w_at]);
                    }
                    continue;
                }
                path.pop();
                if let Some(&(parent, _)) = path.last() {
                    low[parent as usize] = low[parent as usize].min(low[v]);
                }
                if low[v] != order[v] {
                    continue;
                }
                // `node` is its group's first: the group is the open nodes from it on
                let g = cyclic.len() as u32;
                let from = open.iter().rposition(|&n| n == node).unwrap_or(0);
                for &n in &open[from..] {
                    group[n as usize] = g;
                }
                let own = part.node(node);
                cyclic
                    .push(open.len() - from > 1 || part.graph.out_of(own).contains(&(own as u32)));
                open.truncate(from);
            }
        }
        Groups { group, cyclic }
    }

    /// The group of the `n`th node, when it holds a cycle.
    fn cyclic_group(&self, n: u32) -> Option<u32> {
        let g = self.group[n as usize];
        self.cyclic[g as usize].then_some(g)
    }
}

/// The first cycle a depth-first search finds through each group, starting from each of
/// `starts` in turn: its group, and its nodes (numbered among the nodes that reach a cycle)
/// from the one a pointer leads back to along the path. A pointer back into the path closes
/// a cycle of the group of the node it points to (every node between is in it), so only the
/// first such pointer of a group makes a list.
fn search(starts: impl IntoIterator<Item = u32>, part: &Reaching, groups: &Groups) -> Found {
    let mut marks = vec![NEW; part.len()];
    // where an ACTIVE node is on the path
    let mut at = vec![0u32; part.len()];
    let mut listed = vec![false; groups.cyclic.len()];
    let mut found = Found::default();
    for start in starts {
        if marks[start as usize] != NEW {
            continue;
        }
        let mut path: Vec<(u32, u32)> = vec![(start, 0)];
        marks[start as usize] = ACTIVE;
        at[start as usize] = 0;
        while let Some(&(node, i)) = path.last() {
            let Some(edge) = part.edge(node, i) else {
                marks[node as usize] = DONE;
                path.pop();
                continue;
            };
            if let Some(top) = path.last_mut() {
                top.1 += 1;
            }
            let Some(n) = edge else {
                continue;
            };
            match marks[n as usize] {
                NEW => {
                    marks[n as usize] = ACTIVE;
                    at[n as usize] = path.len() as u32;
                    path.push((n, 0));
                }
                ACTIVE => {
                    let Some(g) = groups.cyclic_group(n) else {
                        continue;
                    };
                    if !std::mem::replace(&mut listed[g as usize], true) {
                        let cycle = path[at[n as usize] as usize..].iter().map(|&(s, _)| s);
                        found.groups.push(g);
                        found.nodes.extend(cycle);
                        found.ends.push(found.nodes.len() as u32);
                    }
                }
                _ => {}
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A group as its warning names it: its cycle, ending where it starts, and its other
    /// nodes.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct Cycle {
        path: Vec<usize>,
        with: Vec<usize>,
    }

    /// The cycles of the graph of `nodes` nodes and `edges`.
    fn find_cycles<'n>(
        nodes: usize,
        edges: Vec<(u32, u32)>,
        name: &dyn Fn(usize) -> RecordName<'n>,
    ) -> Vec<Cycle> {
        let edges = |edge: &mut dyn FnMut(u32, u32)| {
            for &(from, to) in &edges {
                edge(from, to);
            }
        };
        let cycles = Graph::of(nodes, &edges)
            .map_or_else(Cycles::default, |graph| super::find_cycles(graph, name));
        let numbers = |nodes: &[u32]| nodes.iter().map(|&n| n as usize).collect::<Vec<_>>();
        cycles
            .iter()
            .map(|(cycle, with)| Cycle {
                path: numbers(cycle)
                    .into_iter()
                    .chain([cycle[0] as usize])
                    .collect(),
                with: numbers(with),
            })
            .collect()
    }

    fn cycle(path: &[usize], with: &[usize]) -> Cycle {
        Cycle {
            path: path.to_vec(),
            with: with.to_vec(),
        }
    }

    #[test]
    fn cycles_are_found_once() {
        let names = ["a", "b", "c", "d"];
        let name = |n: usize| RecordName::Text(names[n]);
        let c = find_cycles(4, [(0, 1), (1, 2), (2, 0), (3, 0)].to_vec(), &name);
        assert_eq!(c, vec![cycle(&[0, 1, 2, 0], &[])]);
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
            vec![cycle(&[2, 2], &[])]
        );
        assert_eq!(
            find_cycles(4, [(3, 2), (2, 1), (1, 3)].to_vec(), &name),
            vec![cycle(&[1, 3, 2, 1], &[])]
        );
        assert!(find_cycles(4, [(1, 3), (3, 2)].to_vec(), &name).is_empty());
    }

    /// Records that each supersede the ones before them, one of them written again at the
    /// end: one group, each record named once, the first cycle found listed.
    #[test]
    fn cycles_through_one_group_are_one_warning() {
        let names = ["a", "b", "c", "d", "e"];
        let name = |n: usize| RecordName::Text(names[n]);
        let edges = [(1, 0), (2, 1), (2, 0), (3, 2), (3, 1), (4, 3), (0, 4)];
        assert_eq!(
            find_cycles(5, edges.to_vec(), &name),
            vec![cycle(&[0, 4, 3, 2, 1, 0], &[])]
        );
        // two groups joined by one edge: each its own
        let edges = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (3, 4)];
        assert_eq!(
            find_cycles(5, edges.to_vec(), &name),
            vec![cycle(&[0, 1, 0], &[]), cycle(&[2, 3, 2], &[])]
        );
        // the cycle found first leaves a record of the group out: it is named after it
        let edges = [(0, 1), (1, 0), (1, 2), (2, 0)];
        assert_eq!(
            find_cycles(5, edges.to_vec(), &name),
            vec![cycle(&[0, 1, 0], &[2])]
        );
    }

    /// Which nodes reach which (a graph small enough to walk from every node).
    fn reach(nodes: usize, edges: &[(u32, u32)]) -> Vec<Vec<bool>> {
        let mut reach = vec![vec![false; nodes]; nodes];
        for (from, row) in reach.iter_mut().enumerate() {
            let mut todo = vec![from];
            while let Some(n) = todo.pop() {
                for &(a, b) in edges {
                    if a as usize == n && !row[b as usize] {
                        row[b as usize] = true;
                        todo.push(b as usize);
                    }
                }
            }
        }
        reach
    }

    /// Edges from `raw` between the first `nodes` nodes.
    fn edges_among(nodes: usize, raw: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let n = nodes as u32;
        raw.iter().map(|&(a, b)| (a % n, b % n)).collect()
    }

    proptest::proptest! {
        /// Every node on a cycle is named once, in the cycle of its group: each listed path
        /// follows the edges and closes, and its group's other nodes (those that reach one
        /// another with it) are named after it, by number.
        #[test]
        fn each_group_is_named_once(
            nodes in 1usize..24,
            raw in proptest::collection::vec((0u32..24, 0u32..24), 0..48),
            names in proptest::collection::vec("[abc]{1,2}", 24),
        ) {
            let edges = edges_among(nodes, &raw);
            let name = |n: usize| RecordName::Text(names[n].as_str());
            let cycles = find_cycles(nodes, edges.clone(), &name);
            let reach = reach(nodes, &edges);
            let together = |a: usize, b: usize| a == b || (reach[a][b] && reach[b][a]);
            let on_cycle: Vec<usize> = (0..nodes).filter(|&n| reach[n][n]).collect();
            let mut named: Vec<usize> = Vec::new();
            for c in &cycles {
                let (first, last) = (c.path[0], c.path[c.path.len() - 1]);
                proptest::prop_assert_eq!(first, last);
                for step in c.path.windows(2) {
                    proptest::prop_assert!(edges.contains(&(step[0] as u32, step[1] as u32)));
                }
                let inner = &c.path[..c.path.len() - 1];
                proptest::prop_assert!(c.with.windows(2).all(|w| w[0] < w[1]));
                for &n in inner.iter().chain(&c.with) {
                    proptest::prop_assert!(together(first, n));
                    named.push(n);
                }
            }
            named.sort_unstable();
            proptest::prop_assert_eq!(named, on_cycle);
        }

        /// The search starts in name order however the names are keyed for the sort: names
        /// that begin alike past eight bytes, a long beginning every name shares, and the
        /// same order as short distinct numbers all find the same cycles.
        #[test]
        fn the_cycles_follow_name_order(
            nodes in 1usize..24,
            raw in proptest::collection::vec((0u32..24, 0u32..24), 0..48),
            names in proptest::collection::vec("(aaaaaaaa|abababab)?[abc]{0,3}", 24),
        ) {
            let edges = edges_among(nodes, &raw);
            let name = |n: usize| RecordName::Text(names[n].as_str());
            let found = find_cycles(nodes, edges.clone(), &name);
            let shared: Vec<String> =
                names.iter().map(|n| format!("org.example/records/{n}")).collect();
            let name = |n: usize| RecordName::Text(shared[n].as_str());
            proptest::prop_assert_eq!(&find_cycles(nodes, edges.clone(), &name), &found);
            let mut sorted = names.clone();
            sorted.sort();
            let ranks: Vec<String> = names
                .iter()
                .map(|n| format!("{:02}", sorted.partition_point(|s| s < n)))
                .collect();
            let name = |n: usize| RecordName::Text(ranks[n].as_str());
            proptest::prop_assert_eq!(&find_cycles(nodes, edges, &name), &found);
        }
    }
}
