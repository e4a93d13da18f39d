//! Images given to the model: PNG, JPEG, GIF or WebP, recognised by their bytes (never by a
//! name's extension alone), at most [`MAX_IMAGE_BYTES`], carried as base64 so a conversation
//! holding one serialises as JSON. Every error names the file.

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

/// The largest image accepted: 10 MiB (10,485,760 bytes), decoded. OpenAI, Anthropic and
/// Gemini all take images of this size; a bigger one is refused, not shrunk.
pub const MAX_IMAGE_BYTES: u64 = 10 * 1024 * 1024;

/// The image formats a vision model is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ImageType {
    /// `image/png`.
    #[serde(rename = "image/png")]
    Png,
    /// `image/jpeg`.
    #[serde(rename = "image/jpeg")]
    Jpeg,
    /// `image/gif`.
    #[serde(rename = "image/gif")]
    Gif,
    /// `image/webp`.
    #[serde(rename = "image/webp")]
    Webp,
}

impl ImageType {
    /// The media type (`image/png`, …).
    pub fn media_type(self) -> &'static str {
        match self {
            ImageType::Png => "image/png",
            ImageType::Jpeg => "image/jpeg",
            ImageType::Gif => "image/gif",
            ImageType::Webp => "image/webp",
        }
    }

    /// The format's name for people (`PNG`, …).
    pub fn name(self) -> &'static str {
        match self {
            ImageType::Png => "PNG",
            ImageType::Jpeg => "JPEG",
            ImageType::Gif => "GIF",
            ImageType::Webp => "WebP",
        }
    }

    /// The format `bytes` are in, from their signature.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageType::Png)
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            Some(ImageType::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageType::Gif)
        } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
            Some(ImageType::Webp)
        } else {
            None
        }
    }

    /// The format a file name's extension promises (`.png`, `.jpg`, `.jpeg`, `.gif`,
    /// `.webp`, any case): what makes a word of a chat line an image path worth checking.
    pub fn from_extension(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ImageType::Png),
            "jpg" | "jpeg" => Some(ImageType::Jpeg),
            "gif" => Some(ImageType::Gif),
            "webp" => Some(ImageType::Webp),
            _ => None,
        }
    }
}

/// Why an image was refused; each names the image.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// No file at that path.
    #[error("{name}: no such file")]
    Missing {
        /// The path as given.
        name: String,
    },
    /// The file exists but could not be read (a folder, no permission, …).
    #[error("{name}: cannot read it ({reason})")]
    Unreadable {
        /// The path as given.
        name: String,
        /// What went wrong.
        reason: String,
    },
    /// The bytes are no PNG, JPEG, GIF or WebP.
    #[error("{name} is not a PNG, JPEG, GIF or WebP image ({what})")]
    NotAnImage {
        /// The image's name.
        name: String,
        /// What its bytes look like instead.
        what: String,
    },
    /// Over [`MAX_IMAGE_BYTES`].
    #[error("{name} is {size} bytes; images may be at most {MAX_IMAGE_BYTES} bytes (10 MiB)")]
    TooLarge {
        /// The image's name.
        name: String,
        /// Its size in bytes.
        size: u64,
    },
    /// Base64 data that does not decode.
    #[error("{name}: the image data is not valid base64 ({reason})")]
    BadBase64 {
        /// The image's name.
        name: String,
        /// The decoder's complaint.
        reason: String,
    },
}

/// An image for the model: its name, its format (from its bytes) and the bytes in base64.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// The file's name or path as given, or what the front end called it (`image 1`).
    pub name: String,
    /// The format, sniffed from the bytes.
    pub media_type: ImageType,
    /// The bytes, standard base64 with padding.
    pub data: String,
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("name", &self.name)
            .field("media_type", &self.media_type)
            .field("size", &self.size())
            .finish()
    }
}

impl Image {
    /// `bytes` as an image named `name`: refused when they are no PNG, JPEG, GIF or WebP, or
    /// over [`MAX_IMAGE_BYTES`].
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> Result<Self, ImageError> {
        let name = name.into();
        if bytes.len() as u64 > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge {
                name,
                size: bytes.len() as u64,
            });
        }
        let Some(media_type) = ImageType::sniff(bytes) else {
            return Err(ImageError::NotAnImage {
                what: describe(bytes),
                name,
            });
        };
        Ok(Self {
            name,
            media_type,
            data: STANDARD.encode(bytes),
        })
    }

    /// Base64 `data` (a `data:…;base64,` prefix and whitespace allowed) as an image named
    /// `name`. The format is read from the decoded bytes; a type the sender declared is not
    /// trusted.
    pub fn from_base64(name: impl Into<String>, data: &str) -> Result<Self, ImageError> {
        let name = name.into();
        let data = match data.split_once(";base64,") {
            Some((head, rest)) if head.starts_with("data:") => rest,
            _ => data,
        };
        let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        let decoded_at_least = (data.len() as u64 / 4) * 3;
        if decoded_at_least > MAX_IMAGE_BYTES + 3 {
            return Err(ImageError::TooLarge {
                name,
                size: decoded_at_least,
            });
        }
        match STANDARD.decode(data.as_bytes()) {
            Ok(bytes) => Self::from_bytes(name, &bytes),
            Err(e) => Err(ImageError::BadBase64 {
                name,
                reason: e.to_string(),
            }),
        }
    }

    /// The image file at `path`, named by the path as given; its size is checked before it is
    /// read.
    pub fn read(path: &Path) -> Result<Self, ImageError> {
        let name = path.display().to_string();
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ImageError::Missing { name });
            }
            Err(e) => {
                return Err(ImageError::Unreadable {
                    name,
                    reason: e.to_string(),
                });
            }
        };
        if meta.is_dir() {
            return Err(ImageError::Unreadable {
                name,
                reason: "it is a folder".to_owned(),
            });
        }
        if meta.len() > MAX_IMAGE_BYTES {
            return Err(ImageError::TooLarge {
                name,
                size: meta.len(),
            });
        }
        match std::fs::read(path) {
            Ok(bytes) => Self::from_bytes(name, &bytes),
            Err(e) => Err(ImageError::Unreadable {
                name,
                reason: e.to_string(),
            }),
        }
    }

    /// The decoded size in bytes.
    pub fn size(&self) -> u64 {
        let padding = self.data.bytes().rev().take_while(|b| *b == b'=').count() as u64;
        (self.data.len() as u64 / 4 * 3).saturating_sub(padding)
    }

    /// The image as a `data:` URL (what OpenAI's `image_url` parts take).
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type.media_type(), self.data)
    }

    /// What the events record of it: name, type and size.
    pub fn info(&self) -> keel_events::ImageInfo {
        keel_events::ImageInfo {
            name: self.name.clone(),
            media_type: self.media_type.media_type().to_owned(),
            size: self.size(),
        }
    }
}

/// Width and height in pixels, read from the header of a PNG, GIF, WebP or JPEG (the first
/// frame marker); `None` for anything else or a header cut short.
pub fn image_dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    let be16 = |at: usize| -> Option<u32> {
        Some(u32::from(u16::from_be_bytes([
            *bytes.get(at)?,
            *bytes.get(at + 1)?,
        ])))
    };
    let le16 = |at: usize| -> Option<u32> {
        Some(u32::from(u16::from_le_bytes([
            *bytes.get(at)?,
            *bytes.get(at + 1)?,
        ])))
    };
    let le24 = |at: usize| -> Option<u32> {
        Some(
            u32::from(*bytes.get(at)?)
                | u32::from(*bytes.get(at + 1)?) << 8
                | u32::from(*bytes.get(at + 2)?) << 16,
        )
    };
    match ImageType::sniff(bytes)? {
        ImageType::Png => {
            let be32 = |at: usize| -> Option<u32> {
                Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
            };
            (bytes.get(12..16)? == b"IHDR").then_some(())?;
            Some((be32(16)?, be32(20)?))
        }
        ImageType::Gif => Some((le16(6)?, le16(8)?)),
        ImageType::Webp => match bytes.get(12..16)? {
            b"VP8 " => Some((le16(26)? & 0x3fff, le16(28)? & 0x3fff)),
            b"VP8L" => {
                let b: [u32; 4] = [
                    u32::from(*bytes.get(21)?),
                    u32::from(*bytes.get(22)?),
                    u32::from(*bytes.get(23)?),
                    u32::from(*bytes.get(24)?),
                ];
                let width = 1 + (b[0] | (b[1] & 0x3f) << 8);
                let height = 1 + (b[1] >> 6 | b[2] << 2 | (b[3] & 0x0f) << 10);
                Some((width, height))
            }
            b"VP8X" => Some((1 + le24(24)?, 1 + le24(27)?)),
            _ => None,
        },
        ImageType::Jpeg => {
            let mut at = 2;
            loop {
                if *bytes.get(at)? != 0xff {
                    return None;
                }
                let marker = *bytes.get(at + 1)?;
                if marker == 0xff {
                    at += 1;
                    continue;
                }
                let frame =
                    (0xc0..=0xcf).contains(&marker) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
                if frame {
                    return Some((be16(at + 7)?, be16(at + 5)?));
                }
                at += 2 + usize::try_from(be16(at + 2)?).ok()?;
            }
        }
    }
}

/// What bytes that are no accepted image look like, for the error.
fn describe(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "it is empty".to_owned();
    }
    let known: &[(&[u8], &str)] = &[
        (b"BM", "a BMP image"),
        (b"II*\0", "a TIFF image"),
        (b"MM\0*", "a TIFF image"),
        (b"%PDF", "a PDF document"),
        (b"<svg", "an SVG drawing"),
        (b"<?xml", "an XML file"),
        (b"\0\0\x01\0", "an ICO icon"),
    ];
    if let Some((_, what)) = known.iter().find(|(magic, _)| bytes.starts_with(magic)) {
        return format!("it is {what}");
    }
    if bytes.len() >= 12 && &bytes[4..8] == b"ftyp" {
        return "it is an HEIC/AVIF image or a video".to_owned();
    }
    let head: String = bytes[..bytes.len().min(8)].escape_ascii().to_string();
    format!("it starts with `{head}`")
}

/// What a person asks in one turn: the text and any images with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TurnInput {
    /// The request.
    pub text: String,
    /// Images for the model, in the order given.
    pub images: Vec<Image>,
}

impl TurnInput {
    /// `text` with `images`.
    pub fn new(text: impl Into<String>, images: Vec<Image>) -> Self {
        Self {
            text: text.into(),
            images,
        }
    }

    /// What the events record of the images (`None` when there are none).
    pub fn image_infos(&self) -> Option<Vec<keel_events::ImageInfo>> {
        (!self.images.is_empty()).then(|| self.images.iter().map(Image::info).collect())
    }
}

impl From<String> for TurnInput {
    fn from(text: String) -> Self {
        Self::new(text, Vec::new())
    }
}

impl From<&str> for TurnInput {
    fn from(text: &str) -> Self {
        Self::new(text, Vec::new())
    }
}

impl From<&String> for TurnInput {
    fn from(text: &String) -> Self {
        Self::new(text.clone(), Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_HEADER: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x03\0\0\0\x02\x08\x02\0\0\0";

    #[test]
    fn formats_come_from_the_bytes() {
        assert_eq!(ImageType::sniff(PNG_HEADER), Some(ImageType::Png));
        assert_eq!(
            ImageType::sniff(b"\xff\xd8\xff\xe0JFIF"),
            Some(ImageType::Jpeg)
        );
        assert_eq!(
            ImageType::sniff(b"GIF89a\x02\0\x05\0"),
            Some(ImageType::Gif)
        );
        assert_eq!(
            ImageType::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageType::Webp)
        );
        assert_eq!(ImageType::sniff(b"BM\0\0"), None);
        let err = Image::from_bytes("notes.png", b"hello, not an image").unwrap_err();
        assert_eq!(
            err.to_string(),
            "notes.png is not a PNG, JPEG, GIF or WebP image (it starts with `hello, n`)"
        );
        let err = Image::from_bytes("scan.png", b"%PDF-1.7").unwrap_err();
        assert!(err.to_string().contains("it is a PDF document"), "{err}");
        let err = Image::from_bytes("empty.png", b"").unwrap_err();
        assert!(err.to_string().contains("it is empty"), "{err}");
    }

    #[test]
    fn base64_round_trips_and_sizes_are_decoded_sizes() {
        let image = Image::from_bytes("a.png", PNG_HEADER).unwrap();
        assert_eq!(image.size(), PNG_HEADER.len() as u64);
        assert!(
            image
                .data_url()
                .starts_with("data:image/png;base64,iVBORw0KGgo")
        );
        let again = Image::from_base64("a.png", &image.data_url()).unwrap();
        assert_eq!(again, image);
        let err = Image::from_base64("b.png", "not base64!").unwrap_err();
        assert!(matches!(err, ImageError::BadBase64 { .. }), "{err}");
        let info = image.info();
        assert_eq!(
            (info.name.as_str(), info.media_type.as_str(), info.size),
            ("a.png", "image/png", PNG_HEADER.len() as u64)
        );
    }

    #[test]
    fn too_large_images_are_refused_before_decoding() {
        let big = "A".repeat((MAX_IMAGE_BYTES as usize / 3 + 8) * 4);
        let err = Image::from_base64("huge.png", &big).unwrap_err();
        assert!(matches!(err, ImageError::TooLarge { .. }), "{err}");
        assert!(err.to_string().starts_with("huge.png is "), "{err}");
    }

    #[test]
    fn dimensions_are_read_from_headers() {
        assert_eq!(image_dimensions(PNG_HEADER), Some((3, 2)));
        assert_eq!(image_dimensions(b"GIF89a\x02\0\x05\0"), Some((2, 5)));
        let jpeg = b"\xff\xd8\xff\xe0\0\x04ab\xff\xc0\0\x11\x08\0\x07\0\x09";
        assert_eq!(image_dimensions(jpeg), Some((9, 7)));
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\0\0\0\0\0\0\0\0".to_vec();
        vp8x.extend_from_slice(&[9, 0, 0, 4, 0, 0]);
        assert_eq!(image_dimensions(&vp8x), Some((10, 5)));
        assert_eq!(image_dimensions(b"\xff\xd8\xff"), None);
    }

    #[test]
    fn missing_files_and_folders_are_named() {
        let err = Image::read(Path::new("/nonexistent/shot.png")).unwrap_err();
        assert_eq!(err.to_string(), "/nonexistent/shot.png: no such file");
        let err = Image::read(Path::new("/")).unwrap_err();
        assert_eq!(err.to_string(), "/: cannot read it (it is a folder)");
    }
}
