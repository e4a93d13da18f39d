//! The tantivy schema of a chunk and the analyzer registration every index gets.

use tantivy::Index;
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use crate::tokenize::{CODE_TOKENIZER, code_analyzer};

/// The fields of a chunk document.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// The path, raw (for deletes and results).
    pub path: Field,
    /// The path, tokenised (directory and file names are words).
    pub path_text: Field,
    /// Symbol names or heading path.
    pub symbol: Field,
    /// Doc comment.
    pub doc: Field,
    /// The chunk's text.
    pub body: Field,
    /// First line.
    pub start: Field,
    /// Last line.
    pub end: Field,
    /// Chunk kind name (`file` for a file's own document).
    pub kind: Field,
    /// A file's own document only: its path, names, doc comments and text, as one field
    /// (not stored).
    pub file_text: Field,
}

fn analyzed(stored: bool) -> TextOptions {
    let options = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(CODE_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    if stored {
        options.set_stored()
    } else {
        options
    }
}

/// The schema and its fields.
pub fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED),
        path_text: builder.add_text_field("path_text", analyzed(false)),
        symbol: builder.add_text_field("symbol", analyzed(true)),
        doc: builder.add_text_field("doc", analyzed(true)),
        body: builder.add_text_field("body", analyzed(true)),
        start: builder.add_u64_field("start", STORED | INDEXED),
        end: builder.add_u64_field("end", STORED),
        kind: builder.add_text_field("kind", STRING | STORED),
        file_text: builder.add_text_field("file_text", analyzed(false)),
    };
    (builder.build(), fields)
}

/// Registers the code analyzer on `index`.
pub fn register(index: &Index) {
    index.tokenizers().register(CODE_TOKENIZER, code_analyzer());
}
