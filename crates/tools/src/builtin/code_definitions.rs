//! `list_code_definition_names`: the definitions in a source file, or in the source files
//! directly inside a folder — kind, name, line range and signature — from tree-sitter.

use async_trait::async_trait;
use keel_repomap::{FileTags, Language, parse_file};
use schemars::JsonSchema;
use serde::Deserialize;

use super::workspace;
use crate::tool::{ToolContext, ToolResult, TypedTool};
use crate::walk::walker;

/// Most files listed for a folder.
pub const MAX_FILES: usize = 50;

/// Arguments of `list_code_definition_names`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListCodeDefinitionNamesArgs {
    /// A source file, or a folder whose source files (directly inside it) are listed; relative
    /// to the workspace root.
    pub path: String,
}

/// Lists the definitions of source files.
#[derive(Debug, Clone, Copy, Default)]
pub struct ListCodeDefinitionNames;

/// One file's definitions as text: a header, then one line per definition, indented by
/// nesting: `12-30 struct Point: pub struct Point`.
fn render_file(rel: &str, tags: &FileTags) -> String {
    let mut out = format!(
        "{rel} ({}, {} definitions):\n",
        tags.language.name(),
        tags.symbols.len()
    );
    for symbol in &tags.symbols {
        for _ in 0..=symbol.depth {
            out.push_str("  ");
        }
        let lines = if symbol.end_line > symbol.start_line {
            format!("{}-{}", symbol.start_line, symbol.end_line)
        } else {
            symbol.start_line.to_string()
        };
        out.push_str(&format!(
            "{lines} {} {}: {}\n",
            symbol.kind.as_str(),
            symbol.name,
            symbol.signature
        ));
    }
    out
}

fn supported_languages() -> String {
    Language::ALL
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[async_trait]
impl TypedTool for ListCodeDefinitionNames {
    type Args = ListCodeDefinitionNamesArgs;

    fn name(&self) -> &'static str {
        "list_code_definition_names"
    }

    fn description(&self) -> &'static str {
        "List the definitions (functions, methods, classes, structs, traits, interfaces, enums, types) in a source file, or in the source files directly inside a folder, with each one's kind, name, line range and signature. Use it to find where something is defined and which lines to read, without reading whole files. Languages: Rust, Python, JavaScript, TypeScript/TSX, Go, Java, C, C++."
    }

    async fn run(&self, ctx: &ToolContext, args: ListCodeDefinitionNamesArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let target = match ws.resolve(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot read `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&target);
        if !target.exists() {
            return ToolResult::error(format!("`{rel}` does not exist."));
        }
        if target.is_file() {
            let path = target.clone();
            let parsed = tokio::task::spawn_blocking(move || parse_file(&path)).await;
            return match parsed {
                Ok(Ok(Some(tags))) => ToolResult::ok_with(
                    format!("{} definitions in {rel}.", tags.symbols.len()),
                    render_file(&rel, &tags),
                ),
                Ok(Ok(None)) => ToolResult::error(format!(
                    "`{rel}` is not a source file in a supported language ({}).",
                    supported_languages()
                )),
                Ok(Err(e)) => ToolResult::error(format!("Cannot parse `{rel}`: {e}")),
                Err(e) => ToolResult::error(format!("Parsing `{rel}` failed: {e}")),
            };
        }
        let root = ws.root().to_path_buf();
        let listed = tokio::task::spawn_blocking(move || {
            let mut files: Vec<std::path::PathBuf> = walker(&target)
                .max_depth(Some(1))
                .build()
                .flatten()
                .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                .map(|e| e.into_path())
                .filter(|p| Language::from_path(p).is_some())
                .collect();
            files.sort();
            let total = files.len();
            let mut out = String::new();
            let mut definitions = 0;
            for path in files.iter().take(MAX_FILES) {
                let shown = path
                    .strip_prefix(&root)
                    .unwrap_or(path)
                    .to_string_lossy()
                    .replace('\\', "/");
                match parse_file(path) {
                    Ok(Some(tags)) => {
                        definitions += tags.symbols.len();
                        out.push_str(&render_file(&shown, &tags));
                    }
                    Ok(None) => {}
                    Err(e) => out.push_str(&format!("{shown}: cannot parse ({e})\n")),
                }
            }
            (out, total, definitions)
        })
        .await;
        match listed {
            Ok((_, 0, _)) => ToolResult::ok(format!(
                "No source files directly inside `{rel}` (languages: {}). List a subfolder or a file.",
                supported_languages()
            )),
            Ok((out, total, definitions)) => {
                let more = if total > MAX_FILES {
                    format!(
                        " Only the first {MAX_FILES} of {total} files are listed; list a file or subfolder for the rest."
                    )
                } else {
                    String::new()
                };
                ToolResult::ok_with(
                    format!(
                        "{definitions} definitions in {} source files directly inside `{rel}`.{more}",
                        total.min(MAX_FILES)
                    ),
                    out,
                )
            }
            Err(e) => ToolResult::error(format!("Listing `{rel}` failed: {e}")),
        }
    }
}
