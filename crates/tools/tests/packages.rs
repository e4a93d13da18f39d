//! Lock files and manifests: whatever the text, parsing returns packages or an error naming the
//! file and a line inside it — never a panic; and `list_package_info` picks the package of a
//! path's own language.

use keel_tools::packages::{PackageError, parse_lock, parse_manifest};
use proptest::prelude::*;
use serde_json::json;

use crate::common::Harness;

/// Text made of the pieces lock files and manifests are built from.
fn lockish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("[[package]]\n".to_owned()),
        Just("name = \"a\"\n".to_owned()),
        Just("version = \"1.0\"\n".to_owned()),
        Just("{\"packages\": {\"node_modules/a\": {\"version\": \"1\"}}}".to_owned()),
        Just("golang.org/x/a v0.1.0 h1:abc=\n".to_owned()),
        Just("[package]\nname = \"p\"\n".to_owned()),
        Just("[dependencies]\nserde = \"1\"\n".to_owned()),
        "[ -~\\n]{0,20}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

fn check(result: Result<usize, PackageError>, text: &str, file: &str) {
    if let Err(error) = result {
        match &error {
            PackageError::Parse {
                file: path, line, ..
            } => {
                assert!(path.ends_with(file), "{error}");
                assert!(
                    *line >= 1 && *line <= text.lines().count() + 1,
                    "{error}\n{text:?}"
                );
            }
            PackageError::Read { .. } => panic!("unexpected read error: {error}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn lock_files_parse_or_name_a_line(text in lockish()) {
        let dir = tempfile::tempdir().unwrap();
        for file in ["Cargo.lock", "package-lock.json", "uv.lock", "go.sum"] {
            let path = dir.path().join(file);
            std::fs::write(&path, &text).unwrap();
            check(parse_lock(&path).map(|p| p.len()), &text, file);
        }
    }

    #[test]
    fn manifests_parse_or_name_a_line(text in lockish()) {
        let dir = tempfile::tempdir().unwrap();
        for file in ["Cargo.toml", "package.json", "pyproject.toml", "setup.cfg", "setup.py", "PKG-INFO", "go.mod"] {
            let path = dir.path().join(file);
            std::fs::write(&path, &text).unwrap();
            check(parse_manifest(&path).map(|m| m.dependencies.len()), &text, file);
        }
    }
}

/// A Python source tree that also has a `package.json` for its JavaScript assets (issue 28 §2):
/// the version is dynamic (`[tool.setuptools.dynamic]`), recorded in the sdist's `PKG-INFO`.
fn mixed_tree() -> Harness {
    let h = Harness::new();
    h.write(
        "package.json",
        r#"{"name": "acme-assets", "version": "0.0.1", "private": true, "devDependencies": {"esbuild": "^0.20"}}"#,
    );
    h.write(
        "pyproject.toml",
        "[build-system]\nrequires = [\"setuptools>=61\"]\n\n[project]\nname = \"acme\"\ndescription = \"The Acme web framework\"\ndynamic = [\"version\"]\ndependencies = [\"jinja2>=3\"]\n\n[tool.setuptools.dynamic]\nversion = {attr = \"acme.__version__\"}\n",
    );
    h.write(
        "PKG-INFO",
        "Metadata-Version: 2.1\nName: acme\nVersion: 4.2.0\nSummary: The Acme web framework\n",
    );
    h.write(
        "src/acme/__init__.py",
        "from importlib.metadata import version\n__version__ = version(\"acme\")\n",
    );
    h.write("src/acme/views.py", "def index():\n    return 'hi'\n");
    h.write("src/acme/static/app.js", "export const x = 1;\n");
    h.write("README.md", "# Acme\n");
    h
}

async fn info(h: &Harness, path: &str) -> (bool, String, String) {
    let result = h.call("list_package_info", json!({ "path": path })).await;
    (
        result.success,
        result.message.clone(),
        result.content.clone().unwrap_or_default(),
    )
}

#[tokio::test]
async fn a_python_file_belongs_to_the_python_package_beside_a_package_json() {
    let h = mixed_tree();
    let (ok, message, content) = info(&h, "src/acme/views.py").await;
    assert!(ok, "{message}");
    assert!(
        message.contains("belongs to python package `acme`"),
        "{message}"
    );
    assert!(
        content.contains("Package `acme` 4.2.0 (version from PKG-INFO) (python, pyproject.toml)"),
        "{content}"
    );
    assert!(content.contains("The Acme web framework"), "{content}");
    assert!(content.contains("[dependencies] jinja2 >=3"), "{content}");
    assert!(
        content.contains("also has `package.json` (npm)"),
        "{content}"
    );

    // The JavaScript asset in the same tree is the npm package's.
    let (ok, message, content) = info(&h, "src/acme/static/app.js").await;
    assert!(ok, "{message}");
    assert!(message.contains("npm package `acme-assets`"), "{message}");
    assert!(content.contains("Package `acme-assets` 0.0.1"), "{content}");
}

#[tokio::test]
async fn dynamic_versions_come_from_the_package_metadata() {
    // Without PKG-INFO, the `attr:` the build back end reads.
    let h = mixed_tree();
    std::fs::remove_file(h.path("PKG-INFO")).unwrap();
    h.write("src/acme/__init__.py", "__version__ = \"4.3.0.dev0\"\n");
    let (_, _, content) = info(&h, "src/acme/views.py").await;
    assert!(
        content.contains(
            "Package `acme` 4.3.0.dev0 (version from `__version__` in src/acme/__init__.py)"
        ),
        "{content}"
    );
    // A setup.cfg with `version = attr: …` and no pyproject.toml.
    std::fs::remove_file(h.path("pyproject.toml")).unwrap();
    h.write(
        "setup.cfg",
        "[metadata]\nname = acme\nversion = attr: acme.__version__\n\n[options]\npackage_dir =\n    = src\n",
    );
    let (_, message, content) = info(&h, "src/acme/views.py").await;
    assert!(message.contains("python package `acme`"), "{message}");
    assert!(content.contains("4.3.0.dev0"), "{content}");
    // Only setup.py and an egg-info's PKG-INFO.
    std::fs::remove_file(h.path("setup.cfg")).unwrap();
    std::fs::remove_file(h.path("src/acme/__init__.py")).unwrap();
    h.write(
        "setup.py",
        "from setuptools import setup\nsetup(name='acme', version=read('VERSION'))\n",
    );
    h.write(
        "src/acme.egg-info/PKG-INFO",
        "Metadata-Version: 2.1\nName: acme\nVersion: 4.1.9\n",
    );
    let (_, _, content) = info(&h, "src/acme/views.py").await;
    assert!(
        content.contains(
            "Package `acme` 4.1.9 (version from src/acme.egg-info/PKG-INFO) (python, setup.py)"
        ),
        "{content}"
    );
}

#[tokio::test]
async fn a_file_without_a_manifest_of_its_language_says_so() {
    let h = Harness::new();
    h.write("package.json", r#"{"name": "site", "version": "1.0.0"}"#);
    h.write("tools/gen.py", "print(1)\n");
    let (ok, _, content) = info(&h, "tools/gen.py").await;
    assert!(ok);
    assert!(
        content.starts_with("No python package metadata (pyproject.toml, setup.cfg, setup.py, PKG-INFO) at or above `tools/gen.py`; the nearest manifest is npm's."),
        "{content}"
    );
    assert!(
        content.contains("Package `site` 1.0.0 (npm, package.json)"),
        "{content}"
    );
    // A folder or a file of no language: the nearest manifest, with the others named.
    let h = mixed_tree();
    let (_, message, content) = info(&h, "README.md").await;
    assert!(message.contains("npm package"), "{message}");
    assert!(
        content.contains("also has `pyproject.toml` (python)"),
        "{content}"
    );
}
