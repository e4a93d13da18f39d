//! Tidy rule: no crate re-exports another workspace crate as a whole (`pub use keel_x;`,
//! `pub use keel_x as y;`, `pub use keel_x::*;`, `pub use keel_x::{self, …}`). A crate that
//! does hides a real edge: its users reach keel-x through it without depending on keel-x, so
//! the Dependencies list and `cargo tree` stop telling the truth. Callers depend on the crate
//! itself. Re-exporting single items (`pub use keel_events::ModeHint;`) is not this rule's
//! business.

/// Every whole-crate re-export in `source` (a file's text), as `line N: TEXT`.
pub fn whole_crate_reexports(source: &str) -> Vec<String> {
    source
        .lines()
        .enumerate()
        .filter(|(_, line)| is_whole_crate_reexport(line))
        .map(|(i, line)| format!("line {}: {}", i + 1, line.trim()))
        .collect()
}

/// Whether one line re-exports a `keel_*` crate as a whole.
fn is_whole_crate_reexport(line: &str) -> bool {
    let line = line.trim();
    let Some(rest) = line.strip_prefix("pub use ") else {
        return false;
    };
    let rest = rest.trim_start().trim_start_matches("::");
    let Some(after) = rest.strip_prefix("keel_") else {
        return false;
    };
    let name_len = after
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    let tail = after[name_len..].trim_start();
    tail.starts_with(';')
        || tail.starts_with("as ")
        || tail.starts_with("::*")
        || tail
            .strip_prefix("::{")
            .is_some_and(|list| list.split([',', '}']).any(|item| item.trim() == "self"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_crate_reexports_are_caught() {
        let source = "//! doc\n\
                      pub use keel_sandbox as sandbox;\n\
                      pub use keel_repomap;\n\
                      pub use keel_events::*;\n\
                      pub use keel_store::{self, Store};\n";
        assert_eq!(
            whole_crate_reexports(source),
            [
                "line 2: pub use keel_sandbox as sandbox;",
                "line 3: pub use keel_repomap;",
                "line 4: pub use keel_events::*;",
                "line 5: pub use keel_store::{self, Store};",
            ]
        );
    }

    #[test]
    fn items_private_imports_and_other_crates_pass() {
        let source = "use keel_sandbox as sandbox;\n\
                      pub(crate) use keel_protocol::ToolResult;\n\
                      pub use keel_events::{MemoryKind, MemoryRecord};\n\
                      pub use keel_server::ServerArgs as ServeArgs;\n\
                      pub use serde_json as json;\n\
                      // pub use keel_tools as tools;\n";
        assert_eq!(whole_crate_reexports(source), Vec::<String>::new());
    }
}
