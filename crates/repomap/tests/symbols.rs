//! Symbol extraction per language: every top-level function, method, class, struct, trait,
//! interface and enum of the fixtures is found, with the right kind and lines.

use std::path::PathBuf;

use SymbolKind::*;
use keel_repomap::{SymbolKind, parse_file};

fn symbols(path: &str) -> Vec<(SymbolKind, String, u32, u32)> {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    parse_file(&file)
        .unwrap()
        .unwrap()
        .symbols
        .into_iter()
        .map(|s| (s.kind, s.name, s.start_line, s.end_line))
        .collect()
}

fn assert_has(path: &str, expected: &[(SymbolKind, &str, u32, u32)]) {
    let found = symbols(path);
    for (kind, name, start, end) in expected {
        assert!(
            found.contains(&(*kind, (*name).to_owned(), *start, *end)),
            "{path}: missing {kind:?} {name} {start}-{end}; found {found:#?}"
        );
    }
}

#[test]
fn rust() {
    assert_has(
        "rust/src/shapes.rs",
        &[
            (Struct, "Point", 5, 8),
            (Impl, "Point", 10, 23),
            (Method, "new", 12, 14),
            (Method, "distance", 17, 22),
            (Trait, "Shape", 26, 29),
            (Method, "area", 28, 28),
            (Enum, "Kind", 32, 35),
            (Constant, "ORIGIN", 37, 37),
        ],
    );
    assert_has(
        "rust/src/main.rs",
        &[
            (Module, "shapes", 1, 1),
            (Struct, "Circle", 5, 8),
            (Method, "area", 11, 13),
            (Function, "main", 17, 21),
        ],
    );
}

#[test]
fn python() {
    assert_has(
        "python/pkg/models.py",
        &[
            (Constant, "MAX_ITEMS", 3, 3),
            (Class, "Item", 6, 18),
            (Method, "__init__", 9, 11),
            (Method, "discounted", 13, 18),
            (Class, "Inventory", 21, 31),
            (Method, "total", 26, 27),
            (Method, "add", 29, 31),
            (Function, "_private_helper", 34, 35),
        ],
    );
    assert_has(
        "python/pkg/main.py",
        &[
            (Function, "build_inventory", 4, 9),
            (Function, "main", 12, 13),
        ],
    );
}

#[test]
fn javascript() {
    assert_has(
        "javascript/src/store.js",
        &[
            (Class, "Store", 4, 21),
            (Method, "get", 10, 12),
            (Method, "set", 14, 16),
            (Method, "onChange", 18, 20),
            (Function, "createStore", 24, 30),
            (Function, "helper", 32, 32),
        ],
    );
    assert_has("javascript/src/app.js", &[(Function, "main", 3, 6)]);
}

#[test]
fn typescript_and_tsx() {
    assert_has(
        "typescript/src/types.ts",
        &[
            (Interface, "User", 2, 6),
            (Method, "greet", 5, 5),
            (Type, "UserId", 8, 8),
            (Enum, "Role", 10, 13),
            (Class, "Repository", 16, 22),
            (Method, "find", 17, 17),
            (Method, "count", 19, 21),
        ],
    );
    assert_has(
        "typescript/src/service.ts",
        &[
            (Class, "UserService", 3, 14),
            (Method, "find", 7, 9),
            (Method, "add", 11, 13),
            (Function, "makeService", 16, 23),
        ],
    );
    assert_has(
        "typescript/src/view.tsx",
        &[(Function, "UserList", 4, 7), (Function, "Badge", 9, 9)],
    );
}

#[test]
fn go() {
    assert_has(
        "go/server/server.go",
        &[
            (Struct, "Server", 6, 8),
            (Interface, "Handler", 11, 13),
            (Method, "Handle", 12, 12),
            (Type, "Middleware", 15, 15),
            (Function, "NewServer", 18, 20),
            (Method, "Start", 23, 28),
        ],
    );
    assert_has(
        "go/main.go",
        &[
            (Struct, "echo", 5, 5),
            (Method, "Handle", 7, 7),
            (Function, "main", 9, 12),
        ],
    );
}

#[test]
fn java() {
    assert_has(
        "java/src/com/example/Account.java",
        &[
            (Class, "Account", 4, 22),
            (Method, "Account", 8, 10),
            (Method, "deposit", 13, 15),
            (Method, "getBalance", 17, 19),
            (Enum, "Status", 21, 21),
        ],
    );
    assert_has(
        "java/src/com/example/Bank.java",
        &[
            (Interface, "Auditable", 6, 8),
            (Method, "audit", 7, 7),
            (Class, "Bank", 10, 28),
            (Method, "total", 17, 22),
            (Method, "audit", 24, 27),
            (Class, "Transfer", 30, 30),
        ],
    );
}

#[test]
fn c() {
    assert_has(
        "c/list.h",
        &[
            (Struct, "node", 5, 8),
            (Type, "list_t", 10, 13),
            (Enum, "order", 15, 15),
            (Macro, "LIST_EMPTY", 17, 17),
            (Function, "list_push", 20, 20),
            (Function, "list_sum", 21, 21),
        ],
    );
    assert_has(
        "c/list.c",
        &[
            (Function, "list_push", 5, 11),
            (Function, "list_sum", 13, 18),
            (Function, "make_buffer", 20, 27),
        ],
    );
}

#[test]
fn cpp() {
    assert_has(
        "cpp/geometry.hpp",
        &[
            (Module, "geo", 3, 29),
            (Class, "Vec2", 6, 17),
            (Method, "length", 10, 10),
            (Method, "dot", 12, 12),
            (Struct, "Box", 19, 22),
            (Function, "clamp", 24, 27),
        ],
    );
    assert_has(
        "cpp/geometry.cpp",
        &[
            (Method, "Vec2", 6, 6),
            (Method, "length", 9, 11),
            (Function, "main", 15, 18),
        ],
    );
}

#[test]
fn docs_and_multi_line_signatures() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust/src/shapes.rs");
    let tags = parse_file(&file).unwrap().unwrap();
    let distance = tags.symbols.iter().find(|s| s.name == "distance").unwrap();
    assert_eq!(
        distance.signature,
        "pub fn distance(&self, other: &Point) -> f64"
    );
    assert_eq!(distance.doc.as_deref(), Some("Distance to another point."));
    let file =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python/pkg/models.py");
    let tags = parse_file(&file).unwrap().unwrap();
    let item = tags.symbols.iter().find(|s| s.name == "Item").unwrap();
    assert_eq!(item.doc.as_deref(), Some("An item in an inventory."));
}

#[test]
fn references_are_collected() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/c/main.c");
    let tags = parse_file(&file).unwrap().unwrap();
    let names: Vec<&str> = tags.references.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"list_push"), "{names:?}");
    assert!(names.contains(&"list_t"), "{names:?}");
}

#[test]
fn rust_calls_inside_macros_are_references() {
    let source = "use civil_date::*;\n\n#[test]\nfn century_years() {\n    assert!(!is_leap_year(1900));\n    assert_eq!(days_in_month(2024, 2), Ok(29));\n}\n";
    let tags = keel_repomap::extract(keel_repomap::Language::Rust, source.as_bytes()).unwrap();
    let names: Vec<&str> = tags.references.iter().map(|(n, _)| n.as_str()).collect();
    assert!(names.contains(&"is_leap_year"), "{names:?}");
    assert!(names.contains(&"days_in_month"), "{names:?}");
}
