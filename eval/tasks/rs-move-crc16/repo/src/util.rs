//! Small helpers used by the frame codec.

/// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no xor-out).
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0xFFFF;
    for &byte in data {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

/// Lower-case hex dump without separators.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Big-endian `u16` at `bytes[at..at + 2]`, if there are enough bytes.
pub fn read_u16_be(bytes: &[u8], at: usize) -> Option<u16> {
    let hi = *bytes.get(at)?;
    let lo = *bytes.get(at + 1)?;
    Some(u16::from_be_bytes([hi, lo]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_check_value() {
        assert_eq!(crc16(b"123456789"), 0x29B1);
    }

    #[test]
    fn hex() {
        assert_eq!(to_hex(&[0, 0xab, 0x10]), "00ab10");
    }
}
