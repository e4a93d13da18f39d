//! Task folders built in a temp dir, for the tests of the runs, the checks and verify.

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// A task folder under construction at `dir`.
pub struct TaskDir {
    pub dir: PathBuf,
}

impl TaskDir {
    /// A task `name` in suite folder `suite` with `task.txt` and a `repo/` holding
    /// `value.txt` = `1`.
    pub fn new(suite: &Path, name: &str, text: &str) -> Self {
        let dir = suite.join(name);
        std::fs::create_dir_all(dir.join("repo")).unwrap();
        std::fs::write(dir.join("task.txt"), text).unwrap();
        std::fs::write(dir.join("repo/value.txt"), "1\n").unwrap();
        Self { dir }
    }

    /// `check.sh` with this body (after `#!/bin/sh`), executable.
    pub fn check(self, body: &str) -> Self {
        let path = self.dir.join("check.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    /// A file of the task folder.
    pub fn file(self, name: &str, text: &str) -> Self {
        let path = self.dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }
}

/// The check every value task uses: solved when `value.txt` holds 2.
pub const VALUE_IS_2: &str = r#"test "$(cat value.txt)" = 2"#;

/// The fix of a value task, as `git diff` writes it.
pub const VALUE_FIX: &str = "diff --git a/value.txt b/value.txt
--- a/value.txt
+++ b/value.txt
@@ -1 +1 @@
-1
+2
";
