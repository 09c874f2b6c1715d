//! vercy's integration tests, one binary with a module per area (as ripgrep's and just's
//! tests are): each file was its own test binary, linked against the whole crate once each;
//! one binary is linked once. Run one area with `cargo test --test cli AREA::`, e.g.
//! `cargo test --test cli live_stores::`.
//!
//! The data the tests read stays where it was: `tests/fuzz-corpus/`, `tests/live/`,
//! `tests/mcp-clients/`, `tests/parity/`, `tests/recency/`, `tests/snapshots/` and the SARIF
//! schema, found from `CARGO_MANIFEST_DIR`.

// helpers shared by the areas
mod common;
// what each fuzz target asserts; the fuzz targets in fuzz/ include this file by path
mod fuzz_checks;

mod bounded_memory;
mod check_cli;
mod check_reports;
mod chroma_store;
mod closed_stderr;
mod compact_cli;
mod compact_disclosure;
mod compact_roundtrip;
mod completions;
mod decay_cli;
mod diff_cli;
mod export_import_cli;
mod fuzz_regressions;
mod github_action;
mod hostile_inputs;
mod hostile_output;
mod house;
mod html_report;
mod live_stores;
mod man_pages;
mod mcp_clients;
mod mcp_server;
mod memory_budget;
mod parity_reference;
mod profile_map_cli;
mod python_reading;
mod readme_setup;
mod recency_cli;
mod record_safety;
mod release_metadata;
mod resolve_cli;
mod resolve_enforcement;
mod roundtrip_props;
mod shards;
mod signals_pipes;
mod terminal_conventions;
mod write_safety;
