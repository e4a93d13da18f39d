//! The committed schemas and TypeScript package match what the code generates
//! (the same check as `cargo xtask codegen --check`).

use std::path::Path;

#[test]
fn committed_generated_files_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let drift = keel_events::codegen::drift(|path| std::fs::read_to_string(root.join(path)).ok());
    assert!(
        drift.is_empty(),
        "generated files are out of date; run `cargo xtask codegen`:\n{}",
        drift
            .iter()
            .map(|d| format!("  {}: {}", d.path, d.summary))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn schema_lists_every_catalogue_type_once() {
    let schema: serde_json::Value =
        serde_json::from_str(&keel_events::codegen::events_schema()).expect("schema is JSON");
    let consts: Vec<&str> = schema["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .map(|branch| {
            branch["properties"]["type"]["const"]
                .as_str()
                .expect("const type")
        })
        .collect();
    assert_eq!(consts, keel_events::EventKind::TYPES);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    for branch in schema["oneOf"].as_array().expect("oneOf") {
        let reference = branch["properties"]["payload"]["$ref"]
            .as_str()
            .expect("payload $ref");
        let name = reference.trim_start_matches("#/$defs/");
        assert!(
            schema["$defs"].get(name).is_some(),
            "missing $defs entry {name}"
        );
    }
}

#[test]
fn typescript_declares_every_payload() {
    let ts = keel_events::codegen::typescript();
    let schema: serde_json::Value =
        serde_json::from_str(&keel_events::codegen::events_schema()).expect("schema is JSON");
    for branch in schema["oneOf"].as_array().expect("oneOf") {
        let name = branch["properties"]["payload"]["$ref"]
            .as_str()
            .expect("$ref")
            .trim_start_matches("#/$defs/");
        assert!(
            ts.contains(&format!("export type {name} = ")),
            "index.ts lacks {name}"
        );
    }
    for name in keel_events::EventKind::TYPES {
        assert!(
            ts.contains(&format!("\"{name}\"")),
            "index.ts lacks type string {name}"
        );
    }
}
