//! Extracting definitions and references from one file: tags found by the language's tags
//! query (or, for Python, by an equivalent walk of the tree, checked against the query), then
//! collected into definitions with signatures, docs and nesting, and reference counts. A Python
//! file is first scanned without parsing (`python_scan`), which finds the same tags or gives
//! the file back to the parser.

use std::cell::RefCell;
use std::collections::HashMap;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Parser, Query, QueryCursor, Tree};

use crate::error::RepoMapError;
use crate::language::Language;
use crate::signature::{doc_from_comments, docstring_first_line, signature_text};
use crate::symbol::{FileTags, Symbol, SymbolKind};

mod python;
mod python_scan;

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// A definition before nesting is worked out.
struct RawDef {
    kind: SymbolKind,
    name: String,
    signature: String,
    doc: Option<String>,
    start_byte: usize,
    end_byte: usize,
    start_line: u32,
    end_line: u32,
}

/// Reads `source` as `language` and returns its definitions and references.
pub fn extract(language: Language, source: &[u8]) -> Result<FileTags, RepoMapError> {
    if language == Language::Python
        && let Some((defs, references)) = python_scan::scan(source)
    {
        return Ok(file_tags(language, defs, references));
    }
    let finder = if language == Language::Python {
        TagFinder::PythonWalk
    } else {
        TagFinder::Query
    };
    extract_with(language, source, finder)
}

/// How a file's tags are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagFinder {
    /// The language's tags query.
    Query,
    /// One walk of a Python tree matching the Python query's patterns by hand: the query
    /// engine costs more than parsing's remaining share of a cold map, and Python is the most
    /// common language mapped.
    PythonWalk,
}

fn extract_with(
    language: Language,
    source: &[u8],
    finder: TagFinder,
) -> Result<FileTags, RepoMapError> {
    let tree = PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser
            .set_language(&language.grammar())
            .map_err(|e| RepoMapError::Grammar {
                language: language.name(),
                message: e.to_string(),
            })?;
        Ok::<_, RepoMapError>(parser.parse(source, None))
    })?;
    let Some(tree) = tree else {
        return Ok(FileTags {
            language,
            symbols: Vec::new(),
            references: Vec::new(),
        });
    };

    let mut tags = TagCollector::new(language, source);
    match finder {
        TagFinder::PythonWalk => python::tags(&tree, |tag| tags.add(tag)),
        TagFinder::Query => query_tags(language.tags_query()?, &tree, source, |tag| tags.add(tag)),
    }
    Ok(tags.finish())
}

/// One capture pair of a tags query: the name and the node it names, with the tag's kind
/// (`function`, `call`, …) and whether it defines or refers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tag<'tree> {
    pub name: Node<'tree>,
    pub node: Node<'tree>,
    pub kind: &'static str,
    pub definition: bool,
}

/// Runs `query` over `tree` and hands each match that names a tag to `found`.
fn query_tags<'tree>(
    query: &'static Query,
    tree: &'tree Tree,
    source: &[u8],
    mut found: impl FnMut(Tag<'tree>),
) {
    let capture_names = query.capture_names();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), source);
    while let Some(m) = matches.next() {
        let mut name = None;
        let mut tag: Option<(Node, &'static str, bool)> = None;
        for capture in m.captures {
            let capture_name = capture_names
                .get(capture.index as usize)
                .copied()
                .unwrap_or("");
            if capture_name == "name" {
                name = Some(capture.node);
            } else if let Some(kind) = capture_name.strip_prefix("definition.") {
                tag = Some((capture.node, kind, true));
            } else if let Some(kind) = capture_name.strip_prefix("reference.") {
                tag = Some((capture.node, kind, false));
            }
        }
        if let (Some(name), Some((node, kind, definition))) = (name, tag) {
            found(Tag {
                name,
                node,
                kind,
                definition,
            });
        }
    }
}

/// Turns tags into a file's definitions (with signatures, docs and nesting) and reference
/// counts.
struct TagCollector<'source> {
    language: Language,
    source: &'source [u8],
    defs: Vec<RawDef>,
    seen: HashMap<(usize, String), usize>,
    references: HashMap<&'source str, u32>,
}

impl<'source> TagCollector<'source> {
    fn new(language: Language, source: &'source [u8]) -> Self {
        Self {
            language,
            source,
            defs: Vec::new(),
            seen: HashMap::new(),
            references: HashMap::new(),
        }
    }

    fn add(&mut self, tag: Tag) {
        let source = self.source;
        let Ok(name) = tag.name.utf8_text(source) else {
            return;
        };
        if name.is_empty() {
            return;
        }
        if !tag.definition {
            *self.references.entry(name).or_insert(0) += 1;
            return;
        }
        let node = tag.node;
        let Some(kind) = definition_kind(tag.kind, node) else {
            // A type used, not defined (`struct foo *p;`): count it as a reference.
            *self.references.entry(name).or_insert(0) += 1;
            return;
        };
        let range = range_node(node);
        let key = (range.start_byte(), name.to_owned());
        if let Some(&index) = self.seen.get(&key) {
            // Two patterns matched one definition: keep the more specific kind.
            if kind == SymbolKind::Method
                && let Some(existing) = self.defs.get_mut(index)
            {
                existing.kind = SymbolKind::Method;
            }
            return;
        }
        let doc = if self.language == Language::Python {
            docstring_first_line(node, source).or_else(|| doc_from_comments(range, source))
        } else {
            doc_from_comments(range, source)
        };
        let start = range.start_position();
        let end = range.end_position();
        let end_row = if end.column == 0 && end.row > start.row {
            end.row - 1
        } else {
            end.row
        };
        self.seen.insert(key, self.defs.len());
        self.defs.push(RawDef {
            kind,
            name: name.to_owned(),
            signature: signature_text(range, node, name, source),
            doc,
            start_byte: range.start_byte(),
            end_byte: range.end_byte(),
            start_line: u32::try_from(start.row + 1).unwrap_or(u32::MAX),
            end_line: u32::try_from(end_row + 1).unwrap_or(u32::MAX),
        });
    }

    fn finish(self) -> FileTags {
        file_tags(self.language, self.defs, self.references)
    }
}

/// A file's tags from its definitions and reference counts.
fn file_tags(language: Language, defs: Vec<RawDef>, references: HashMap<&str, u32>) -> FileTags {
    let symbols = nest(language, defs);
    let mut references: Vec<(String, u32)> = references
        .into_iter()
        .map(|(name, count)| (name.to_owned(), count))
        .collect();
    references.sort_unstable();
    FileTags {
        language,
        symbols,
        references,
    }
}

/// The symbol kind for a `@definition.<tag>` capture on `node`, or `None` when the node is a
/// use rather than a definition (a C struct named without a body).
fn definition_kind(tag: &str, node: Node) -> Option<SymbolKind> {
    let node_kind = node.kind();
    if matches!(
        node_kind,
        "struct_specifier" | "enum_specifier" | "class_specifier" | "union_specifier"
    ) && node.child_by_field_name("body").is_none()
    {
        return None;
    }
    Some(match tag {
        "function" => SymbolKind::Function,
        "method" => SymbolKind::Method,
        "interface" => match node_kind {
            "trait_item" => SymbolKind::Trait,
            _ => SymbolKind::Interface,
        },
        "module" => SymbolKind::Module,
        "macro" => SymbolKind::Macro,
        "constant" => SymbolKind::Constant,
        "enum" => SymbolKind::Enum,
        "impl" => SymbolKind::Impl,
        "type" => match node_kind {
            "enum_specifier" => SymbolKind::Enum,
            "type_spec" => match node.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => SymbolKind::Struct,
                Some("interface_type") => SymbolKind::Interface,
                _ => SymbolKind::Type,
            },
            _ => SymbolKind::Type,
        },
        _ => match node_kind {
            "struct_item" | "struct_specifier" => SymbolKind::Struct,
            "enum_item" => SymbolKind::Enum,
            "type_item" => SymbolKind::Type,
            _ => SymbolKind::Class,
        },
    })
}

/// The node whose lines a definition spans: the whole C function for its declarator, the
/// whole `const f = () => …` statement for its declarator, the `export` around a declaration.
fn range_node(node: Node) -> Node {
    let mut range = node;
    match node.kind() {
        "function_declarator" => {
            while let Some(parent) = range.parent() {
                match parent.kind() {
                    "pointer_declarator" | "reference_declarator" | "function_declarator" => {
                        range = parent;
                    }
                    "function_definition" | "declaration" | "field_declaration" => {
                        range = parent;
                        break;
                    }
                    _ => break,
                }
            }
            if let Some(parent) = range.parent()
                && parent.kind() == "template_declaration"
            {
                range = parent;
            }
        }
        "variable_declarator" => {
            if let Some(parent) = range.parent()
                && matches!(
                    parent.kind(),
                    "lexical_declaration" | "variable_declaration"
                )
                && parent.named_child_count() == 1
            {
                range = parent;
            }
        }
        "type_spec" => {
            if let Some(parent) = range.parent()
                && parent.kind() == "type_declaration"
                && parent.named_child_count() == 1
            {
                range = parent;
            }
        }
        _ => {}
    }
    if let Some(parent) = range.parent()
        && parent.kind() == "export_statement"
    {
        range = parent;
    }
    range
}

/// Sorts definitions, works out how deeply each is nested, and turns functions directly
/// inside classes, impls, traits and interfaces into methods.
fn nest(language: Language, mut defs: Vec<RawDef>) -> Vec<Symbol> {
    defs.sort_by(|a, b| {
        a.start_byte
            .cmp(&b.start_byte)
            .then(b.end_byte.cmp(&a.end_byte))
    });
    let mut stack: Vec<(usize, SymbolKind)> = Vec::new();
    let mut symbols = Vec::with_capacity(defs.len());
    for def in defs {
        while stack.last().is_some_and(|&(end, _)| end <= def.start_byte) {
            stack.pop();
        }
        let container = stack.last().map(|&(_, kind)| kind);
        let mut kind = def.kind;
        let in_type = container.is_some_and(SymbolKind::holds_methods);
        if kind == SymbolKind::Function && in_type {
            kind = SymbolKind::Method;
        } else if kind == SymbolKind::Method && language == Language::Rust && !in_type {
            // The bundled Rust query calls every function in a `{ … }` list a method,
            // including those in inline modules.
            kind = SymbolKind::Function;
        }
        let depth = u8::try_from(stack.len()).unwrap_or(u8::MAX);
        stack.push((def.end_byte, kind));
        symbols.push(Symbol {
            kind,
            name: def.name,
            signature: def.signature,
            start_line: def.start_line,
            end_line: def.end_line,
            doc: def.doc,
            depth,
        });
    }
    symbols
}
