//! Projections of the event stream into other wire formats. Each is a pure function of one
//! event (or, for the window, of the records pushed so far).
//!
//! - [`legacy`]: seed 000's v1 flat dicts (`plan_created`, `tool_result`, `token`, …).
//! - [`timeline`]: seed 003's Activity Timeline records ([`TimelineEvent`], camelCase), and
//!   [`AgentEventRow`], their `agent_events` table row.
//! - [`paths`]: seed 004's `/agent/edit/…` event paths, and [`seed_payload`] the shapes of what
//!   AutoCoder's events under them carry.
//! - [`phase_order`]: the phase order the timeline keeps, checked.
//! - [`log_line`]: seed 003 §8's legacy log lines read as timeline payloads, and
//!   [`log_import`], a whole log file read as the catalogue events that stand for them.
//! - [`wire_format`]: the choice among the catalogue, v1 and paths formats for a stream.
//! - [`window`]: seed 003 §7.3's 100-record timeline window that never halves a move.

pub mod agent_event_row;
pub mod legacy;
pub mod log_import;
pub mod log_line;
pub mod paths;
pub mod phase_order;
pub mod seed_payload;
pub mod timeline;
pub mod timeline_event;
pub mod window;
pub mod wire_format;

pub use agent_event_row::{AgentEventRow, RowError};
pub use legacy::to_legacy;
pub use log_import::{BadLine, LogImport, MAX_LINE_BYTES, line_event, read_log};
pub use log_line::parse_log_line;
pub use paths::{EVENT_PATHS, event_path, kind_path};
pub use phase_order::phase_order_violations;
pub use seed_payload::{seed_payload, tool_xml};
pub use timeline::{MOVE_FILE_TOOL, to_timeline, to_timeline_all};
pub use timeline_event::*;
pub use window::{MoveHalf, TimelineWindow, WINDOW_CAPACITY, move_half};
pub use wire_format::{UnknownFormat, WireEvent, WireFormat};
