//! A file's own document beside its chunks: its path, the names it defines, its doc comments
//! and its text as one field, so that a file whose words are spread over many chunks is
//! found as a whole (the chunks then say where in it to look).

use tantivy::TantivyDocument;

use crate::chunk::Chunk;
use crate::schema::Fields;

/// The `kind` of a file's own document.
pub const FILE_KIND: &str = "file";

/// The text of `path`'s own document: its path, its chunks' names and doc comments, and the
/// whole text; empty for a file without chunks.
pub fn file_text(path: &str, text: &str, chunks: &[Chunk]) -> String {
    if chunks.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(text.len() + path.len() + 256);
    out.push_str(path);
    out.push('\n');
    for chunk in chunks {
        if !chunk.symbol.is_empty() {
            out.push_str(&chunk.symbol);
            out.push('\n');
        }
        if !chunk.doc.is_empty() {
            out.push_str(&chunk.doc);
            out.push('\n');
        }
    }
    out.push_str(text);
    out
}

/// The document for `path` with `whole` as its text; none for a file without chunks.
pub fn document(
    fields: &Fields,
    path: &str,
    chunks: &[Chunk],
    whole: &str,
) -> Option<TantivyDocument> {
    let (first, last) = (chunks.first()?, chunks.last()?);
    if whole.is_empty() {
        return None;
    }
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, path);
    doc.add_text(fields.kind, FILE_KIND);
    doc.add_u64(fields.start, u64::from(first.start_line));
    doc.add_u64(fields.end, u64::from(last.end_line));
    doc.add_text(fields.file_text, whole);
    Some(doc)
}
