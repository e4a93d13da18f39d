//! Temp copies of folders: a fixture tree, or the repository's sample project.

use std::io;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

/// Folders [`copy_dir`] leaves out: Python's bytecode caches and Keel's own state.
const SKIPPED: &[&str] = &["__pycache__", ".keel"];

/// The root of the Keel repository.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Copies the tree `from` into `to` (created if missing), leaving out `__pycache__` and
/// `.keel` folders. An error names the path that failed.
pub fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir_all(to).map_err(|e| at(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| at(from, e))? {
        let entry = entry.map_err(|e| at(from, e))?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        if entry.file_type().map_err(|e| at(&path, e))?.is_dir() {
            if !SKIPPED.iter().any(|skipped| entry.file_name() == *skipped) {
                copy_dir(&path, &target)?;
            }
        } else {
            std::fs::copy(&path, &target).map_err(|e| at(&path, e))?;
        }
    }
    Ok(())
}

/// Every file under `root` (`.keel` left out) by `/`-separated relative path, with its bytes:
/// two trees are byte-identical when their maps are equal.
pub fn tree_bytes(root: &Path) -> io::Result<std::collections::BTreeMap<String, Vec<u8>>> {
    fn walk(
        root: &Path,
        dir: &Path,
        out: &mut std::collections::BTreeMap<String, Vec<u8>>,
    ) -> io::Result<()> {
        for entry in std::fs::read_dir(dir).map_err(|e| at(dir, e))? {
            let entry = entry.map_err(|e| at(dir, e))?;
            let path = entry.path();
            if entry.file_type().map_err(|e| at(&path, e))?.is_dir() {
                if entry.file_name() != ".keel" {
                    walk(root, &path, out)?;
                }
            } else {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.insert(
                    rel.join("/"),
                    std::fs::read(&path).map_err(|e| at(&path, e))?,
                );
            }
        }
        Ok(())
    }
    let mut out = std::collections::BTreeMap::new();
    walk(root, root, &mut out)?;
    Ok(out)
}

fn at(path: &Path, error: io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

/// A fresh copy of `examples/sample-project`, removed when dropped.
///
/// The project sits in a `project/` folder of its own temp folder, so a test has room beside
/// it ([`scratch`](Self::scratch)) for a config or data folder that is not part of the project.
#[derive(Debug)]
pub struct SampleProject {
    temp: TempDir,
    root: PathBuf,
}

impl SampleProject {
    /// The project's root folder.
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The temp folder around the project, for files that must not be inside it.
    pub fn scratch(&self) -> &Path {
        self.temp.path()
    }
}

/// Copies `examples/sample-project` into a fresh temp folder. Panics when it cannot, as a
/// test without its project cannot run.
pub fn sample_project() -> SampleProject {
    let temp = tempfile::tempdir().unwrap_or_else(|e| panic!("cannot create a temp folder: {e}"));
    let root = temp.path().join("project");
    copy_dir(&repo_root().join("examples/sample-project"), &root)
        .unwrap_or_else(|e| panic!("cannot copy the sample project: {e}"));
    SampleProject { temp, root }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_has_every_file_but_caches_and_keel_state() -> io::Result<()> {
        let from = tempfile::tempdir()?;
        std::fs::create_dir_all(from.path().join("src/__pycache__"))?;
        std::fs::create_dir_all(from.path().join(".keel"))?;
        std::fs::write(from.path().join("src/main.py"), "print(1)\n")?;
        std::fs::write(from.path().join("src/__pycache__/main.pyc"), "")?;
        std::fs::write(from.path().join(".keel/keel.db"), "")?;
        std::fs::write(from.path().join("README"), "hi\n")?;

        let to = tempfile::tempdir()?;
        copy_dir(from.path(), &to.path().join("copy"))?;

        let copy = to.path().join("copy");
        assert_eq!(
            std::fs::read_to_string(copy.join("src/main.py"))?,
            "print(1)\n"
        );
        assert_eq!(std::fs::read_to_string(copy.join("README"))?, "hi\n");
        assert!(!copy.join("src/__pycache__").exists());
        assert!(!copy.join(".keel").exists());
        Ok(())
    }

    #[test]
    fn a_missing_source_is_named_in_the_error() {
        let to = tempfile::tempdir().unwrap();
        let missing = to.path().join("no-such-folder");
        let error = copy_dir(&missing, &to.path().join("copy"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("no-such-folder"), "{error}");
    }

    #[test]
    fn the_sample_project_is_copied_beside_a_free_scratch_folder() {
        let project = sample_project();
        assert!(project.path().starts_with(project.scratch()));
        assert_ne!(project.path(), project.scratch());
        let entries = std::fs::read_dir(project.path()).unwrap().count();
        assert!(entries > 0, "the copy of the sample project is empty");
    }
}
