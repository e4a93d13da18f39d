//! Frame encoding and decoding.

use crate::util::{crc16, read_u16_be};
use std::fmt;

/// First byte of every frame.
pub const MAGIC: u8 = 0x7E;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    TooLong(usize),
    Truncated,
    BadMagic(u8),
    BadChecksum { expected: u16, found: u16 },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::TooLong(n) => write!(f, "payload of {n} bytes is too long"),
            FrameError::Truncated => write!(f, "frame is truncated"),
            FrameError::BadMagic(b) => write!(f, "bad magic byte {b:#04x}"),
            FrameError::BadChecksum { expected, found } => {
                write!(
                    f,
                    "checksum mismatch: expected {expected:#06x}, found {found:#06x}"
                )
            }
        }
    }
}

impl std::error::Error for FrameError {}

/// Encode `payload` as a frame.
pub fn encode(payload: &[u8]) -> Result<Vec<u8>, FrameError> {
    let len = u16::try_from(payload.len()).map_err(|_| FrameError::TooLong(payload.len()))?;
    let mut out = Vec::with_capacity(payload.len() + 5);
    out.push(MAGIC);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&crc16(payload).to_be_bytes());
    Ok(out)
}

/// Decode one frame, returning its payload.
pub fn decode(frame: &[u8]) -> Result<Vec<u8>, FrameError> {
    let magic = *frame.first().ok_or(FrameError::Truncated)?;
    if magic != MAGIC {
        return Err(FrameError::BadMagic(magic));
    }
    let len = usize::from(read_u16_be(frame, 1).ok_or(FrameError::Truncated)?);
    let payload = frame.get(3..3 + len).ok_or(FrameError::Truncated)?;
    let found = read_u16_be(frame, 3 + len).ok_or(FrameError::Truncated)?;
    let expected = crc16(payload);
    if found != expected {
        return Err(FrameError::BadChecksum { expected, found });
    }
    Ok(payload.to_vec())
}
