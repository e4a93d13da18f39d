//! The whole-file BM25 baseline the evaluation compares against: one document per file, no
//! structure, weights or prior; tantivy's default tokenizer or the index's code-aware one.

use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::QueryParser;
use tantivy::schema::{
    IndexRecordOption, STORED, STRING, Schema, TEXT, TantivyDocument, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::{Index, IndexReader, IndexWriter};

use crate::error::IndexError;
use crate::files;
use crate::tokenize::{CODE_TOKENIZER, code_analyzer};

/// How the baseline splits text into terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaselineTokenizer {
    /// tantivy's default: words at non-alphanumerics, lower-cased, no stop words or stemming.
    Default,
    /// The index's code-aware analyzer (identifier parts, English stop words, stemming), for
    /// queries too.
    Code,
}

/// A whole-file BM25 index of a root, in memory.
pub struct WholeFileBaseline {
    index: Index,
    reader: IndexReader,
    parser: QueryParser,
    path: tantivy::schema::Field,
}

impl std::fmt::Debug for WholeFileBaseline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WholeFileBaseline").finish_non_exhaustive()
    }
}

fn tantivy(root: &Path) -> impl FnOnce(tantivy::TantivyError) -> IndexError + '_ {
    move |source| IndexError::Tantivy {
        path: root.to_path_buf(),
        source,
    }
}

impl WholeFileBaseline {
    /// Indexes every text file under `root` no larger than `max_file_bytes` with tantivy's
    /// default tokenizer.
    pub fn build(root: &Path, max_file_bytes: u64) -> Result<Self, IndexError> {
        Self::build_with(root, max_file_bytes, BaselineTokenizer::Default)
    }

    /// Indexes every text file under `root` no larger than `max_file_bytes`, split by
    /// `tokenizer`.
    pub fn build_with(
        root: &Path,
        max_file_bytes: u64,
        tokenizer: BaselineTokenizer,
    ) -> Result<Self, IndexError> {
        let mut builder = Schema::builder();
        let path = builder.add_text_field("path", STRING | STORED);
        let body = match tokenizer {
            BaselineTokenizer::Default => builder.add_text_field("body", TEXT),
            BaselineTokenizer::Code => builder.add_text_field(
                "body",
                TextOptions::default().set_indexing_options(
                    TextFieldIndexing::default()
                        .set_tokenizer(CODE_TOKENIZER)
                        .set_index_option(IndexRecordOption::WithFreqsAndPositions),
                ),
            ),
        };
        let index = Index::create_in_ram(builder.build());
        index.tokenizers().register(CODE_TOKENIZER, code_analyzer());
        let mut writer: IndexWriter<TantivyDocument> = index
            .writer_with_num_threads(1, 64 * 1024 * 1024)
            .map_err(tantivy(root))?;
        for file in files::walk(root) {
            let Ok(text) = files::read_text(&file, max_file_bytes) else {
                continue;
            };
            let mut doc = TantivyDocument::default();
            doc.add_text(path, &file.rel);
            doc.add_text(body, &text);
            writer.add_document(doc).map_err(tantivy(root))?;
        }
        writer.commit().map_err(tantivy(root))?;
        let reader = index.reader().map_err(tantivy(root))?;
        let parser = QueryParser::for_index(&index, vec![body]);
        Ok(Self {
            index,
            reader,
            parser,
            path,
        })
    }

    /// The `limit` best files for `query`, best first.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<String>, IndexError> {
        let (query, _) = self.parser.parse_query_lenient(query);
        let searcher = self.reader.searcher();
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit.max(1)).order_by_score())
            .map_err(|source| IndexError::Tantivy {
                path: std::path::PathBuf::from(format!("{:?}", self.index.directory())),
                source,
            })?;
        let mut paths = Vec::new();
        for (_, address) in top {
            let doc: TantivyDocument =
                searcher
                    .doc(address)
                    .map_err(|source| IndexError::Tantivy {
                        path: std::path::PathBuf::new(),
                        source,
                    })?;
            if let Some(p) = doc.get_first(self.path).and_then(|v| v.as_str()) {
                paths.push(p.to_owned());
            }
        }
        Ok(paths)
    }
}
