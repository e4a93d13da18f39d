//! One struct per catalogue payload, grouped by phase and domain.
//!
//! Field rules (DESIGN §2): snake_case names, optional fields omitted when absent, enum values
//! snake_case strings, errors under `error`, file lists under `files_changed`.

mod agent;
mod checkpoint;
mod context;
mod diagnostics;
mod exec;
mod file;
mod hook;
mod interaction;
mod llm;
mod memory;
mod plan;
mod prepare;
mod shared;
mod subagent;
mod system;
mod tool;

pub use agent::*;
pub use checkpoint::*;
pub use context::*;
pub use diagnostics::*;
pub use exec::*;
pub use file::*;
pub use hook::*;
pub use interaction::*;
pub use llm::*;
pub use memory::*;
pub use plan::*;
pub use prepare::*;
pub use shared::*;
pub use subagent::*;
pub use system::*;
pub use tool::*;
