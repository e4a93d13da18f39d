use hexcolor::{parse_hex, ParseColorError, Rgb};

fn rgb(r: u8, g: u8, b: u8) -> Rgb {
    Rgb { r, g, b }
}

#[test]
fn long_form() {
    assert_eq!(parse_hex("#1E90ff"), Ok(rgb(0x1e, 0x90, 0xff)));
    assert_eq!(parse_hex("#000000"), Ok(rgb(0, 0, 0)));
    assert_eq!(parse_hex("#FFFFFF"), Ok(rgb(255, 255, 255)));
    assert_eq!(parse_hex("#0a0B0c"), Ok(rgb(10, 11, 12)));
}

#[test]
fn short_form() {
    assert_eq!(parse_hex("#f0a"), Ok(rgb(0xff, 0x00, 0xaa)));
    assert_eq!(parse_hex("#ABC"), Ok(rgb(0xaa, 0xbb, 0xcc)));
    assert_eq!(parse_hex("#000"), Ok(rgb(0, 0, 0)));
}

#[test]
fn whitespace() {
    assert_eq!(parse_hex(" #f0a "), Ok(rgb(0xff, 0x00, 0xaa)));
    assert_eq!(parse_hex("\t#102030\n"), Ok(rgb(0x10, 0x20, 0x30)));
    assert_eq!(parse_hex("# 102030"), Err(ParseColorError::BadLength(7)));
}

#[test]
fn missing_hash() {
    assert_eq!(parse_hex("1e90ff"), Err(ParseColorError::MissingHash));
    assert_eq!(parse_hex(""), Err(ParseColorError::MissingHash));
    assert_eq!(parse_hex("   "), Err(ParseColorError::MissingHash));
    assert_eq!(parse_hex("##fff"), Err(ParseColorError::BadLength(4)));
}

#[test]
fn bad_length() {
    assert_eq!(parse_hex("#"), Err(ParseColorError::BadLength(0)));
    assert_eq!(parse_hex("#ff"), Err(ParseColorError::BadLength(2)));
    assert_eq!(parse_hex("#ffff"), Err(ParseColorError::BadLength(4)));
    assert_eq!(parse_hex("#1234567"), Err(ParseColorError::BadLength(7)));
    // length is checked before the digits
    assert_eq!(parse_hex("#zz"), Err(ParseColorError::BadLength(2)));
    // characters, not bytes
    assert_eq!(parse_hex("#ééé"), Err(ParseColorError::BadDigit('é')));
    assert_eq!(parse_hex("#éé"), Err(ParseColorError::BadLength(2)));
}

#[test]
fn bad_digit() {
    assert_eq!(parse_hex("#12345g"), Err(ParseColorError::BadDigit('g')));
    assert_eq!(parse_hex("#xyz"), Err(ParseColorError::BadDigit('x')));
    assert_eq!(parse_hex("#+12345"), Err(ParseColorError::BadDigit('+')));
    assert_eq!(parse_hex("#-1-"), Err(ParseColorError::BadDigit('-')));
}

#[test]
fn from_str_and_round_trip() {
    let c: Rgb = "#C0FFEE".parse().unwrap();
    assert_eq!(c.to_string(), "#c0ffee");
    assert_eq!(parse_hex(&c.to_string()), Ok(c));
}
