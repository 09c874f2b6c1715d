//! The concepts worth drawing, found from where the store's own pass saw its records: the
//! report says which records its findings name (by line, [`Marks`]); the pass noted where each
//! record lies and which concept it holds ([`Sightings`]). A first look over the sightings
//! adds each marked record's findings to its concept in a bounded summary of the heaviest
//! concepts (`heaviest.rs`), a second counts the findings of the candidates it kept exactly and
//! notes where their first [`BARS`] records lie; those records alone are read back
//! (`reread.rs`: at their offsets in a file, else in one more pass). The [`MOST`] with the most
//! findings are drawn, most first (a tie by concept).
//!
//! Memory, whatever the store: the marks (8 bytes a record and code a finding names, as the
//! report itself keeps 4 a record a finding names: `marks.rs`), the sightings' quarter megabyte
//! (the rest in a temporary file), the summary's 8,192 counters (twice that at most between two
//! trims), and the candidates' records: [`MOST`] × 4 candidates × [`BARS`] records.

mod heaviest;
mod marks;
mod reread;
mod sightings;

pub use marks::Marks;
pub use sightings::Sightings;

use super::{seconds, Bar, Drawn, End, Timeline};
use crate::error::{Result, VercyError};
use crate::store::{self, Input, RecordView, RoleSet, Sighting};
use hashbrown::HashMap;
use heaviest::Heaviest;
use reread::Place;
use std::hash::BuildHasher;

/// The most concepts a page draws.
pub const MOST: usize = 50;
/// Candidates counted exactly, per concept drawn: the summary's counts are a lower bound, so a
/// few more than are drawn are counted exactly before the last cut.
const CANDIDATES: usize = 4;
/// The most records a timeline draws (the rest are counted): the page stays small whatever
/// the concept's size.
pub const BARS: usize = 120;

/// The roles a timeline reads.
const ROLES: [&str; 6] = [
    "concept",
    "record_id",
    "valid_from",
    "valid_to",
    "concept_owner",
    "supersedes",
];

/// The roles of [`ROLES`], as the reading numbers them.
struct Roles {
    concept: store::Role,
    record_id: store::Role,
    valid_from: store::Role,
    valid_to: store::Role,
    owner: store::Role,
    supersedes: store::Role,
}

impl Roles {
    fn of(set: &RoleSet) -> Roles {
        let [concept, record_id, valid_from, valid_to, owner, supersedes] =
            ROLES.map(|r| set.role(r));
        Roles {
            concept,
            record_id,
            valid_from,
            valid_to,
            owner,
            supersedes,
        }
    }
}

/// One concept that may be drawn.
struct Candidate {
    key: u64,
    /// Its text, once a record of it is read back.
    concept: String,
    findings: usize,
    /// Where its first [`BARS`] records lie, in store order ...
    places: Vec<Sighting>,
    /// ... and how many records it has past them.
    not_drawn: usize,
    bars: Vec<Bar>,
}

/// What a page draws of the store `input`, from where its own pass `seen` its records: the
/// timelines of the concepts `marks` weigh most; or, for a store that can be read only once
/// (stdin, a child's output), none and a note saying why.
pub fn draw(input: &Input, seen: &Sightings, mut marks: Marks) -> Result<Drawn> {
    if input.is_pipe() {
        let note = "no timelines: the store was read from a pipe, and they need it read again";
        return Ok(Drawn {
            timelines: Vec::new(),
            note: Some(note.to_string()),
        });
    }
    Ok(Drawn {
        timelines: worst(input, seen, &mut marks)?,
        note: None,
    })
}

/// The key a page gives a concept (`diff`'s notes of HEAD): its text's hash, with a fixed
/// seed, not one a run: the candidates past the summary's cut, among concepts of equal weight,
/// are the ones the hash orders first, and a page should draw the same concepts in every run.
pub fn concept_key(text: &str) -> u64 {
    foldhash::fast::FixedState::default().hash_one(text)
}

/// The timelines of the (at most [`MOST`]) concepts whose records the marks name most, most
/// first, their records read back from `input` where `seen` says they lie.
fn worst(input: &Input, seen: &Sightings, marks: &mut Marks) -> Result<Vec<Timeline>> {
    marks.settle();
    if marks.is_empty() {
        return Ok(Vec::new());
    }
    let marks = &*marks;
    let mut candidates = candidates(seen, marks)?;
    let set = RoleSet::new(ROLES);
    let roles = Roles::of(&set);
    let reading = (seen, &set, roles.concept);
    let drawn =
        |of: u32, view: &RecordView| (of, text(view, roles.concept), bar(view, &roles, marks));
    let draw = |candidates: &mut Vec<Candidate>, (of, text, bar): (u32, String, Bar)| {
        let c = &mut candidates[of as usize];
        if c.bars.is_empty() {
            c.concept = text;
        }
        if c.bars.len() < BARS {
            c.bars.push(bar);
        }
    };
    let all = places(&candidates, |c| &c.places);
    let mut read = false;
    if let Some(file) = reread::file_at_offsets(input, seen, &all)? {
        // past the last cut, a few reads name the candidates (a tie is cut by concept), so only
        // the ones drawn are read back whole
        let mut named = true;
        if candidates.len() > MOST {
            let firsts = places(&candidates, |c| &c.places[..1]);
            let name = |place: &Place, view: &RecordView| (place.of, text(view, roles.concept));
            named =
                reread::at_offsets(input, &file, reading, &firsts, &name, &mut |(of, text)| {
                    candidates[of as usize].concept = text;
                })?;
            if named {
                rank(&mut candidates);
                candidates.truncate(MOST);
            }
        }
        let all = places(&candidates, |c| &c.places);
        read = named
            && reread::at_offsets(
                input,
                &file,
                reading,
                &all,
                &|place, view| drawn(place.of, view),
                &mut |done| draw(&mut candidates, done),
            )?;
    }
    if !read {
        // the store changed since its pass, or its records cannot be read at their offsets:
        // its candidates' records as it holds them now, in one pass
        for c in candidates.iter_mut() {
            c.bars.clear();
        }
        let at: HashMap<u64, u32> = (candidates.iter().enumerate())
            .map(|(i, c)| (c.key, i as u32))
            .collect();
        reread::whole(
            input,
            reading,
            &|key| at.get(&key).copied(),
            &drawn,
            &mut |done| draw(&mut candidates, done),
        )?;
        // a concept the store no longer holds has nothing to draw
        candidates.retain(|c| !c.bars.is_empty());
    }
    rank(&mut candidates);
    candidates.truncate(MOST);
    Ok(candidates
        .into_iter()
        .map(|c| Timeline {
            concept: c.concept,
            findings: c.findings,
            bars: c.bars,
            not_drawn: c.not_drawn,
            ..Timeline::default()
        })
        .collect())
}

/// The concepts of the [`MOST`] × [`CANDIDATES`] the summary weighs heaviest that the marks
/// name, each with its findings counted exactly and where its first records lie.
fn candidates(seen: &Sightings, marks: &Marks) -> Result<Vec<Candidate>> {
    let unreadable = |e: std::io::Error| VercyError::Read {
        path: "the page's temporary file".to_string(),
        reason: e.to_string(),
    };
    let mut heaviest = Heaviest::default();
    seen.each(&mut |s| match marks.weight(s.line) {
        0 => {}
        weight => heaviest.add(s.key, weight),
    })
    .map_err(unreadable)?;
    let keys = heaviest.top(MOST * CANDIDATES);
    drop(heaviest);
    let mut candidates: Vec<Candidate> = keys
        .into_iter()
        .map(|key| Candidate {
            key,
            concept: String::new(),
            findings: 0,
            places: Vec::new(),
            not_drawn: 0,
            bars: Vec::new(),
        })
        .collect();
    let at: HashMap<u64, usize> = (candidates.iter().enumerate())
        .map(|(i, c)| (c.key, i))
        .collect();
    seen.each(&mut |s| {
        if let Some(&i) = at.get(&s.key) {
            let c = &mut candidates[i];
            c.findings += marks.weight(s.line) as usize;
            match c.places.len() < BARS {
                true => c.places.push(s),
                false => c.not_drawn += 1,
            }
        }
    })
    .map_err(unreadable)?;
    candidates.retain(|c| c.findings > 0);
    Ok(candidates)
}

/// Where the `which` records of every candidate lie, each for its candidate, in store order.
fn places(candidates: &[Candidate], which: impl Fn(&Candidate) -> &[Sighting]) -> Vec<Place> {
    let mut all: Vec<Place> = (candidates.iter().enumerate())
        .flat_map(|(i, c)| {
            which(c)
                .iter()
                .map(move |&seen| Place { seen, of: i as u32 })
        })
        .collect();
    all.sort_unstable_by_key(|p| p.seen.offset);
    all
}

/// Most findings first; a tie by concept.
fn rank(candidates: &mut [Candidate]) {
    candidates.sort_by(|a, b| {
        b.findings
            .cmp(&a.findings)
            .then_with(|| a.concept.cmp(&b.concept))
    });
}

/// A record's concept, as the page names it.
fn text(view: &RecordView, concept: store::Role) -> String {
    view.filled(concept).map(|v| v.py_str()).unwrap_or_default()
}

/// One record as its bar, with the marks the report gave it.
fn bar(view: &RecordView, roles: &Roles, marks: &Marks) -> Bar {
    let line = view.origin.line;
    let mine = marks.of(line);
    let mut names: Vec<String> = Vec::new();
    for m in mine {
        if let Some(name) = marks.names.get(m.mark as usize) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    Bar {
        id: view
            .filled(roles.record_id)
            .map_or_else(|| format!("line {line}"), |v| v.py_str()),
        line,
        from: view
            .filled(roles.valid_from)
            .and_then(|v| Some((seconds(&v.parse_time().ok()?), v.py_str()))),
        to: end_of(view.get(roles.valid_to)),
        owner: view
            .filled(roles.owner)
            .map(|v| v.py_str())
            .unwrap_or_default(),
        supersedes: pointers(view.get(roles.supersedes)),
        conflict: mine.iter().any(|m| Some(m.mark) == marks.conflict),
        holds: false,
        marks: names,
    }
}

/// Where a validity ends, from its valid_to: none or null is open.
pub fn end_of(value: Option<store::RoleValue>) -> End {
    match value {
        None => End::Open,
        Some(v) if v.is_null() || !v.is_filled() => End::Open,
        Some(v) => match v.parse_time() {
            Ok(t) => End::At(seconds(&t), v.py_str()),
            Err(_) => End::Unreadable(v.py_str()),
        },
    }
}

/// The ids a supersedes value names, sorted.
pub fn pointers(value: Option<store::RoleValue>) -> Vec<String> {
    let mut ids = std::collections::HashSet::new();
    if let Some(v) = value {
        v.collect_ids(&mut ids);
    }
    let mut ids: Vec<String> = ids.into_iter().collect();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::FieldMap;
    use crate::store::RoleReading;

    /// Read the store `input` once, through `map` (a store's own when not `map_given`), noting
    /// where each record lies and its concept, as a command's own pass does. A pipe is not read:
    /// [`draw`] gives it a note.
    fn sight(input: &Input, map: &FieldMap, map_given: bool) -> Result<Sightings> {
        let mut seen = Sightings::new(concept_key);
        if input.is_pipe() {
            return Ok(seen);
        }
        let set = RoleSet::new(["concept"]);
        let concept = set.role("concept");
        let maps = store::Maps::new(map.clone(), map_given)?;
        let reading = RoleReading::new(maps, &set, &[], false);
        let look = |view: &RecordView| -> Result<Option<Sighting>> {
            Ok(view
                .filled(concept)
                .map(|c| Sighting::of(view, concept_key(&c.text()))))
        };
        let (shape, plan) = store::read_views(input, &reading, &look, &mut |sighting| {
            if let Some(s) = sighting {
                seen.note(s);
            }
            Ok(())
        })?;
        seen.read_as(shape, plan.map().clone());
        Ok(seen)
    }

    /// One finding on each of `lines`.
    fn marks_on(lines: &[u64]) -> Marks {
        let mut marks = Marks::new(vec!["value.interval".into()], "value.conflict");
        for &line in lines {
            marks.push(line, 0);
        }
        marks
    }

    fn concepts(drawn: &Drawn) -> Vec<&str> {
        drawn.timelines.iter().map(|t| t.concept.as_str()).collect()
    }

    #[test]
    fn a_store_changed_since_its_records_were_seen_is_drawn_as_it_is_now() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.jsonl");
        let line = |concept: &str| {
            format!("{{\"record_id\": \"R\", \"concept\": \"{concept}\", \"valid_from\": \"2025-01-01\"}}\n")
        };
        std::fs::write(&path, line("alpha") + &line("beta")).unwrap();
        let input = Input::new(path.to_str().unwrap());
        let seen = sight(&input, &FieldMap::identity(), false).unwrap();
        assert!(seen.placed);
        let drawn = draw(&input, &seen, marks_on(&[1, 2])).unwrap();
        assert_eq!(concepts(&drawn), ["alpha", "beta"], "a tie, cut by concept");
        assert_eq!(drawn.timelines[1].bars[0].line, 2);
        // another concept where alpha's record was: read whole, alpha is gone
        std::fs::write(&path, line("gamma") + &line("beta")).unwrap();
        let drawn = draw(&input, &seen, marks_on(&[1, 2])).unwrap();
        assert_eq!(concepts(&drawn), ["beta"]);
        assert_eq!(drawn.timelines[0].bars[0].line, 2);
        // too short for the record seen first: nothing it saw is left
        std::fs::write(&path, line("a")).unwrap();
        let drawn = draw(&input, &seen, marks_on(&[1, 2])).unwrap();
        assert!(drawn.timelines.is_empty());
    }

    #[test]
    fn the_records_of_a_one_line_envelope_share_its_place_and_are_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.json");
        let record = |id: &str, concept: &str| {
            format!("{{\"record_id\": \"{id}\", \"concept\": \"{concept}\"}}")
        };
        let records = [
            record("A", "alpha"),
            record("B", "beta"),
            record("C", "alpha"),
        ];
        std::fs::write(
            &path,
            format!("{{\"memories\": [{}]}}\n", records.join(", ")),
        )
        .unwrap();
        let input = Input::new(path.to_str().unwrap());
        let seen = sight(&input, &FieldMap::identity(), false).unwrap();
        assert!(!seen.placed);
        let drawn = draw(&input, &seen, marks_on(&[1])).unwrap();
        assert_eq!(concepts(&drawn), ["alpha", "beta"]);
        let ids: Vec<&str> = drawn.timelines[0]
            .bars
            .iter()
            .map(|b| b.id.as_str())
            .collect();
        assert_eq!(ids, ["A", "C"]);
    }
}
