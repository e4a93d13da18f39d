//! list_code_definition_names and get_project_structure: files, folders, confinement,
//! unsupported files, ignore files.

use crate::common;

use common::Harness;
use serde_json::json;

fn project() -> Harness {
    let h = Harness::new();
    h.write(".gitignore", "target/\n");
    h.write(
        "src/shapes.rs",
        "/// A point.\npub struct Point {\n    x: f64,\n}\n\nimpl Point {\n    pub fn new(\n        x: f64,\n    ) -> Self {\n        Self { x }\n    }\n}\n",
    );
    h.write(
        "src/main.rs",
        "fn main() {\n    let p = Point::new(1.0);\n}\n",
    );
    h.write(
        "src/util/helpers.py",
        "class Helper:\n    def run(self):\n        pass\n",
    );
    h.write("README.md", "# Project\n");
    h.write("target/generated.rs", "fn generated() {}\n");
    h
}

#[tokio::test]
async fn definitions_of_a_file() {
    let h = project();
    let result = h
        .call(
            "list_code_definition_names",
            json!({"path": "src/shapes.rs"}),
        )
        .await;
    assert!(result.success, "{result:?}");
    assert_eq!(result.message, "3 definitions in src/shapes.rs.");
    assert_eq!(
        result.content.unwrap(),
        "src/shapes.rs (rust, 3 definitions):\n  2-4 struct Point: pub struct Point\n  6-12 impl Point: impl Point\n    7-11 method new: pub fn new(x: f64) -> Self\n"
    );
}

#[tokio::test]
async fn definitions_of_a_folder_are_its_direct_source_files() {
    let h = project();
    let result = h
        .call("list_code_definition_names", json!({"path": "src"}))
        .await;
    assert!(result.success, "{result:?}");
    let content = result.content.unwrap();
    assert!(
        content.contains("src/main.rs (rust, 1 definitions):\n  1-3 function main: fn main()\n"),
        "{content}"
    );
    assert!(content.contains("src/shapes.rs"), "{content}");
    assert!(!content.contains("helpers.py"), "{content}");
    assert!(
        result
            .message
            .starts_with("4 definitions in 2 source files"),
        "{}",
        result.message
    );
}

#[tokio::test]
async fn unsupported_missing_and_outside_paths_fail_clearly() {
    let h = project();
    let result = h
        .call("list_code_definition_names", json!({"path": "README.md"}))
        .await;
    assert!(!result.success);
    assert!(
        result.message.contains("not a source file"),
        "{}",
        result.message
    );
    let result = h
        .call("list_code_definition_names", json!({"path": "nope.rs"}))
        .await;
    assert!(!result.success);
    assert!(
        result.message.contains("does not exist"),
        "{}",
        result.message
    );
    let result = h
        .call(
            "list_code_definition_names",
            json!({"path": "../../etc/passwd"}),
        )
        .await;
    assert!(!result.success);
    assert!(result.message.contains("climbs out"), "{}", result.message);
    let result = h.call("list_code_definition_names", json!({})).await;
    assert!(!result.success);
    assert!(result.message.contains("path"), "{}", result.message);
}

#[tokio::test]
async fn project_structure_is_a_tree_with_symbol_counts() {
    let h = project();
    let result = h.call("get_project_structure", json!({})).await;
    assert!(result.success, "{result:?}");
    let content = result.content.unwrap();
    assert_eq!(
        content,
        "src/\n  util/\n    helpers.py (2 symbols)\n  main.rs (1 symbols)\n  shapes.rs (3 symbols)\n.gitignore (8 B)\nREADME.md (10 B)\n"
    );
    // target/ is ignored, and so is the map's own cache in .keel/.
    assert_eq!(result.message, "5 files, 6 symbols in the workspace.");
    // Shallower: folders are summarised.
    let result = h.call("get_project_structure", json!({"depth": 1})).await;
    assert_eq!(
        result.content.unwrap(),
        "src/ (3 files, 6 symbols)\n.gitignore (8 B)\nREADME.md (10 B)\n"
    );
    let result = h
        .call("get_project_structure", json!({"depth": "deep"}))
        .await;
    assert!(!result.success);
}
