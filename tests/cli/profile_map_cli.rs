//! `vercy profile` and `vercy map`: the profile and the placement table, as data.

use crate::common;
use common::*;

#[test]
fn profile_table_lists_every_field_with_level_and_measured_effect() {
    let out = vercy().arg("profile").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout_of(&out);
    for line in [
        "record_id          1     MUST",
        "release_to         3     MUST where any record is restricted",
        "59.1% → 100.0% (CMB); critical leaks 2 → 0",
        "expected_concepts  -     EXPERIMENTAL",
        "6064 → 1860 characters",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    snapshot("profile.txt", &text);
}

#[test]
fn profile_yaml_is_the_embedded_file_and_json_parses() {
    let out = vercy()
        .args(["profile", "--format", "yaml"])
        .output()
        .unwrap();
    assert_eq!(
        stdout_of(&out),
        std::fs::read_to_string(fixture("../profile.yaml")).unwrap()
    );
    let out = vercy()
        .args(["profile", "--format", "json"])
        .output()
        .unwrap();
    let p = json_of(&out);
    assert_eq!(p["overlay"], "vercy-governance-overlay");
    assert_eq!(p["fields"].as_array().unwrap().len(), 12);
    let out = vercy()
        .args(["profile", "--field", "valid_to", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        json_of(&out)["check"]["label"],
        "level 1 MUST be present, null means open"
    );
    vercy()
        .args(["profile", "--field", "colour"])
        .assert()
        .code(2);
}

#[test]
fn map_shows_placements_and_marks_the_cells_a_target_lacks() {
    let out = vercy()
        .args(["map", "--target", "vector_memory", "--format", "json"])
        .output()
        .unwrap();
    let m = json_of(&out);
    let fields = m["fields"].as_array().unwrap();
    let record_id = fields.iter().find(|f| f["field"] == "record_id").unwrap();
    assert_eq!(
        (
            record_id["placement"].as_str(),
            record_id["missing"].as_bool()
        ),
        (Some("memory id"), Some(false))
    );
    let valid_from = fields.iter().find(|f| f["field"] == "valid_from").unwrap();
    assert_eq!(valid_from["missing"], true);
    let out = vercy()
        .args(["map", "--target", "bitemporal_graph"])
        .output()
        .unwrap();
    let text = stdout_of(&out);
    assert!(
        text.contains("+ concept_owner      add: OWNED_BY edge"),
        "{text}"
    );
    assert!(text.contains("  valid_from         valid_at"), "{text}");
}

#[test]
fn map_csv_is_mappings_csv_and_named_maps_show_their_paths() {
    let out = vercy().args(["map", "--format", "csv"]).output().unwrap();
    assert_eq!(
        stdout_of(&out),
        std::fs::read_to_string(fixture("../mappings.csv")).unwrap()
    );
    let out = vercy().args(["map", "--target", "mem0"]).output().unwrap();
    let text = stdout_of(&out);
    assert!(
        text.contains("source             metadata.source"),
        "{text}"
    );
    let out = vercy()
        .args(["map", "--target", "nowhere"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("vector_memory"));
}
