use framing::checksum::crc16;
use framing::util::to_hex;
use framing::{decode, encode, FrameError};

#[test]
fn round_trip() {
    let frame = encode(b"hello").unwrap();
    assert_eq!(
        to_hex(&frame),
        format!("7e000568656c6c6f{:04x}", crc16(b"hello"))
    );
    assert_eq!(decode(&frame).unwrap(), b"hello");
}

#[test]
fn corrupted() {
    let mut frame = encode(b"abc").unwrap();
    frame[3] ^= 1;
    assert!(matches!(
        decode(&frame),
        Err(FrameError::BadChecksum { .. })
    ));
    assert_eq!(decode(&frame[..4]), Err(FrameError::Truncated));
}
