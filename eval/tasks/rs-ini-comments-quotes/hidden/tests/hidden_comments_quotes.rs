use tinyini::{parse, ParseError};

#[test]
fn full_line_comments() {
    let cfg =
        parse("# comment\n; another = comment\n[s]\n  # indented = comment\nk = v\n").unwrap();
    assert_eq!(cfg.get("s", "k"), Some("v"));
    assert_eq!(cfg.get("", "; another"), None);
    assert_eq!(cfg.sections(), vec!["s"]);
}

#[test]
fn inline_comments() {
    let cfg = parse("[s]\na = 1 # one\nb = 2 ; two\nc = x#y\nd = x;y\ne = # nothing\n").unwrap();
    assert_eq!(cfg.get("s", "a"), Some("1"));
    assert_eq!(cfg.get("s", "b"), Some("2"));
    // a comment marker must follow whitespace
    assert_eq!(cfg.get("s", "c"), Some("x#y"));
    assert_eq!(cfg.get("s", "d"), Some("x;y"));
    assert_eq!(cfg.get("s", "e"), Some(""));
}

#[test]
fn quoted_values() {
    let cfg = parse(concat!(
        "[q]\n",
        "greeting = \"  hello world  \"\n",
        "hash = \"# not a comment\" # but this is\n",
        "escaped = \"say \\\"hi\\\" \\\\ done\"\n",
        "empty = \"\"\n",
        "inner = a \"b\" c\n",
    ))
    .unwrap();
    assert_eq!(cfg.get("q", "greeting"), Some("  hello world  "));
    assert_eq!(cfg.get("q", "hash"), Some("# not a comment"));
    assert_eq!(cfg.get("q", "escaped"), Some("say \"hi\" \\ done"));
    assert_eq!(cfg.get("q", "empty"), Some(""));
    // quotes only count when they start the value
    assert_eq!(cfg.get("q", "inner"), Some("a \"b\" c"));
}

#[test]
fn quote_errors() {
    assert_eq!(
        parse("[a]\nk = \"open\n"),
        Err(ParseError::UnterminatedQuote { line: 2 })
    );
    assert_eq!(
        parse("k = \"ends with escape\\\"\n"),
        Err(ParseError::UnterminatedQuote { line: 1 })
    );
    assert_eq!(
        parse("\n\nk = \"a\" b\n"),
        Err(ParseError::TrailingCharacters { line: 3 })
    );
}

#[test]
fn section_headers_with_comments() {
    let cfg = parse("[server] # main\nport = 1\n").unwrap();
    assert_eq!(cfg.get("server", "port"), Some("1"));
}

#[test]
fn old_behaviour_kept() {
    let cfg = parse("url = http://x/?a=b\n").unwrap();
    assert_eq!(cfg.get("", "url"), Some("http://x/?a=b"));
    assert_eq!(
        parse("[a]\nnope\n"),
        Err(ParseError::MissingEquals { line: 2 })
    );
}
