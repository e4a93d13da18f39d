//! The built-in tools, one per file.

pub mod code_definitions;
pub mod delete_file;
pub mod execute_command;
pub mod fetch_url;
pub mod generate_image;
pub mod library_docs;
pub mod list_files;
pub mod move_file;
pub mod package_info;
pub mod project_structure;
pub mod read_file;
pub mod replace_in_file;
pub mod search_files;
pub mod skill;
pub mod use_rag_tool;
pub mod write_file;

pub use code_definitions::ListCodeDefinitionNames;
pub use delete_file::DeleteFile;
pub use execute_command::{ExecuteCommand, ExecuteCommandArgs};
pub use fetch_url::FetchUrl;
pub use generate_image::{GenerateImage, ImageSettings};
pub use library_docs::{LibraryDigest, Preloaded, ReadLibraryDocs, library_digest, preload};
pub use list_files::ListFiles;
pub use move_file::MoveFile;
pub use package_info::ListPackageInfo;
pub use project_structure::GetProjectStructure;
pub use read_file::ReadFile;
pub use replace_in_file::ReplaceInFile;
pub use search_files::SearchFiles;
pub use skill::{SKILL, Skill, SkillArgs};
pub use use_rag_tool::UseRagTool;
pub use write_file::WriteFile;

use crate::tool::{ToolContext, ToolResult};
use crate::workspace::Workspace;

/// The call's workspace, or a failed result saying why the root cannot be used.
fn workspace(ctx: &ToolContext) -> Result<Workspace, ToolResult> {
    Workspace::new(&ctx.root).map_err(|e| ToolResult::error(e.to_string()))
}

/// Adds thousands separators: 12345 → "12,345".
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
