//! The release metadata agrees with Cargo.toml: the version has a CHANGELOG section, the wheel
//! takes its version from Cargo.toml (no second copy to forget), and cargo binstall is told
//! where a release's archives are.

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

/// The lines of one `[table]` of a TOML file, up to the next table.
fn table(text: &str, name: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| l.trim() != format!("[{name}]"))
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_changelog_has_a_section_for_this_version() {
    let changelog = read("CHANGELOG.md");
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        changelog
            .lines()
            .any(|l| l.starts_with(&format!("## {version} - 20"))),
        "CHANGELOG.md has no `## {version} - DATE` section"
    );
    // newest first: the first version section is this version (an Unreleased one may lead)
    let first = changelog
        .lines()
        .find(|l| l.starts_with("## ") && l != &"## Unreleased")
        .unwrap();
    assert!(first.starts_with(&format!("## {version} ")), "{first}");
}

#[test]
fn the_wheel_takes_its_name_and_version_from_cargo() {
    let pyproject = read("pyproject.toml");
    let project = table(&pyproject, "project");
    assert!(
        project.contains(&"name = \"vercy\"".to_string()),
        "{project:?}"
    );
    assert!(
        project.contains(&"dynamic = [\"version\"]".to_string()),
        "{project:?}"
    );
    assert!(
        !project.iter().any(|l| l.starts_with("version")),
        "pyproject.toml repeats the version"
    );
    let maturin = table(&pyproject, "tool.maturin");
    assert!(maturin.contains(&"bindings = \"bin\"".to_string()));
    assert!(pyproject.contains("build-backend = \"maturin\""));
}

#[test]
fn cargo_binstall_knows_the_archives() {
    let binstall = table(&read("Cargo.toml"), "package.metadata.binstall");
    let get = |key: &str| {
        binstall
            .iter()
            .find_map(|l| l.strip_prefix(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("no {key} in {binstall:?}"))
            .to_string()
    };
    let url = get("pkg-url");
    for part in ["{ version }", "{ target }", "{ archive-suffix }"] {
        assert!(url.contains(part), "pkg-url {url} lacks {part}");
    }
    assert!(get("bin-dir").contains("{ bin }{ binary-ext }"));
    assert_eq!(get("pkg-fmt"), "\"tgz\"");
}
