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
