//! Length-prefixed frames with a CRC-16 trailer.

pub mod frame;
pub mod util;

pub use frame::{decode, encode, FrameError, MAGIC};
