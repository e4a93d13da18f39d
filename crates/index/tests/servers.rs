//! `[rag_servers.NAME]`: a folder or an MCP server's search tool, never both and never neither
//! (each mistake named by its key); and the token budget MCP results are cut to.

use keel_index::{RagConfig, RagServer, ServerSource, budget_text};
use proptest::prelude::*;

fn parse(toml_text: &str) -> Result<RagConfig, String> {
    toml::from_str(toml_text).map_err(|e| e.to_string())
}

#[test]
fn a_server_is_a_folder_or_an_mcp_tool() {
    let config = parse(
        r#"
[rag_servers.docs]
path = "../docs"

[rag_servers.wiki]
mcp_server = "everything"
tool = "search_wiki"

[rag_servers.issues]
mcp_server = "tracker"
tool = "find"
query_argument = "text"
arguments = { limit = 5, state = "open" }
"#,
    )
    .unwrap();
    assert_eq!(
        config.rag_servers["docs"],
        RagServer::Folder {
            path: "../docs".into()
        }
    );
    let root = std::path::Path::new("/project");
    assert_eq!(
        config.server(root, "docs"),
        Some(ServerSource::Folder("/project/../docs".into()))
    );
    assert_eq!(
        config.server(root, "project"),
        Some(ServerSource::Folder("/project".into()))
    );
    let Some(ServerSource::McpTool {
        mcp_server,
        tool,
        query_argument,
        arguments,
    }) = config.server(root, "wiki")
    else {
        panic!("wiki is not an MCP tool: {:?}", config.server(root, "wiki"));
    };
    assert_eq!(
        (mcp_server, tool, query_argument),
        ("everything", "search_wiki", "query")
    );
    assert!(arguments.is_empty());
    let Some(ServerSource::McpTool {
        query_argument,
        arguments,
        ..
    }) = config.server(root, "issues")
    else {
        panic!("issues is not an MCP tool");
    };
    assert_eq!(query_argument, "text");
    assert_eq!(arguments["limit"], 5);
    assert_eq!(arguments["state"], "open");
    assert_eq!(config.server(root, "nothing"), None);
    assert_eq!(config.server_names(), ["project", "docs", "issues", "wiki"]);
}

#[test]
fn mistakes_are_errors_naming_the_keys() {
    let cases = [
        (
            "[rag_servers.x]\npath = \"d\"\nmcp_server = \"m\"\ntool = \"t\"\n",
            "`path` and `mcp_server` are mutually exclusive",
        ),
        (
            "[rag_servers.x]\n",
            "needs `path` (a folder to index) or `mcp_server` and `tool`",
        ),
        ("[rag_servers.x]\nmcp_server = \"m\"\n", "`tool` is missing"),
        (
            "[rag_servers.x]\npath = \"d\"\ntool = \"t\"\n",
            "`tool` belongs with `mcp_server`",
        ),
        (
            "[rag_servers.x]\nmcp_server = \" \"\ntool = \"t\"\n",
            "`mcp_server` is empty",
        ),
        (
            "[rag_servers.x]\nmcp_server = \"m\"\ntool = \"t\"\narguments = { query = \"q\" }\n",
            "`arguments` sets `query`",
        ),
        (
            "[rag_servers.x]\nmcp_server = \"m\"\ntool = \"t\"\nquery_arg = \"q\"\n",
            "unknown field `query_arg`",
        ),
        ("[rag_servers.x]\npath = \"\"\n", "`path` is empty"),
    ];
    for (text, expected) in cases {
        let error = parse(text).unwrap_err();
        assert!(error.contains(expected), "{text:?}: {error}");
        // The error points at the table.
        assert!(error.contains("line "), "{text:?}: {error}");
    }
}

#[test]
fn a_result_over_the_budget_is_cut_at_a_line_with_a_note() {
    let text: String = (0..400)
        .map(|i| format!("line {i}: the search server found this passage about routing\n"))
        .collect();
    let (cut, note) = budget_text(&text, 200);
    let note = note.expect("a note");
    assert!(note.contains("only its first"), "{note}");
    assert!(keel_repomap::count_tokens(&cut) <= 200);
    assert!(keel_repomap::count_tokens(&cut) > 150, "too little kept");
    assert!(cut.ends_with("routing"), "{cut:?}");
    assert!(text.starts_with(&cut));

    let (whole, note) = budget_text("a short answer", 200);
    assert_eq!((whole.as_str(), note), ("a short answer", None));

    // One huge word is not counted whole.
    let big = "x".repeat(1024 * 1024);
    let (cut, note) = budget_text(&big, 100);
    assert!(keel_repomap::count_tokens(&cut) <= 100);
    assert!(note.unwrap().contains("1048576 bytes"));
}

proptest! {
    #[test]
    fn budgeted_text_is_a_prefix_within_the_budget(
        text in "[a-zé \n.]{0,600}",
        budget in 1usize..120,
    ) {
        let (cut, note) = budget_text(&text, budget);
        prop_assert!(text.starts_with(&cut));
        prop_assert!(keel_repomap::count_tokens(&cut) <= budget);
        prop_assert_eq!(note.is_none(), cut == text);
    }
}
