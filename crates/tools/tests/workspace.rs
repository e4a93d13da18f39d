//! Path confinement: nothing resolves outside the workspace root.

use std::path::Path;

use keel_tools::{PathError, Workspace};
use proptest::prelude::*;

fn setup() -> (tempfile::TempDir, tempfile::TempDir, Workspace) {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(root.path().join("src/inner")).unwrap();
    std::fs::write(root.path().join("src/a.rs"), "a").unwrap();
    std::fs::create_dir_all(root.path().join(".git")).unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret"),
            root.path().join("secret_link"),
        )
        .unwrap();
        std::os::unix::fs::symlink(root.path().join("src"), root.path().join("src_link")).unwrap();
        std::os::unix::fs::symlink(root.path().join("nowhere"), root.path().join("dangling"))
            .unwrap();
    }
    let ws = Workspace::new(root.path()).unwrap();
    (root, outside, ws)
}

#[test]
fn relative_paths_resolve_inside() {
    let (_r, _o, ws) = setup();
    assert_eq!(ws.resolve("src/a.rs").unwrap(), ws.root().join("src/a.rs"));
    assert_eq!(
        ws.resolve("./src/../src/a.rs").unwrap(),
        ws.root().join("src/a.rs")
    );
    assert_eq!(
        ws.resolve("new/dir/file.txt").unwrap(),
        ws.root().join("new/dir/file.txt")
    );
    assert_eq!(ws.resolve("").unwrap(), ws.root());
    assert_eq!(ws.resolve(".").unwrap(), ws.root());
}

#[test]
fn absolute_path_inside_is_fine_elsewhere_refused() {
    let (_r, o, ws) = setup();
    let inside = ws.root().join("src/a.rs");
    assert_eq!(ws.resolve(inside.to_str().unwrap()).unwrap(), inside);
    let err = ws.resolve("/etc/passwd").unwrap_err();
    assert!(matches!(err, PathError::OutsideRoot { .. }), "{err}");
    assert!(err.to_string().contains("outside the workspace"));
    let sneaky = format!(
        "{}/../{}",
        ws.root().display(),
        o.path().file_name().unwrap().to_str().unwrap()
    );
    assert!(ws.resolve(&sneaky).is_err());
}

#[test]
fn dotdot_out_refused() {
    let (_r, _o, ws) = setup();
    for p in ["..", "../x", "src/../../x", "src/inner/../../../etc"] {
        let err = ws.resolve(p).unwrap_err();
        assert!(matches!(err, PathError::ClimbsOut { .. }), "{p}: {err}");
        assert!(err.to_string().contains("climbs out"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn symlinks_leading_out_refused() {
    let (_r, _o, ws) = setup();
    for p in [
        "out/secret",
        "out/new_file",
        "out/new/deeper",
        "secret_link",
        "out",
    ] {
        let err = ws.resolve(p).unwrap_err();
        assert!(
            matches!(err, PathError::SymlinkEscapes { .. }),
            "{p}: {err}"
        );
    }
    assert!(matches!(
        ws.resolve("dangling").unwrap_err(),
        PathError::DanglingSymlink { .. }
    ));
    // A symlink that stays inside is fine and resolves to its target.
    assert_eq!(
        ws.resolve("src_link/a.rs").unwrap(),
        ws.root().join("src/a.rs")
    );
}

#[test]
fn nul_and_long_paths_refused() {
    let (_r, _o, ws) = setup();
    assert!(matches!(
        ws.resolve("a\0b").unwrap_err(),
        PathError::NulByte { .. }
    ));
    let long = "d/".repeat(2100);
    assert!(matches!(
        ws.resolve(&long).unwrap_err(),
        PathError::TooLong { .. }
    ));
    let component = "x".repeat(256);
    assert!(matches!(
        ws.resolve(&component).unwrap_err(),
        PathError::ComponentTooLong { .. }
    ));
}

#[test]
fn writes_inside_git_refused_reads_fine() {
    let (_r, _o, ws) = setup();
    assert!(ws.resolve(".git/config").is_ok());
    for p in [
        ".git/config",
        ".git/hooks/pre-commit",
        "sub/.git/HEAD",
        ".GIT/x",
    ] {
        let err = ws.resolve_for_write(p).unwrap_err();
        assert!(matches!(err, PathError::InsideGit { .. }), "{p}: {err}");
    }
    assert!(ws.resolve_for_write(".gitignore").is_ok());
    assert!(ws.resolve_for_write("src/.github/x.yml").is_ok());
}

#[test]
fn bad_root_is_an_error() {
    let err = Workspace::new("/definitely/not/here").unwrap_err();
    assert!(err.to_string().contains("cannot be used"), "{err}");
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just("src".to_owned()),
        Just("inner".to_owned()),
        Just("out".to_owned()),
        Just("secret_link".to_owned()),
        Just("src_link".to_owned()),
        Just("dangling".to_owned()),
        Just(".git".to_owned()),
        Just("".to_owned()),
        "[a-z.]{1,4}",
        any::<String>(),
    ]
}

fn inside(ws: &Workspace, resolved: &Path) -> bool {
    // Follow whatever exists of the resolved path: it must still be inside.
    let mut existing = resolved.to_path_buf();
    while std::fs::symlink_metadata(&existing).is_err() {
        if !existing.pop() {
            return false;
        }
    }
    resolved.starts_with(ws.root())
        && existing
            .canonicalize()
            .is_ok_and(|c| c.starts_with(ws.root()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn nothing_resolves_outside(parts in prop::collection::vec(component(), 0..8), absolute in any::<bool>()) {
        let (_r, _o, ws) = setup();
        let mut input = parts.join("/");
        if absolute {
            input = format!("{}/{input}", ws.root().display());
        }
        if let Ok(resolved) = ws.resolve(&input) {
            prop_assert!(inside(&ws, &resolved), "{input:?} resolved to {resolved:?}");
        }
        if let Ok(resolved) = ws.resolve_for_write(&input) {
            prop_assert!(inside(&ws, &resolved), "{input:?} resolved to {resolved:?}");
            prop_assert!(!ws.relative(&resolved).split('/').any(|c| c.eq_ignore_ascii_case(".git")));
        }
    }

    #[test]
    fn arbitrary_strings_never_escape(input in any::<String>()) {
        let (_r, _o, ws) = setup();
        if let Ok(resolved) = ws.resolve(&input) {
            prop_assert!(inside(&ws, &resolved), "{input:?} resolved to {resolved:?}");
        }
    }
}
