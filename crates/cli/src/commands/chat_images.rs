//! Images named in a `keel chat` line. The rule: a word of the line (split at whitespace; a
//! word in single or double quotes, as a terminal pastes a path with spaces, taken whole, its
//! quotes dropped) is attached when it ends in `.png`, `.jpg`, `.jpeg`, `.gif` or `.webp` (any
//! case) and names a file, looked up from the current folder, then from the project root. The
//! word stays in the text, so the model knows what the image was called. A word that names no
//! file is only text; a file that is no PNG, JPEG, GIF or WebP by its bytes, or is over
//! 10 MiB, is an error naming it, and the line is not sent.

use std::path::{Path, PathBuf};

use keel_protocol::{Image, ImageError, ImageType};

/// The images a chat line names, in order (each file once), or the first that cannot be
/// attached.
pub fn images_in_line(line: &str, root: &Path) -> Result<Vec<Image>, ImageError> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut images = Vec::new();
    for word in words(line) {
        let path = Path::new(&word);
        if ImageType::from_extension(path).is_none() {
            continue;
        }
        let Some(found) = [path.to_path_buf(), root.join(path)]
            .into_iter()
            .find(|p| p.is_file())
        else {
            continue;
        };
        let key = found.canonicalize().unwrap_or_else(|_| found.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let mut image = Image::read(&found)?;
        image.name = word;
        images.push(image);
    }
    Ok(images)
}

/// The words of `line`: whitespace-separated, a quoted word whole without its quotes.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '"' || c == '\'' {
            chars.next();
            for next in chars.by_ref() {
                if next == c {
                    break;
                }
                word.push(next);
            }
        } else {
            while let Some(&next) = chars.peek() {
                if next.is_whitespace() {
                    break;
                }
                word.push(next);
                chars.next();
            }
            // A path at the end of a sentence: `look at shot.png.` or `shot.png,`.
            while word.ends_with(['.', ',', ';', ':', '!', '?', ')']) {
                word.pop();
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_whitespace_and_keep_quoted_paths_whole() {
        assert_eq!(
            words("what is in 'my shot.png' and b.jpg? \"x y.gif\""),
            ["what", "is", "in", "my shot.png", "and", "b.jpg", "x y.gif"]
        );
        assert_eq!(words("see shot.png."), ["see", "shot.png"]);
    }

    #[test]
    fn existing_image_files_are_attached_and_bad_ones_named() {
        let dir = tempfile::tempdir().unwrap();
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
        std::fs::write(dir.path().join("shot.png"), png).unwrap();
        std::fs::write(dir.path().join("fake.jpg"), b"not a jpeg").unwrap();
        let images =
            images_in_line("explain shot.png and shot.png, not gone.png", dir.path()).unwrap();
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].name, "shot.png");
        assert_eq!(images[0].media_type, ImageType::Png);
        let err = images_in_line("and fake.jpg", dir.path()).unwrap_err();
        assert!(err.to_string().contains("fake.jpg is not a PNG"), "{err}");
        assert!(
            images_in_line("plain words", dir.path())
                .unwrap()
                .is_empty()
        );
    }
}
