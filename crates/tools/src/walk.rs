//! Walking the workspace the way `list_files` and `search_files` see it: `.gitignore`,
//! `.ignore` and git's exclude files honoured (in a git repository or not), hidden files shown,
//! and the `.git` and `.keel` folders skipped.

use std::path::Path;

use ignore::WalkBuilder;

/// Folders never listed or searched.
pub const SKIPPED_DIRS: &[&str] = &[".git", ".keel"];

/// A walker over `start` with the workspace's ignore rules.
pub fn walker(start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|t| t.is_dir())
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| SKIPPED_DIRS.contains(&name)))
        });
    builder
}
