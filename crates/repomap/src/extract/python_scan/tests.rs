use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::super::{TagFinder, extract_with, file_tags};
use super::scan;
use crate::language::Language;
use crate::symbol::FileTags;

/// What the scan finds in `source`, or `None` when it leaves the file to the parser.
fn scanned(source: &str) -> Option<FileTags> {
    scan(source.as_bytes()).map(|(defs, references)| file_tags(Language::Python, defs, references))
}

/// What the parser finds.
fn parsed(source: &str) -> FileTags {
    match extract_with(Language::Python, source.as_bytes(), TagFinder::PythonWalk) {
        Ok(tags) => tags,
        Err(e) => panic!("the parser fails: {e}"),
    }
}

/// The scan either leaves `source` to the parser or finds exactly what it finds; returns
/// whether it scanned.
fn agrees(source: &str) -> bool {
    match scanned(source) {
        Some(tags) => {
            let expected = parsed(source);
            assert_eq!(tags, expected, "source:\n{source}");
            true
        }
        None => false,
    }
}

/// Whether the parser reads `source` without an error. Where it does not, what it recovers
/// is its own guess, which the scan does not try to match.
fn parses_cleanly(source: &str) -> bool {
    let mut parser = tree_sitter::Parser::new();
    let language: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    if parser.set_language(&language).is_err() {
        return false;
    }
    parser
        .parse(source, None)
        .is_some_and(|tree| !tree.root_node().has_error())
}

fn python_files(dir: &Path) -> Vec<PathBuf> {
    ignore::WalkBuilder::new(dir)
        .build()
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "py"))
        .map(|entry| entry.into_path())
        .collect()
}

#[test]
fn agrees_with_the_parser_on_every_python_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `KEEL_PYTHON_CORPUS=DIR` adds a corpus of one's own (Django's sources, say).
    let mut dirs: Vec<PathBuf> = [
        "tests/fixtures/python",
        "../../examples",
        "../tools/benches",
    ]
    .iter()
    .map(|dir| root.join(dir))
    .collect();
    dirs.extend(std::env::var_os("KEEL_PYTHON_CORPUS").map(Into::into));
    let (mut files, mut scanned_files) = (0, 0);
    let mut left = Vec::new();
    for dir in dirs {
        for path in python_files(&dir) {
            let Ok(source) = std::fs::read_to_string(&path) else {
                continue;
            };
            files += 1;
            if agrees(&source) {
                scanned_files += 1;
            } else {
                left.push(path);
            }
        }
    }
    eprintln!("scanned {scanned_files} of {files} Python files; left to the parser: {left:#?}");
    assert!(files > 0, "no Python fixture found");
    assert!(
        scanned_files * 10 >= files * 9,
        "the scan leaves too many files to the parser: {left:#?}"
    );
}

#[test]
fn agrees_with_the_parser_on_the_constructs_it_reads() {
    let source = r#"from __future__ import annotations
import os
from a.b import c, d as e
from . import (f, g,)
# about h
def h(a: int, b: List[str], c: Dict[str, int] = None, *args: T, **kw: K) -> R:
    x = 1
    # trailing in h
# about k, after h
def k(key=lambda a, b: a, *, other: Optional[Q] = None):
    pass

    # indented, after a blank line
x: int
y: Optional[int] = None
Z = {
    'a': 1,
}  # the z
W = compute(
    1)
class A(Base, m.Mixin, metaclass=M):
    # not the doc of m: the first statement of a body has no comment siblings
    def m(self) -> 'A':
        # before the docstring
        """Doc of m.

        More.
        """
        print("x"); print ("y")
        return f"{foo(1)} and {bar!r:>{width()}} {d['k']}"

    # about n
    @dec
    # between decorators
    @pkg.d2(1)
    def n(self): "short doc"; pass
v = a.b.c(d)(e)  # v
def i(): return 1  # not the doc of j
def j(): pass
async def l():
    await z(1)
    async with q() as r:
        pass
class B: pass
class C:
    "Doc" "concatenated"
    if flag:
        def inside(): pass
    else:
        LIMIT = 3
try:
    import foo
except ImportError:
    def foo(): pass
finally:
    cleanup()
NAME = 'x'; OTHER = 2
s = '''def fake(): pass'''
t = x \
    + y()
@property
def p(): pass
"#;
    assert!(
        agrees(source),
        "the scan left its own constructs to the parser"
    );
}

#[test]
fn leaves_what_it_does_not_read_to_the_parser() {
    for source in [
        "def f[T](x: T) -> T: pass\n",
        "class A[T]: pass\n",
        "match command:\n    case [a]:\n        pass\n",
        "print 'py2'\n",
        "def f():\n\treturn 1\n",
        "def broken(:\n    call()\n",
        "x = (\n",
        "\u{feff}def f(): g()",
        "def f():\n# too far left\n    pass\n",
        "@dec\nx = 1\n",
        "s = 'unterminated\n",
    ] {
        assert!(scanned(source).is_none(), "scanned: {source}");
    }
}

/// Lines the generated sources are made of: every construct the scan reads, nested by
/// indentation, sometimes cut off or out of place.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("def f(a: int, b: T = g(), *c: L[int]) -> R:".to_owned()),
        Just("async def g(k=lambda a, b: a):".to_owned()),
        Just("class C(B, m.D, metaclass=M):".to_owned()),
        Just("class E: pass".to_owned()),
        Just("@dec".to_owned()),
        Just("@pkg.dec(1)".to_owned()),
        Just("# a comment".to_owned()),
        Just(r#""""Doc.""""#.to_owned()),
        Just("'doc' 'more'".to_owned()),
        Just("call(x)  # trailing".to_owned()),
        Just("a.b.c(d)(e)".to_owned()),
        Just("NAME = value()".to_owned()),
        Just("v: List[int] = []; w = 2".to_owned()),
        Just("from p.q import r, s as t".to_owned()),
        Just("if x:".to_owned()),
        Just("else:".to_owned()),
        Just("try:".to_owned()),
        Just("except E as e:".to_owned()),
        Just("return f'{h(1)!r:>{k()}}'".to_owned()),
        Just("pass".to_owned()),
        Just("x = (".to_owned()),
        Just(")".to_owned()),
        Just(String::new()),
        "[a-z(). :=@#'\"\\\\]{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn agrees_with_the_parser_on_generated_sources(
        lines in proptest::collection::vec((0usize..3, fragment()), 0..24)
    ) {
        let source: String = lines
            .iter()
            .map(|(indent, line)| format!("{}{line}\n", "    ".repeat(*indent)))
            .collect();
        if parses_cleanly(&source) {
            agrees(&source);
        } else {
            // Only that it does not panic.
            let _ = scanned(&source);
        }
    }
}
