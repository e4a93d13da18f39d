use keel_index::{ChunkKind, chunk_file};

#[test]
fn markdown_sections_follow_headings() {
    let text = "intro\n\n# Title\ntext\n## Sub\nmore\n```\n# not a heading\n```\n";
    let chunks = chunk_file("README.md", text, None);
    let spans: Vec<(u32, u32, &str)> = chunks
        .iter()
        .map(|c| (c.start_line, c.end_line, c.symbol.as_str()))
        .collect();
    assert_eq!(
        spans,
        vec![(1, 2, ""), (3, 4, "Title"), (5, 9, "Title Sub")]
    );
    assert!(chunks.iter().all(|c| c.kind == ChunkKind::Section));
}

/// Chunks of `text` saved as `name`, cut by the repo map's tags.
fn code_chunks(name: &str, text: &str) -> Vec<keel_index::Chunk> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let tags = keel_repomap::parse_file(&path).unwrap().unwrap();
    chunk_file(name, text, Some(&tags))
}

#[test]
fn a_module_docstring_is_the_first_chunks_doc() {
    let python = "#!/usr/bin/env python\n\"\"\"\nApplication Dispatcher\n======================\n\nDispatches to WSGI applications\nmounted at URL paths.\n\"\"\"\nimport os\n\n\ndef mount():\n    \"\"\"Mounts.\"\"\"\n";
    let chunks = code_chunks("dispatcher.py", python);
    assert_eq!(chunks[0].kind, ChunkKind::Module);
    assert_eq!(
        chunks[0].doc,
        "Application Dispatcher ====================== Dispatches to WSGI applications mounted at URL paths."
    );
    assert_eq!(chunks[1].symbol, "mount");

    let one_line = code_chunks(
        "one.py",
        "'''Reloads on change.'''\n\ndef run():\n    pass\n",
    );
    assert_eq!(one_line[0].doc, "Reloads on change.");

    let rust = "//! Search by meaning.\n//!\n//! Over a tantivy index.\n\nuse std::fmt;\n\npub fn search() {}\n";
    let chunks = code_chunks("lib.rs", rust);
    assert_eq!(chunks[0].doc, "Search by meaning. Over a tantivy index.");

    // Code before the first definition without a doc of its own has none.
    let chunks = code_chunks(
        "plain.py",
        "import os\n# setup\nX = 1\n\ndef f():\n    pass\n",
    );
    assert_eq!(chunks[0].kind, ChunkKind::Module);
    assert_eq!(chunks[0].doc, "");
}
