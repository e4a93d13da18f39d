//! Checking that bytes are a PNG: the signature and the `IHDR` chunk's width and height.

/// What the PNG header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PngInfo {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// The eight bytes every PNG starts with.
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// The PNG's dimensions, or why `bytes` are not a PNG.
pub fn png_info(bytes: &[u8]) -> Result<PngInfo, String> {
    if bytes.len() < 8 || bytes[..8] != SIGNATURE {
        let start: String = bytes
            .iter()
            .take(16)
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        return Err(format!(
            "{} bytes starting `{start}`, not the PNG signature",
            bytes.len()
        ));
    }
    // Length (4), type `IHDR` (4), width (4), height (4).
    let header = bytes
        .get(8..24)
        .ok_or("the PNG ends before its IHDR header")?;
    if &header[4..8] != b"IHDR" {
        return Err("the PNG's first chunk is not IHDR".to_owned());
    }
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let info = PngInfo {
        width: be(&header[8..12]),
        height: be(&header[12..16]),
    };
    if info.width == 0 || info.height == 0 {
        return Err("the PNG's IHDR gives a zero width or height".to_owned());
    }
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_header_and_refuses_other_bytes() {
        let mut png = SIGNATURE.to_vec();
        png.extend_from_slice(&13u32.to_be_bytes());
        png.extend_from_slice(b"IHDR");
        png.extend_from_slice(&3u32.to_be_bytes());
        png.extend_from_slice(&2u32.to_be_bytes());
        assert_eq!(
            png_info(&png),
            Ok(PngInfo {
                width: 3,
                height: 2
            })
        );
        let err = png_info(b"\xff\xd8\xff\xe0JFIF").unwrap_err();
        assert!(err.contains("not the PNG signature"), "{err}");
        assert!(png_info(&SIGNATURE).is_err());
    }
}
