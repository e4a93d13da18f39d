//! The registry: lookup by name and alias, unknown tools, and every tool's OpenAI function
//! definition (description + parameters schema) in one snapshot.

use crate::common;

use common::Harness;
use keel_tools::ToolRegistry;
use serde_json::json;

#[test]
fn openai_function_definitions() {
    let registry = ToolRegistry::builtin();
    let functions = registry.openai_functions();
    for f in &functions {
        assert_eq!(f["type"], "function");
        assert_eq!(f["function"]["parameters"]["type"], "object");
    }
    // Keys sorted: `serde_json` keeps insertion order when a dependency (agent-client-protocol)
    // turns on its `preserve_order` feature in the same build.
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("openai_functions", functions);
    });
}

#[test]
fn lookup_by_name_and_alias() {
    let registry = ToolRegistry::builtin();
    assert_eq!(registry.get("write_to_file").unwrap().name(), "write_file");
    assert_eq!(registry.get("read_file").unwrap().name(), "read_file");
    assert!(registry.get("nope").is_none());
    let names = registry.names();
    for expected in [
        "read_file",
        "write_file",
        "replace_in_file",
        "delete_file",
        "move_file",
        "list_files",
        "search_files",
        "execute_command",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let summaries = registry.summaries();
    assert!(
        summaries
            .iter()
            .all(|(_, s)| !s.is_empty() && !s.contains('\n'))
    );
}

#[tokio::test]
async fn unknown_tool_lists_the_available_ones() {
    let h = Harness::new();
    let r = h.call("frobnicate", json!({})).await;
    assert!(!r.success);
    assert!(
        r.message
            .starts_with("Unknown tool `frobnicate`. Available tools: read_file, "),
        "{}",
        r.message
    );
    assert!(r.message.contains("search_files"));
}

#[tokio::test]
async fn arguments_as_a_json_string_are_accepted() {
    let h = Harness::new();
    h.write("a.txt", "hi\n");
    let r = h.call("read_file", json!("{\"path\": \"a.txt\"}")).await;
    assert!(r.success, "{r:?}");
    let r = h
        .call("read_file", json!({"path": "a.txt", "bogus": 1}))
        .await;
    assert!(
        !r.success && r.message.contains("unknown field `bogus`"),
        "{r:?}"
    );
}
