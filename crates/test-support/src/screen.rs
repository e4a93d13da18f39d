//! What a terminal shows after some output: a minimal screen that understands what Keel's
//! renderer writes — printable text (wrapping at the width, with the last column's pending
//! wrap), `\r`, `\n`, tabs, cursor up (`ESC[nA`), erase to the end of the screen or line
//! (`ESC[J`, `ESC[K`) — and ignores colours and other escapes. For tests of output that
//! rewrites itself on a terminal.

/// The lines a terminal `width` columns wide shows after `output` (trailing spaces and
/// trailing empty lines removed). Each character takes one column.
pub fn screen(output: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<Vec<char>> = vec![Vec::new()];
    let (mut row, mut col, mut pending) = (0usize, 0usize, false);
    let mut chars = output.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    let mut params = String::new();
                    let mut command = None;
                    for next in chars.by_ref() {
                        if next.is_ascii_alphabetic() || next == '@' || next == '~' {
                            command = Some(next);
                            break;
                        }
                        params.push(next);
                    }
                    let n = params.parse::<usize>().unwrap_or(1).max(1);
                    match command {
                        Some('A') => {
                            row = row.saturating_sub(n);
                            pending = false;
                        }
                        Some('J') if params.is_empty() || params == "0" => {
                            if let Some(line) = lines.get_mut(row) {
                                line.truncate(col);
                            }
                            lines.truncate(row + 1);
                        }
                        Some('K') if params.is_empty() || params == "0" => {
                            if let Some(line) = lines.get_mut(row) {
                                line.truncate(col);
                            }
                        }
                        _ => {}
                    }
                }
                Some(']') => {
                    // An operating-system command, up to BEL or ESC \.
                    while let Some(next) = chars.next() {
                        if next == '\u{7}'
                            || (next == '\u{1b}' && chars.next_if_eq(&'\\').is_some())
                        {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {
                col = 0;
                pending = false;
            }
            '\n' => {
                row += 1;
                col = 0;
                pending = false;
            }
            '\t' => col = ((col / 8 + 1) * 8).min(width - 1),
            c if c.is_control() => {}
            c => {
                if pending {
                    row += 1;
                    col = 0;
                    pending = false;
                }
                while lines.len() <= row {
                    lines.push(Vec::new());
                }
                let line = &mut lines[row];
                while line.len() < col {
                    line.push(' ');
                }
                if col < line.len() {
                    line[col] = c;
                } else {
                    line.push(c);
                }
                if col + 1 == width {
                    pending = true;
                } else {
                    col += 1;
                }
            }
        }
        while lines.len() <= row {
            lines.push(Vec::new());
        }
    }
    let mut out: Vec<String> = lines
        .into_iter()
        .map(|l| l.into_iter().collect::<String>().trim_end().to_owned())
        .collect();
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_moves_up_and_erases() {
        assert_eq!(screen("abcdef\nxy", 4), ["abcd", "ef", "xy"]);
        assert_eq!(
            screen("abcd\nx", 4),
            ["abcd", "x"],
            "a full line wraps only once"
        );
        assert_eq!(screen("one\ntwo\nthree\r\x1b[1A\x1b[J2", 10), ["one", "2"]);
        assert_eq!(screen("one\ntwo\nthree\r\x1b[2A\x1b[J2", 10), ["2"]);
        assert_eq!(screen("\x1b[33mwarn\x1b[0m\n", 10), ["warn"]);
        assert_eq!(screen("abc\rX\x1b[K", 10), ["X"]);
    }
}
