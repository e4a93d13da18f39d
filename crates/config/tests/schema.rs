//! The JSON Schema editors use: committed and current, and every `keel.toml` under `examples/`
//! valid against it (and readable by keel-config).

use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn keel_tomls(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            keel_tomls(&path, found);
        } else if path.file_name().is_some_and(|n| n == "keel.toml") {
            found.push(path);
        }
    }
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&keel_config::schema::generate()).unwrap()
}

fn as_json(text: &str) -> serde_json::Value {
    let value: toml::Value = toml::from_str(text).unwrap();
    serde_json::to_value(value).unwrap()
}

#[test]
fn the_committed_schema_is_current() {
    let committed =
        std::fs::read_to_string(repo_root().join(keel_config::schema::PATH)).unwrap_or_default();
    assert!(
        committed == keel_config::schema::contents(),
        "{} is out of date: run `cargo xtask codegen`",
        keel_config::schema::PATH
    );
}

#[test]
fn every_example_keel_toml_is_valid() {
    let mut files = Vec::new();
    keel_tomls(&repo_root().join("examples"), &mut files);
    assert!(!files.is_empty(), "no keel.toml under examples/");
    let validator = validator();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&as_json(&text))
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
        keel_config::parse(&file, &text).unwrap();
    }
}

#[test]
fn the_schema_refuses_what_the_reader_refuses() {
    let validator = validator();
    for bad in [
        "modle = 'x'",
        "approval = 'sometimes'",
        "max_iterations = 0",
        "[memory]\ndistil = true",
        "[profiles.fast]\nmodle = 'x'",
        "[mcp_servers.a]\ncomand = 'x'",
    ] {
        assert!(!validator.is_valid(&as_json(bad)), "{bad}");
        assert!(
            keel_config::parse(Path::new("/p/keel.toml"), bad).is_err(),
            "{bad}"
        );
    }
    assert!(validator.is_valid(&as_json("model = 'a, b'\n[profiles.x]\nmodel = ['c']")));
}
