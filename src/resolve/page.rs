//! The answer as an HTML page (`crate::html` draws it): the question, the outcome and the
//! record that holds, the reasons, and the concept's timeline with the date asked about drawn
//! across. It reads only the disclosed [`Answer`]: a withheld record is a count, never a bar.

use super::answer::Answer;
use crate::html::{Group, Page, Timeline};
use crate::mapping::FieldMap;
use crate::record::py_str;

const REASONS: &str = "Reasons";

/// The answer's page.
pub fn page(answer: &Answer, map: &FieldMap) -> Page {
    let a = &answer.asked;
    let mut facts = vec![
        ("store".to_string(), a.store.clone()),
        ("concept".to_string(), a.concept.clone()),
        ("as of".to_string(), a.as_of.clone()),
    ];
    if let Some(k) = &a.known_at {
        facts.push(("known at".to_string(), k.clone()));
    }
    if !a.scope.is_empty() {
        facts.push(("scope".to_string(), a.scope.join(", ")));
    }
    facts.push(("caller".to_string(), a.caller.clone()));
    facts.push(("outcome".to_string(), answer.outcome.name().to_string()));
    if let Some((name, fields)) = &answer.answer {
        facts.push(("holds".to_string(), name.clone()));
        if let Some(value) = map.get("value", fields) {
            facts.push(("value".to_string(), py_str(&value)));
        }
    }
    if !answer.candidates.is_empty() {
        facts.push(("candidates".to_string(), answer.candidates.join(", ")));
    }
    facts.push(("withheld".to_string(), answer.withheld.to_string()));
    let groups = answer
        .reasons
        .iter()
        .map(|r| {
            let mut items = r.records.clone();
            if r.withheld > 0 {
                items.push(format!("{} withheld", r.withheld));
            }
            Group {
                section: REASONS.into(),
                name: r.code.name().to_string(),
                meaning: String::new(),
                count: r.records.len() + r.withheld,
                counted: match r.records.len() + r.withheld {
                    1 => "1 record".to_string(),
                    n => format!("{n} records"),
                },
                items,
                more: 0,
            }
        })
        .collect();
    let date_line = crate::time::parse(&a.as_of)
        .ok()
        .map(|t| (crate::html::seconds(&t), format!("as of {}", a.as_of)));
    Page {
        title: format!("vercy resolve: {} for {}", a.concept, a.caller),
        facts,
        notes: Vec::new(),
        levels: Vec::new(),
        coverage: Vec::new(),
        sections: vec![REASONS.into()],
        groups,
        timelines_heading: "Timeline".into(),
        timelines: vec![Timeline {
            concept: a.concept.clone(),
            findings: 0,
            bars: answer.timeline.clone(),
            not_drawn: 0,
            withheld: answer.withheld,
            date_line,
            note: String::new(),
        }],
    }
}
