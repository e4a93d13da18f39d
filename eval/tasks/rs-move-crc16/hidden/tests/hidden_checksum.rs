use framing::checksum::crc16;
use framing::util::read_u16_be;

#[test]
fn check_values() {
    assert_eq!(crc16(b"123456789"), 0x29B1);
    assert_eq!(crc16(b""), 0xFFFF);
    assert_eq!(crc16(b"A"), 0xB915);
}

#[test]
fn frame_trailer_is_the_checksum() {
    let frame = framing::encode(b"payload").unwrap();
    assert_eq!(
        read_u16_be(&frame, frame.len() - 2),
        Some(crc16(b"payload"))
    );
}
