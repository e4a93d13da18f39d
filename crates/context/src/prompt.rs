//! The prompt's sections: the system prompt's instructions (the agent's own, then the
//! environment and the project's instruction files), project memory, the preloaded library
//! docs and the summary of earlier turns; and the turn's context that opens the current turn's
//! first message — the repository map and the focused files — before the task itself, as
//! markdown sections. What changes least comes first, so a provider's prompt cache can reuse
//! the longest prefix (see [`crate::message_builder`]).

use crate::focused_files::FocusedFile;

/// Heading of the environment section (OS, shell, date, root, git).
pub const ENVIRONMENT_HEADING: &str = "## Environment";
/// Heading of the project-instructions section (`AGENTS.md` and the like).
pub const INSTRUCTIONS_HEADING: &str = "## Project instructions";

/// Heading and preamble of the skills section: each skill's name and description, its
/// instructions loaded by the `skill` tool.
pub const SKILLS_HEADING: &str = "## Skills\n\nInstructions for particular kinds of task. When a task matches a skill's description, call the skill tool with its name first and follow what it returns.";

/// Heading of the memory section.
pub const MEMORY_HEADING: &str = "## Project memory";
/// Heading and preamble of the library-docs section (`[context] libraries`).
pub const LIBRARIES_HEADING: &str = "## Library documentation\n\nDigests of dependencies at the versions the project locks. read_library_docs results for these libraries refer here; call it with a topic for more.";
/// Heading of the summary section.
pub const SUMMARY_HEADING: &str = "## Earlier in this conversation (summary)";
/// Heading of the repository-map section.
pub const REPO_MAP_HEADING: &str = "## Repository map";
/// Heading and preamble of the focused-files section.
pub const FOCUSED_HEADING: &str = "## Focused files\n\nThe complete content of the files you are working with, as they were when this task began. Earlier tool results refer here instead of repeating file contents; the results after this message show any change since.";
/// Heading of the task, after the turn's context in the turn's first message.
pub const TASK_HEADING: &str = "## Task";

/// Separator between system-prompt sections.
pub const SECTION_SEPARATOR: &str = "\n\n";

/// A section: `heading`, a blank line, `body`.
pub fn section(heading: &str, body: &str) -> String {
    format!("{heading}\n\n{}", body.trim_end())
}

/// One focused file as a markdown block: `### path` (marked when being edited) and the content
/// in a fence long enough not to clash with any backticks inside it.
pub fn focused_file_block(file: &FocusedFile) -> String {
    let fence = "`".repeat(longest_backtick_run(file.content()).max(2) + 1);
    let language = language_of(file.path());
    let marker = if file.editing() {
        " (being edited)"
    } else {
        ""
    };
    let content = file.content();
    let newline = if content.ends_with('\n') || content.is_empty() {
        ""
    } else {
        "\n"
    };
    format!(
        "### {}{marker}\n{fence}{language}\n{content}{newline}{fence}",
        file.path()
    )
}

/// Joins non-empty sections with [`SECTION_SEPARATOR`].
pub fn join_sections<'a>(sections: impl IntoIterator<Item = &'a str>) -> String {
    sections
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(SECTION_SEPARATOR)
}

fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// Markdown fence language for a path's extension (empty when unknown).
pub fn language_of(path: &str) -> &'static str {
    let extension = path.rsplit_once('.').map_or("", |(_, ext)| ext);
    match extension.to_ascii_lowercase().as_str() {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "go" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "sh" | "bash" => "bash",
        "toml" => "toml",
        "json" => "json",
        "yaml" | "yml" => "yaml",
        "md" => "markdown",
        "html" => "html",
        "css" => "css",
        "sql" => "sql",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::focused_files::FocusedFiles;

    #[test]
    fn fences_outgrow_backticks_in_content() {
        let mut files = FocusedFiles::new();
        files.upsert("README.md", "```rust\nfn a() {}\n```", true);
        let block = focused_file_block(files.get("README.md").unwrap());
        assert_eq!(
            block,
            "### README.md (being edited)\n````markdown\n```rust\nfn a() {}\n```\n````"
        );
    }

    #[test]
    fn joins_only_non_empty_sections() {
        assert_eq!(join_sections(["a", "", "b"]), "a\n\nb");
        assert_eq!(section("## T", "body\n"), "## T\n\nbody");
    }
}
