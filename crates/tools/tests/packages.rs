//! Lock files and manifests: whatever the text, parsing returns packages or an error naming the
//! file and a line inside it — never a panic.

use keel_tools::packages::{PackageError, parse_lock, parse_manifest};
use proptest::prelude::*;

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
        for file in ["Cargo.toml", "package.json", "pyproject.toml", "setup.cfg", "go.mod"] {
            let path = dir.path().join(file);
            std::fs::write(&path, &text).unwrap();
            check(parse_manifest(&path).map(|m| m.dependencies.len()), &text, file);
        }
    }
}
