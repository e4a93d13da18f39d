//! The repository map (after Aider): tree-sitter definitions and references for many languages,
//! files ranked by PageRank over the reference graph, rendered to fit a token budget.
