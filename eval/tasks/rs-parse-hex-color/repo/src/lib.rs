//! Parse and print CSS-style hex colours.

mod blend;

pub use blend::mix;

use std::fmt;

/// An 8-bit-per-channel colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb {
    pub r: u8,
    pub g: u8,
    pub b: u8,
}

/// Why a string is not a hex colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseColorError {
    /// The text does not start with `#`.
    MissingHash,
    /// After the `#` there are neither 3 nor 6 characters; holds the count
    /// of characters (not bytes) after the `#`.
    BadLength(usize),
    /// A character after the `#` is not a hex digit; holds the first such character.
    BadDigit(char),
}

impl fmt::Display for ParseColorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseColorError::MissingHash => write!(f, "colour must start with '#'"),
            ParseColorError::BadLength(n) => write!(f, "expected 3 or 6 hex digits, got {n}"),
            ParseColorError::BadDigit(c) => write!(f, "not a hex digit: {c:?}"),
        }
    }
}

impl std::error::Error for ParseColorError {}

/// Parse a hex colour.
///
/// Accepted forms are `#rrggbb` and the shorthand `#rgb`, where each digit
/// is doubled (`#f0a` is `#ff00aa`). Hex digits may be upper or lower case.
/// Leading and trailing whitespace is ignored; nothing else is.
///
/// Errors, checked in this order:
/// * no leading `#` → [`ParseColorError::MissingHash`];
/// * not exactly 3 or 6 characters after the `#` → [`ParseColorError::BadLength`]
///   with the number of characters;
/// * a character that is not a hex digit → [`ParseColorError::BadDigit`] with
///   the first offending character.
///
/// ```
/// use hexcolor::{parse_hex, Rgb};
/// assert_eq!(parse_hex("#1E90ff"), Ok(Rgb { r: 0x1e, g: 0x90, b: 0xff }));
/// assert_eq!(parse_hex(" #f0a "), Ok(Rgb { r: 0xff, g: 0x00, b: 0xaa }));
/// ```
pub fn parse_hex(text: &str) -> Result<Rgb, ParseColorError> {
    todo!()
}

impl fmt::Display for Rgb {
    /// Lower-case `#rrggbb`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.r, self.g, self.b)
    }
}

impl std::str::FromStr for Rgb {
    type Err = ParseColorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_hex(s)
    }
}
