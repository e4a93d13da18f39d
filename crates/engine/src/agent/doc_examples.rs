//! The examples in the docstrings of the code a turn changed, run as tests once the project's
//! own tests pass. "Implement `slugify`; its docstring says what it must do" comes with
//! `>>> slugify("Hello, World!")` / `'hello-world'`, which test runners such as pytest skip
//! unless told: a small model's first try passes the project's tests and still gives
//! `'hello-world-'`. Python's examples run with `doctest`; only those of definitions the turn
//! changed (all of a file's when the turn does not know how the file was before), so a
//! library's examples that never worked stay out of it.
//!
//! Rust's doc examples and Go's `Example` functions are run by `cargo test` and `go test`
//! already.

use std::collections::BTreeSet;
use std::path::Path;

use keel_repomap::{Language, extract};

use super::answer_review::log;
use super::test_files::is_test_path;
use super::tool_loop::TurnRun;

/// The start of the script that runs the examples: a failing one makes it exit 1, after
/// doctest's report of it. Each module's part follows ([`ModuleExamples::script`]); modules
/// are imported by name, as written, so that the safety check can read what runs. No single
/// quotes: it goes to the shell between them.
const SCRIPT_START: &str = r#"import doctest, sys
sys.path[:0] = [".", "src"]
finder = doctest.DocTestFinder()
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
failed = 0
"#;

/// The script's last line.
const SCRIPT_END: &str = "sys.exit(1 if failed else 0)";

/// What a failing example looks like in doctest's report.
const FAILURE_MARKS: &[&str] = &["Failed example:", "Traceback (most recent call last)"];

/// The examples of one changed Python module that the turn's changes concern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleExamples {
    /// The module's dotted name (`textutils.slug`).
    pub(crate) module: String,
    /// The changed definitions whose docstrings hold examples; `None`: all of the module's.
    pub(crate) names: Option<BTreeSet<String>>,
}

impl ModuleExamples {
    /// The script's part that runs this module's examples (the `index`th module): one that
    /// does not import, or holds a docstring doctest cannot read (an example with a bare
    /// `"\n"` in a non-raw docstring), is skipped with a line saying so — Keel's extra check
    /// cannot be run there, which is not a failing example.
    fn script(&self, index: usize) -> String {
        let module = &self.module;
        let alias = format!("_module{index}");
        let wanted = match &self.names {
            None => "True".to_owned(),
            Some(names) => {
                let names: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
                format!("test.name.rsplit(\".\", 1)[-1] in ({},)", names.join(", "))
            }
        };
        format!(
            "try:\n    import {module} as {alias}\nexcept ImportError as error:\n    print(f\"{module}: not imported ({{error}}); its examples were not run\")\nelse:\n    try:\n        tests = finder.find({alias}, \"{module}\")\n    except ValueError as error:\n        print(f\"{module}: a docstring cannot be read as examples ({{error}}); its examples were not run\")\n        tests = []\n    for test in tests:\n        if {wanted}:\n            failed += runner.run(test).failed\n"
        )
    }
}

/// The command that runs the examples of `modules` in the project's folder.
pub(crate) fn doctest_command(modules: &[ModuleExamples]) -> String {
    let parts: String = modules
        .iter()
        .enumerate()
        .map(|(index, module)| module.script(index))
        .collect();
    format!("python3 -B -c '{SCRIPT_START}{parts}{SCRIPT_END}'")
}

/// The dotted module name of the Python file at `path` (relative to the project), when it has
/// one: `src/` is a source folder, `__init__.py` is its package.
pub(crate) fn module_name(path: &str) -> Option<String> {
    let stem = path.strip_suffix(".py")?;
    let stem = stem.strip_prefix("src/").unwrap_or(stem);
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.len() > 1 && parts.last() == Some(&"__init__") {
        parts.pop();
    }
    parts
        .iter()
        .all(|part| is_identifier(part))
        .then(|| parts.join("."))
}

fn is_identifier(part: &str) -> bool {
    let mut chars = part.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The examples the change of the Python file at `path` from `before` (`None`: not known, or
/// the file is new) to `now` concerns: those of the definitions whose text changed.
pub(crate) fn changed_examples(
    path: &str,
    before: Option<&str>,
    now: &str,
) -> Option<ModuleExamples> {
    if !path.ends_with(".py") || is_test_path(path) || !now.contains(">>>") {
        return None;
    }
    let module = module_name(path)?;
    let Some(before) = before else {
        return Some(ModuleExamples {
            module,
            names: None,
        });
    };
    let now_definitions = definitions(path, now);
    let before_definitions = definitions(path, before);
    let names: BTreeSet<String> = now_definitions
        .into_iter()
        .filter(|(name, text)| {
            text.contains(">>>") && !before_definitions.contains(&(name.clone(), text.clone()))
        })
        .map(|(name, _)| name)
        .collect();
    (!names.is_empty()).then_some(ModuleExamples {
        module,
        names: Some(names),
    })
}

/// Each definition of `source` (the file at `path`) with its lines.
fn definitions(path: &str, source: &str) -> BTreeSet<(String, String)> {
    let Some(language) = Language::from_path(Path::new(path)) else {
        return BTreeSet::new();
    };
    let Ok(tags) = extract(language, source.as_bytes()) else {
        return BTreeSet::new();
    };
    let lines: Vec<&str> = source.lines().collect();
    tags.symbols
        .into_iter()
        .map(|symbol| {
            let text = symbol.lines_in(&lines).join("\n");
            (symbol.name, text)
        })
        .collect()
}

/// Whether doctest's output reports a failing example (rather than, say, no `python3`).
pub(crate) fn reports_failure(output: &str) -> bool {
    FAILURE_MARKS.iter().any(|mark| output.contains(mark))
}

impl TurnRun<'_> {
    /// After the project's tests passed: runs the examples in the docstrings of what the turn
    /// changed, as Keel's own `execute_command` (`call_id`); their command and output when one
    /// fails.
    pub(crate) async fn failing_doc_examples(&mut self, call_id: &str) -> Option<(String, String)> {
        let modules = self.changed_modules();
        if modules.is_empty() {
            return None;
        }
        let command = doctest_command(&modules);
        let (passed, output) = self.run_tests(call_id, &command).await;
        if passed {
            return None;
        }
        if !reports_failure(&output) {
            log(
                self.emitter,
                format!(
                    "the docstrings' examples could not be run: {}",
                    output.trim()
                ),
            );
            return None;
        }
        Some((command, output))
    }

    /// The changed Python modules whose changed definitions have examples.
    fn changed_modules(&self) -> Vec<ModuleExamples> {
        let root = self.config.root.clone();
        self.changes
            .since(0)
            .iter()
            .filter_map(|path| {
                let relative = Path::new(path)
                    .strip_prefix(&root)
                    .unwrap_or(Path::new(path))
                    .to_string_lossy()
                    .replace('\\', "/");
                let now = std::fs::read_to_string(root.join(&relative)).ok()?;
                let before = self.as_found(&relative).cloned().flatten();
                changed_examples(&relative, before.as_deref(), &now)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "import re\n\n\ndef slugify(text):\n    \"\"\"Slug.\n\n    >>> slugify(\"A b\")\n    'a-b'\n    \"\"\"\n    raise NotImplementedError\n\n\ndef other(x):\n    \"\"\"Other.\n\n    >>> other(1)\n    2\n    \"\"\"\n    return x + 1\n";

    #[test]
    fn module_names_follow_packages_and_src_folders() {
        assert_eq!(
            module_name("textutils/slug.py").as_deref(),
            Some("textutils.slug")
        );
        assert_eq!(module_name("src/pkg/__init__.py").as_deref(), Some("pkg"));
        assert_eq!(module_name("tool.py").as_deref(), Some("tool"));
        assert_eq!(module_name("my-scripts/run.py"), None);
        assert_eq!(module_name("lib/array.js"), None);
    }

    #[test]
    fn only_the_changed_definitions_examples_run() {
        let now = BEFORE.replace(
            "raise NotImplementedError",
            "return text.lower().replace(\" \", \"-\")",
        );
        let examples = changed_examples("textutils/slug.py", Some(BEFORE), &now);
        assert_eq!(
            examples,
            Some(ModuleExamples {
                module: "textutils.slug".into(),
                names: Some(BTreeSet::from(["slugify".to_owned()])),
            })
        );
    }

    #[test]
    fn a_file_whose_examples_did_not_change_runs_none() {
        let now = format!("{BEFORE}\n\ndef added(x):\n    return x\n");
        assert_eq!(
            changed_examples("textutils/slug.py", Some(BEFORE), &now),
            None
        );
        assert_eq!(changed_examples("tests/test_slug.py", None, BEFORE), None);
        assert_eq!(
            changed_examples("textutils/plain.py", None, "x = 1\n"),
            None
        );
    }

    #[test]
    fn a_file_the_turn_did_not_know_runs_all_its_examples() {
        let examples = changed_examples("textutils/slug.py", None, BEFORE);
        assert_eq!(examples.and_then(|e| e.names), None);
    }

    #[test]
    fn the_script_names_its_modules_and_survives_the_shell_quotes() {
        let command = doctest_command(&[
            ModuleExamples {
                module: "a.b".into(),
                names: Some(BTreeSet::from(["f".to_owned(), "g".to_owned()])),
            },
            ModuleExamples {
                module: "c".into(),
                names: None,
            },
        ]);
        let script = command
            .strip_prefix("python3 -B -c '")
            .and_then(|rest| rest.strip_suffix('\''))
            .unwrap();
        assert!(!script.contains('\''));
        assert!(script.contains("import a.b as _module0\n"));
        assert!(script.contains("test.name.rsplit(\".\", 1)[-1] in (\"f\", \"g\",):"));
        assert!(script.contains("import c as _module1\n"));
        assert!(script.contains("tests = finder.find(_module1, \"c\")\n"));
        assert!(script.contains("    for test in tests:\n        if True:"));
    }

    #[test]
    fn a_docstring_doctest_cannot_read_is_skipped_and_a_failing_example_fails() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg/__init__.py"), "").unwrap();
        // A real newline inside the example's string: doctest's parser rejects the docstring.
        std::fs::write(
            dir.path().join("pkg/words.py"),
            "def count(text):\n    \"\"\"Count.\n\n    >>> count(\" a\\nb \\n\")\n    2\n    \"\"\"\n    return len(text.split())\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("pkg/wrong.py"),
            "def one():\n    \"\"\"One.\n\n    >>> one()\n    1\n    \"\"\"\n    return 2\n",
        )
        .unwrap();
        let run = |module: &str| {
            let command = doctest_command(&[ModuleExamples {
                module: module.into(),
                names: None,
            }]);
            std::process::Command::new("bash")
                .arg("-c")
                .arg(command)
                .current_dir(dir.path())
                .output()
                .unwrap()
        };
        let unreadable = run("pkg.words");
        let out = String::from_utf8_lossy(&unreadable.stdout);
        assert!(unreadable.status.success(), "{out}");
        assert!(
            out.contains("pkg.words: a docstring cannot be read as examples"),
            "{out}"
        );
        let failing = run("pkg.wrong");
        let out = String::from_utf8_lossy(&failing.stdout);
        assert!(!failing.status.success());
        assert!(reports_failure(&out), "{out}");
    }

    #[test]
    fn failures_are_told_from_a_missing_python() {
        assert!(reports_failure(
            "File \"x.py\", line 3, in x.f\nFailed example:\n    f()\nExpected:\n    1\nGot:\n    2"
        ));
        assert!(!reports_failure("sh: 1: python3: not found"));
    }
}
