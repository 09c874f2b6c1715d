//! Step 4, precedence (contract §3.4): authoritative records outrank all others; between them
//! the host's policy decides, rule by rule, or the top records are a conflict
//! (`conflict_unresolved`, and the outcome is `abstained` or, with a withheld side,
//! `refused`). With no authoritative record left, the same among the others, flagged
//! `no_authoritative_record`. A non-authoritative record that the policy alone would rank
//! above the authoritative winner (above every side of an authoritative conflict) is flagged
//! `unauthorized_precedence`: it tried, and authority beat it.
//!
//! A record whose validity is unknown loses a tie that no rule decides. Top records that
//! state the same value do not disagree: the first of them in the store answers.

use super::host::Rule;
use super::validity::ValidityVerdict;
use super::Candidate;
use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ranking {
    Winner(usize),
    /// The top records, which the policy does not order and which disagree.
    Conflict(Vec<usize>),
}

#[derive(Debug)]
pub struct Ranked {
    pub ranking: Ranking,
    pub no_authoritative: bool,
    pub unauthorized: Vec<usize>,
}

/// Rank the records `alive` (indices into `all`, store order; not empty).
pub fn rank(all: &[Candidate], alive: &[usize], policy: &[Rule]) -> Ranked {
    let (authoritative, others): (Vec<usize>, Vec<usize>) =
        alive.iter().partition(|&&i| all[i].authoritative);
    let no_authoritative = authoritative.is_empty();
    let pool = if no_authoritative {
        &others
    } else {
        &authoritative
    };
    let ranking = top(all, pool, policy);
    let mut unauthorized = Vec::new();
    if !no_authoritative {
        let sides = match &ranking {
            Ranking::Winner(w) => vec![*w],
            Ranking::Conflict(sides) => sides.clone(),
        };
        for &n in &others {
            let outranks = sides
                .iter()
                .all(|&s| by_policy(&all[n], &all[s], policy) == Some(Ordering::Greater));
            if outranks {
                unauthorized.push(n);
            }
        }
    }
    Ranked {
        ranking,
        no_authoritative,
        unauthorized,
    }
}

/// The record of `pool` that beats every other, else the conflict at the top.
fn top(all: &[Candidate], pool: &[usize], policy: &[Rule]) -> Ranking {
    let beats = |a: usize, b: usize| beats(&all[a], &all[b], policy);
    if let Some(&w) = pool
        .iter()
        .find(|&&a| pool.iter().all(|&b| a == b || beats(a, b)))
    {
        return Ranking::Winner(w);
    }
    // undominated records; when the policy's rules do not chain into an order, those the
    // single undominated one does not beat join it
    let mut sides: Vec<usize> = pool
        .iter()
        .copied()
        .filter(|&a| !pool.iter().any(|&b| b != a && beats(b, a)))
        .collect();
    match sides.as_slice() {
        [] => sides = pool.to_vec(),
        [one] => {
            let one = *one;
            sides.extend(pool.iter().copied().filter(|&b| b != one && !beats(one, b)));
            sides.sort_unstable();
        }
        _ => {}
    }
    let first = &all[sides[0]].value;
    if first.is_some() && sides.iter().all(|&s| all[s].value == *first) {
        return Ranking::Winner(sides[0]);
    }
    Ranking::Conflict(sides)
}

/// `a` ranks above `b`: the first rule that decides says so, or no rule decides and only `b`'s
/// validity is unknown.
fn beats(a: &Candidate, b: &Candidate, policy: &[Rule]) -> bool {
    match by_policy(a, b, policy) {
        Some(order) => order == Ordering::Greater,
        None => a.validity == ValidityVerdict::Valid && b.validity == ValidityVerdict::Unknown,
    }
}

/// The first rule that decides between `a` and `b`.
fn by_policy(a: &Candidate, b: &Candidate, policy: &[Rule]) -> Option<Ordering> {
    policy.iter().find_map(|rule| {
        let (x, y) = match rule {
            Rule::LaterValidFrom => (a.dates.from?, b.dates.from?),
            Rule::LaterRecorded => (a.recorded_at?, b.recorded_at?),
        };
        // each at its own precision: a date and a time on that date are equal here
        if x.start() > y.end() {
            Some(Ordering::Greater)
        } else if x.end() < y.start() {
            Some(Ordering::Less)
        } else {
            None
        }
    })
}
