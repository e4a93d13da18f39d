//! Which of a project's files are tests, by their path: the file names and folders the common
//! test runners look for (pytest, Go, Node's and Jest's, Rust's `tests/`).

/// Folders whose files are tests.
const TEST_FOLDERS: &[&str] = &["test", "tests", "__tests__", "spec", "testdata"];

/// Whether the file at `path` (relative, `/`-separated) is a test file.
pub(crate) fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    if parts.iter().any(|folder| TEST_FOLDERS.contains(folder)) {
        return true;
    }
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    match extension {
        "py" => stem.starts_with("test_") || stem.ends_with("_test"),
        "go" => stem.ends_with("_test"),
        "js" | "ts" | "jsx" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => {
            stem.ends_with(".test") || stem.ends_with(".spec")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_by_their_runners_conventions() {
        for path in [
            "tests/test_money.py",
            "pkg/test_cli.py",
            "wordfreq/wordfreq_test.go",
            "test/lru.test.ts",
            "src/lru.spec.js",
            "src/__tests__/a.js",
            "tests/dates.rs",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "invoicer/money.py",
            "src/testing_utils.rs",
            "lib/array.js",
            "src/contest.py",
            "latest/x.go",
            "",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
