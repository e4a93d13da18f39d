//! Tasks and suites on disk: finding them under the folders given, and reading one.
//!
//! A task is a folder holding `repo/` (the project as a user hands it over), `task.txt` (what
//! the user types), an executable `check.sh` (exit 0 = solved), an optional `task.toml`
//! ([`TaskMeta`]) and a reference `fix.patch` or, for a question, `answer.txt`. A suite is a
//! folder whose subfolders are tasks; a folder with `task.txt` directly is one task.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::EvalError;

/// What `task.toml` says about a task; every key is optional, and keys it does not know are
/// ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct TaskMeta {
    /// The project's language (`python`, `rust`, …).
    pub language: Option<String>,
    /// The kind of work (`fix-test`, `rename`, `question`, …).
    pub kind: Option<String>,
    /// The project's visible test command, handed to the agent.
    pub test_cmd: Option<String>,
    /// Where the project comes from.
    pub source: Option<String>,
}

impl TaskMeta {
    /// Whether the task asks a question (its answer is checked, not its diff).
    pub fn is_question(&self) -> bool {
        self.kind.as_deref() == Some("question")
    }
}

/// A task folder found under the folders given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// The folder's name.
    pub name: String,
    /// The suite's name: the folder holding the task.
    pub suite: String,
    /// The task folder, absolute.
    pub dir: PathBuf,
    /// Unique among the tasks of one evaluation: the task's folder under `runs/` (the name,
    /// prefixed with the suite's when two suites have a task of the same name).
    pub id: String,
}

/// A task read from its folder: what the agent is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedTask {
    /// The text of `task.txt`, as the user would type it.
    pub text: String,
    /// `check.sh`, absolute.
    pub check: PathBuf,
    /// `repo/`, absolute.
    pub repo: PathBuf,
}

impl Task {
    /// A task at `dir` (made absolute), in the suite named by its parent folder.
    pub fn at(dir: &Path) -> Self {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let name = file_name(&dir);
        let suite = dir.parent().map(file_name).unwrap_or_default();
        Self {
            id: name.clone(),
            name,
            suite,
            dir,
        }
    }

    /// `task.toml` read, or the default when there is none.
    pub fn meta(&self) -> Result<TaskMeta, EvalError> {
        let path = self.dir.join("task.toml");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TaskMeta::default()),
            Err(source) => return Err(EvalError::Read { path, source }),
        };
        toml::from_str(&text).map_err(|e| EvalError::TaskToml {
            path,
            message: e.to_string().trim_end().replace('\n', " "),
        })
    }

    /// Reads what running the task needs: `task.txt`, an executable `check.sh`, `repo/`.
    pub fn load(&self) -> Result<LoadedTask, EvalError> {
        let check = self.dir.join("check.sh");
        let metadata = check.metadata().map_err(|_| EvalError::Missing {
            what: "check.sh",
            dir: self.dir.clone(),
        })?;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err(EvalError::NotExecutable { path: check });
        }
        let text_path = self.dir.join("task.txt");
        let text = match std::fs::read_to_string(&text_path) {
            Ok(text) if !text.trim().is_empty() => text.trim().to_owned(),
            Ok(_) => {
                return Err(EvalError::Missing {
                    what: "text in task.txt",
                    dir: self.dir.clone(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(EvalError::Missing {
                    what: "task.txt",
                    dir: self.dir.clone(),
                });
            }
            Err(source) => {
                return Err(EvalError::Read {
                    path: text_path,
                    source,
                });
            }
        };
        let repo = self.dir.join("repo");
        if !repo.is_dir() {
            return Err(EvalError::Missing {
                what: "repo/",
                dir: self.dir.clone(),
            });
        }
        Ok(LoadedTask { text, check, repo })
    }
}

/// The tasks under `dirs`, in order (each suite's tasks sorted by name, a task found twice
/// listed once), with unique [`Task::id`]s. A folder that does not exist or holds no task is
/// an error naming it.
pub fn discover(dirs: &[PathBuf]) -> Result<Vec<Task>, EvalError> {
    let mut tasks = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(EvalError::NoSuchFolder { path: dir.clone() });
        }
        if is_task(dir) {
            add(&mut tasks, Task::at(dir));
            continue;
        }
        let entries = std::fs::read_dir(dir).map_err(|source| EvalError::Read {
            path: dir.clone(),
            source,
        })?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.is_dir() && !file_name(path).starts_with('.'))
            .collect();
        if found.is_empty() {
            return Err(EvalError::NoTasks { path: dir.clone() });
        }
        found.sort();
        for path in &found {
            add(&mut tasks, Task::at(path));
        }
    }
    make_ids_unique(&mut tasks);
    Ok(tasks)
}

/// Adds `task` unless a folder given twice already added it.
fn add(tasks: &mut Vec<Task>, task: Task) {
    if !tasks.iter().any(|t| t.dir == task.dir) {
        tasks.push(task);
    }
}

/// Whether `dir` is itself a task rather than a suite: it holds `task.txt`, `check.sh` or
/// `repo/`.
fn is_task(dir: &Path) -> bool {
    ["task.txt", "check.sh", "repo"]
        .iter()
        .any(|name| dir.join(name).exists())
}

/// Prefixes the suite to the ids of tasks whose names repeat.
fn make_ids_unique(tasks: &mut [Task]) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for task in tasks.iter() {
        *counts.entry(task.name.clone()).or_default() += 1;
    }
    for task in tasks.iter_mut() {
        if counts.get(&task.name).copied().unwrap_or(0) > 1 {
            task.id = format!("{}-{}", task.suite, task.name);
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn task(root: &Path, suite: &str, name: &str) -> PathBuf {
        let dir = root.join(suite).join(name);
        std::fs::create_dir_all(dir.join("repo")).unwrap();
        std::fs::write(dir.join("task.txt"), "do it\n").unwrap();
        dir
    }

    #[test]
    fn a_suite_is_its_subfolders_and_a_task_folder_is_one_task() {
        let root = tempfile::tempdir().unwrap();
        task(root.path(), "a", "two");
        task(root.path(), "a", "one");
        std::fs::create_dir_all(root.path().join("a/.hidden")).unwrap();
        let single = task(root.path(), "b", "three");
        let tasks = discover(&[root.path().join("a"), single.clone(), single]).unwrap();
        let names: Vec<(&str, &str)> = tasks
            .iter()
            .map(|t| (t.suite.as_str(), t.name.as_str()))
            .collect();
        assert_eq!(names, [("a", "one"), ("a", "two"), ("b", "three")]);
    }

    #[test]
    fn repeated_names_get_their_suite_in_the_id() {
        let root = tempfile::tempdir().unwrap();
        task(root.path(), "a", "same");
        task(root.path(), "b", "same");
        task(root.path(), "b", "other");
        let tasks = discover(&[root.path().join("a"), root.path().join("b")]).unwrap();
        let ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["a-same", "other", "b-same"]);
    }

    #[test]
    fn missing_and_empty_folders_are_errors_naming_them() {
        let root = tempfile::tempdir().unwrap();
        let missing = root.path().join("nope");
        let error = discover(std::slice::from_ref(&missing)).unwrap_err();
        assert!(
            error.to_string().contains("nope: no such folder"),
            "{error}"
        );
        std::fs::create_dir(root.path().join("empty")).unwrap();
        let error = discover(&[root.path().join("empty")]).unwrap_err();
        assert!(
            error.to_string().contains("empty: holds no task"),
            "{error}"
        );
    }

    #[test]
    fn task_toml_is_read_and_its_errors_name_the_file() {
        let root = tempfile::tempdir().unwrap();
        let dir = task(root.path(), "s", "t");
        let found = Task::at(&dir);
        assert_eq!(found.meta().unwrap(), TaskMeta::default());
        std::fs::write(
            dir.join("task.toml"),
            "language = \"python\"\nkind = \"question\"\n",
        )
        .unwrap();
        let meta = found.meta().unwrap();
        assert_eq!(meta.language.as_deref(), Some("python"));
        assert!(meta.is_question());
        std::fs::write(dir.join("task.toml"), "language = 3\n").unwrap();
        let error = found.meta().unwrap_err().to_string();
        assert!(
            error.contains("task.toml") && error.contains("line 1"),
            "{error}"
        );
    }

    #[test]
    fn loading_names_what_is_missing() {
        let root = tempfile::tempdir().unwrap();
        let dir = task(root.path(), "s", "t");
        let found = Task::at(&dir);
        let error = found.load().unwrap_err().to_string();
        assert_eq!(error, format!("no check.sh in {}", found.dir.display()));
        std::fs::write(dir.join("check.sh"), "#!/bin/sh\n").unwrap();
        let error = found.load().unwrap_err().to_string();
        assert!(error.contains("is not executable"), "{error}");
        std::fs::set_permissions(dir.join("check.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        assert_eq!(found.load().unwrap().text, "do it");
        std::fs::remove_file(dir.join("task.txt")).unwrap();
        let error = found.load().unwrap_err().to_string();
        assert_eq!(error, format!("no task.txt in {}", found.dir.display()));
    }
}
