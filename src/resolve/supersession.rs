//! Step 3, supersession (contract §3.3): a record named in another's `supersedes` is dropped
//! (`superseded`) only when the superseding record is authoritative for the concept and valid
//! on the date (known to be: a `validity_unknown` record ends nothing). A `supersedes` from
//! anyone else is ignored and flagged `unauthorized_supersession`. Supersessions that form a
//! cycle (two records that supersede each other, or a longer ring) do not apply: every record
//! on it stays, and precedence treats them as a conflict.
//!
//! Both pointer directions are read: forward (`supersedes: "D-801"` on the new record) and
//! inverse (`--map supersedes=~replaced_by`: the old record names its successor; the
//! successor is still the one whose authority counts).

use super::validity::ValidityVerdict;
use super::Candidate;
use crate::mapping::FieldMap;
use crate::record::collect_ids;
use std::collections::HashSet;

/// What the step decided, as indices into the candidates.
#[derive(Debug, Default)]
pub struct Supersessions {
    pub superseded: Vec<usize>,
    pub unauthorized: Vec<usize>,
}

/// Apply the supersessions among the records `alive` (indices into `all`).
pub fn apply(map: &FieldMap, all: &[Candidate], alive: &[usize]) -> Supersessions {
    let inverse = map.inverse_path("supersedes");
    let ids_in = |value: Option<std::borrow::Cow<serde_json::Value>>| {
        let mut set = HashSet::new();
        if let Some(v) = value {
            collect_ids(&v, &mut set);
        }
        set
    };
    // (superseder, superseded), every claim among the records alive
    let mut claims: Vec<(usize, usize)> = Vec::new();
    let mut claimed_by: HashSet<usize> = HashSet::new();
    for &x in alive {
        let fields = &all[x].record.fields;
        match &inverse {
            None => {
                let targets = ids_in(map.get("supersedes", fields));
                if !targets.is_empty() {
                    claimed_by.insert(x);
                }
                for &y in alive {
                    if y != x && all[y].id.as_ref().is_some_and(|id| targets.contains(id)) {
                        claims.push((x, y));
                    }
                }
            }
            Some(path) => {
                // x is old and names its successors
                let successors = ids_in(path.get(fields));
                for &y in alive {
                    if y != x && all[y].id.as_ref().is_some_and(|id| successors.contains(id)) {
                        claimed_by.insert(y);
                        claims.push((y, x));
                    }
                }
            }
        }
    }
    let mut out = Supersessions::default();
    for &x in alive {
        if claimed_by.contains(&x) && !all[x].authoritative {
            out.unauthorized.push(x);
        }
    }
    let applies: Vec<(usize, usize)> = claims
        .into_iter()
        .filter(|&(x, _)| all[x].authoritative && all[x].validity == ValidityVerdict::Valid)
        .collect();
    let mut dropped = HashSet::new();
    for &(x, y) in &applies {
        if !reaches(&applies, y, x) {
            dropped.insert(y);
        }
    }
    out.superseded = alive
        .iter()
        .copied()
        .filter(|i| dropped.contains(i))
        .collect();
    out
}

/// `to` can be reached from `from` along the supersession edges (a cycle through the edge
/// `to -> from` when so). The records of one concept are few: a plain search.
fn reaches(edges: &[(usize, usize)], from: usize, to: usize) -> bool {
    let mut seen = HashSet::from([from]);
    let mut stack = vec![from];
    while let Some(n) = stack.pop() {
        if n == to {
            return true;
        }
        for &(a, b) in edges {
            if a == n && seen.insert(b) {
                stack.push(b);
            }
        }
    }
    false
}
