//! What the model sees each turn: the conversation, the focused files, long-term memory, token
//! budgets, and the repository map ([`repomap`]), assembled into provider-agnostic messages.

pub use keel_repomap as repomap;
