use tinyini::{parse, ParseError};

#[test]
fn sections_and_keys() {
    let cfg = parse("top = 1\n[server]\nhost = example.org\n  port=8080  \n\n[empty]\n").unwrap();
    assert_eq!(cfg.get("", "top"), Some("1"));
    assert_eq!(cfg.get("server", "host"), Some("example.org"));
    assert_eq!(cfg.get("server", "port"), Some("8080"));
    assert_eq!(cfg.sections(), vec!["", "server"]);
}

#[test]
fn errors_have_line_numbers() {
    assert_eq!(
        parse("[a]\nnope\n"),
        Err(ParseError::MissingEquals { line: 2 })
    );
    assert_eq!(parse("\n[a\n"), Err(ParseError::BadSection { line: 2 }));
    assert_eq!(parse(" = 3"), Err(ParseError::EmptyKey { line: 1 }));
}
