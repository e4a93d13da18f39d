//! A fetched body as text for the model: HTML as Markdown, text and JSON as they are.

/// What a body of this content type becomes, or why it cannot be shown.
pub(super) fn to_text(content_type: &str, body: &[u8]) -> Result<String, String> {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let text = || String::from_utf8_lossy(body).into_owned();
    match mime.as_str() {
        "text/html" | "application/xhtml+xml" => html_to_markdown(&text()),
        "" if looks_like_html(body) => html_to_markdown(&text()),
        "" => Ok(text()),
        m if m.starts_with("text/")
            || m == "application/json"
            || m.ends_with("+json")
            || m == "application/xml"
            || m.ends_with("+xml")
            || m == "application/javascript"
            || m == "application/toml"
            || m == "application/yaml"
            || m == "application/x-yaml" =>
        {
            Ok(text())
        }
        other => Err(format!(
            "the response is `{other}`, which fetch_url does not show (it shows HTML, text and JSON)"
        )),
    }
}

/// `html` as Markdown, scripts, styles and other non-content elements left out.
fn html_to_markdown(html: &str) -> Result<String, String> {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "iframe", "head", "nav", "form",
        ])
        .build();
    converter
        .convert(html)
        .map(|markdown| squeeze_blank_lines(markdown.trim()))
        .map_err(|e| format!("the page's HTML could not be converted: {e}"))
}

fn looks_like_html(body: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
    let head = head.trim_start();
    head.starts_with("<!doctype html") || head.starts_with("<html")
}

/// At most one blank line in a row.
fn squeeze_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_becomes_markdown_without_scripts() {
        let html = "<html><head><title>t</title><style>p{}</style></head><body><nav>menu</nav>\
                    <h1>Install</h1><p>Run <code>pip install x</code>.</p>\
                    <script>track()</script><ul><li>one</li></ul></body></html>";
        let md = to_text("text/html; charset=utf-8", html.as_bytes()).unwrap();
        assert_eq!(md, "# Install\n\nRun `pip install x`.\n\n*   one\n");
    }

    #[test]
    fn text_and_json_pass_through_and_binaries_are_refused() {
        assert_eq!(
            to_text("application/json", b"{\"a\":1}").unwrap(),
            "{\"a\":1}"
        );
        assert_eq!(to_text("text/plain", b"hello").unwrap(), "hello");
        assert_eq!(to_text("", b"<!DOCTYPE html><p>hi</p>").unwrap(), "hi\n");
        let err = to_text("image/png", b"\x89PNG").unwrap_err();
        assert!(err.contains("`image/png`"), "{err}");
    }
}
