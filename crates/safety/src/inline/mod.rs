//! Code given to an interpreter on its command line (`python -c`, `node -e`, `perl -e`,
//! `ruby -e`, `php -r`, `lua -e`, an awk program, …) or as a here-document it reads: what
//! the code would do, as commands the shell rules can judge.
//!
//! Python and JavaScript are parsed with their tree-sitter grammars; Perl, Ruby, PHP, Lua and
//! awk, for which the project has no grammar, are read by a quote-aware tokenizer
//! ([`script`]). Either way the result is a list of [`Effect`]s: command lines and programs the
//! code runs (`os.system("rm -rf /")`, `subprocess.run(["rm", "-rf", "/"])`, backticks), the
//! shell command equivalent to a file operation (`shutil.rmtree(p)` is `rm -rf p`,
//! `open(p, "w")` is `tee p`), code it evaluates (`exec("…")`), and what cannot be judged:
//! a command, path or code built at run time, code chosen by name at run time, code that does
//! not parse, or a language nothing here reads. The safety check judges the first three with
//! its shell rules and turns the last into an *uncertain* verdict, which approval policies
//! ask about rather than allow.
//!
//! Values are followed as far as a one-liner needs: string literals and their concatenation,
//! variables assigned a literal, imports and their aliases, the home folder
//! (`os.path.expanduser("~")`, `Path.home()`, `os.homedir()`, `$ENV{HOME}`, `Dir.home`), path
//! joins and globs (`for f in glob.glob("*.pyc")` deletes `*.pyc`).

mod javascript;
mod python;
mod script;

use super::wrappers::base_name;

/// The languages inline code is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// `python -c`, `pypy -c`.
    Python,
    /// `node -e/-p`, `bun -e`, `deno eval`, `ts-node -e`.
    JavaScript,
    /// `perl -e/-E`.
    Perl,
    /// `ruby -e`.
    Ruby,
    /// `php -r`.
    Php,
    /// `lua -e`.
    Lua,
    /// An awk program.
    Awk,
    /// A language nothing here reads (`Rscript -e`, `osascript -e`, `pwsh -c`, …).
    Unread,
}

/// Inline code found on a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inline {
    /// Its language.
    pub lang: Lang,
    /// The interpreter's name as written (`python3`).
    pub interpreter: String,
    /// The code (several `-e` pieces joined by newlines).
    pub code: String,
}

/// What inline code does, as far as it can be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Effect {
    /// A command line run by a shell (`os.system("…")`, backticks).
    Shell(String),
    /// A program run with these words, without a shell (`subprocess.run([...])`).
    Exec(Vec<String>),
    /// The shell command doing what a file operation does (`shutil.rmtree(p)` → `rm -rf p`):
    /// judged by the shell rules, not a command the line runs.
    Like(Vec<String>),
    /// Code the code evaluates (`exec("…")`, `eval "…"`).
    Code(Lang, String),
    /// Something that cannot be judged, and why.
    Unknown(String),
}

/// A value inline code computes, as far as it is known.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// A string (also a path, a command line).
    Str(String),
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A list or tuple.
    List(Vec<Value>),
    /// One of several strings (a loop variable over a glob or a list).
    OneOf(Vec<Value>),
    /// A module, or a function or attribute reached from one (`os`, `os.path.join`).
    Name(String),
    /// A path object (`pathlib.Path("x")`).
    Path(String),
    /// An object literal's fields (JavaScript options).
    Object(Vec<(String, Value)>),
    /// Not known.
    Unknown,
}

impl Value {
    /// The strings this value stands for: one for a string or path, several for
    /// [`Value::OneOf`]; `None` when any is not known.
    pub(crate) fn strs(&self) -> Option<Vec<String>> {
        match self {
            Value::Str(s) | Value::Path(s) => Some(vec![s.clone()]),
            Value::Int(n) => Some(vec![n.to_string()]),
            Value::OneOf(values) => {
                let mut out = Vec::new();
                for v in values {
                    out.extend(v.strs()?);
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// The string, when exactly one is known.
    pub(crate) fn str(&self) -> Option<String> {
        match self {
            Value::Str(s) | Value::Path(s) => Some(s.clone()),
            Value::Int(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// The words of a list of strings (an argument vector); `None` when any is unknown.
    pub(crate) fn words(&self) -> Option<Vec<String>> {
        match self {
            Value::List(items) => items.iter().map(Value::str).collect(),
            _ => None,
        }
    }

    /// Whether the value is known to be true (`shell=True`, `{recursive: true}`).
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Int(n) => *n != 0,
            Value::Str(s) => !s.is_empty(),
            _ => false,
        }
    }

    /// A field of an object literal.
    pub(crate) fn field(&self, name: &str) -> Option<&Value> {
        match self {
            Value::Object(fields) => fields.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// `b` joined onto path `a` (an absolute `b` replaces `a`).
pub(crate) fn join_path(a: &str, b: &str) -> String {
    if b.starts_with('/') || a.is_empty() {
        b.to_owned()
    } else if a.ends_with('/') {
        format!("{a}{b}")
    } else {
        format!("{a}/{b}")
    }
}

/// Paths joined one onto the next (`os.path.join`, `path.join`, `File.join`); a part that
/// stands for several strings gives one path per combination (a few at most).
pub(crate) fn join_all(parts: &[Value]) -> Value {
    let mut paths: Vec<String> = vec![String::new()];
    for part in parts {
        let Some(options) = part.strs() else {
            return Value::Unknown;
        };
        let mut next = Vec::new();
        for base in &paths {
            for option in &options {
                next.push(if base.is_empty() {
                    option.clone()
                } else {
                    join_path(base, option)
                });
            }
        }
        if next.len() > 16 {
            return Value::Unknown;
        }
        paths = next;
    }
    match paths.as_slice() {
        [] => Value::Unknown,
        [one] => Value::Str(one.clone()),
        _ => Value::OneOf(paths.into_iter().map(Value::Str).collect()),
    }
}

/// Collects effects, with helpers for the operations every language has.
#[derive(Debug, Default)]
pub(crate) struct Effects {
    list: Vec<Effect>,
}

impl Effects {
    pub(crate) fn push(&mut self, effect: Effect) {
        if self.list.len() < MAX_EFFECTS {
            self.list.push(effect);
        }
    }

    pub(crate) fn unknown(&mut self, why: impl Into<String>) {
        self.push(Effect::Unknown(why.into()));
    }

    /// A shell command line, or the reason it is unknown.
    pub(crate) fn shell(&mut self, command: &Value, what: &str) {
        match command.strs() {
            Some(lines) => lines
                .into_iter()
                .for_each(|line| self.push(Effect::Shell(line))),
            None => self.unknown(format!("runs a command built at run time (`{what}`)")),
        }
    }

    /// A program and its arguments, run without a shell.
    pub(crate) fn exec(&mut self, argv: Option<Vec<String>>, what: &str) {
        match argv {
            Some(argv) if !argv.is_empty() => self.push(Effect::Exec(argv)),
            _ => self.unknown(format!("runs a program built at run time (`{what}`)")),
        }
    }

    /// `prefix PATH` for each path the value stands for (`rm -rf`, `rmdir`, …); unknown
    /// paths cannot be judged when `unknown_is_unsure` (deletes), and are ignored otherwise
    /// (writes: a program writing a file it computed is ordinary).
    pub(crate) fn on_path(
        &mut self,
        prefix: &[&str],
        path: &Value,
        what: &str,
        unknown_is_unsure: bool,
    ) {
        match path.strs() {
            Some(paths) => {
                for p in paths {
                    let mut argv: Vec<String> = prefix.iter().map(|s| (*s).to_owned()).collect();
                    argv.push(p);
                    self.push(Effect::Like(argv));
                }
            }
            None if unknown_is_unsure => {
                self.unknown(format!("deletes a path computed at run time (`{what}`)"));
            }
            None => {}
        }
    }

    /// `verb FROM TO` (moves, copies, links) when both are known.
    pub(crate) fn two_paths(&mut self, verb: &[&str], from: &Value, to: &Value) {
        if let (Some(from), Some(to)) = (from.str(), to.str()) {
            let mut argv: Vec<String> = verb.iter().map(|s| (*s).to_owned()).collect();
            argv.push(from);
            argv.push(to);
            self.push(Effect::Like(argv));
        }
    }

    /// `chmod MODE PATH` with an integer mode shown in octal.
    pub(crate) fn chmod(&mut self, mode: &Value, path: &Value) {
        let mode = match mode {
            Value::Int(n) => format!("{n:o}"),
            other => match other.str() {
                Some(s) => s,
                None => return,
            },
        };
        if let Some(paths) = path.strs() {
            for p in paths {
                self.push(Effect::Like(vec!["chmod".into(), mode.clone(), p]));
            }
        }
    }

    /// `kill -9 PID` for a known process id (`-1`: every process).
    pub(crate) fn kill(&mut self, pid: &Value) {
        if let Value::Int(n) = pid {
            self.push(Effect::Like(vec![
                "kill".into(),
                "-9".into(),
                "--".into(),
                n.to_string(),
            ]));
        }
    }

    /// Code evaluated at run time: judged when it is a literal, unknown otherwise.
    pub(crate) fn code(&mut self, lang: Lang, code: &Value, what: &str) {
        match code.str() {
            Some(code) => self.push(Effect::Code(lang, code)),
            None => self.unknown(format!("runs code built at run time (`{what}`)")),
        }
    }

    pub(crate) fn into_vec(self) -> Vec<Effect> {
        self.list
    }
}

/// Most effects kept from one piece of code.
const MAX_EFFECTS: usize = 256;
/// Longest inline code read (longer is not judged).
const MAX_CODE: usize = 64 * 1024;

/// What `code` in `lang` does.
pub(crate) fn analyze(lang: Lang, code: &str) -> Vec<Effect> {
    if code.len() > MAX_CODE {
        return vec![Effect::Unknown(format!(
            "is given {} KiB of code, more than the check reads",
            code.len() / 1024
        ))];
    }
    match lang {
        Lang::Python => python::analyze(code),
        Lang::JavaScript => javascript::analyze(code),
        Lang::Perl | Lang::Ruby | Lang::Php | Lang::Lua | Lang::Awk => script::analyze(lang, code),
        Lang::Unread => vec![Effect::Unknown(
            "is given code in a language the check does not read".to_owned(),
        )],
    }
}

/// Parses `code` with a tree-sitter `language`, on an ASCII shadow of it (every non-ASCII
/// character becomes as many `x` bytes, so byte ranges index the original; grammars' scanners
/// have crashed on some non-ASCII input). `None` when the parser gives up.
pub(crate) fn parse(code: &str, language: tree_sitter::Language) -> Option<tree_sitter::Tree> {
    let shadow: String = code
        .chars()
        .flat_map(|c| {
            let n = if c.is_ascii() { 0 } else { c.len_utf8() };
            std::iter::once(c)
                .filter(char::is_ascii)
                .chain(std::iter::repeat_n('x', n))
        })
        .collect();
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&language).ok()?;
    parser.parse(&shadow, None)
}

/// The source text of `node` (lossy on invalid UTF-8; never panics).
pub(crate) fn text<'a>(node: tree_sitter::Node<'_>, src: &'a str) -> std::borrow::Cow<'a, str> {
    match src.as_bytes().get(node.byte_range()) {
        Some(slice) => String::from_utf8_lossy(slice),
        None => std::borrow::Cow::Borrowed(""),
    }
}

/// Decodes the common backslash escapes (`\n`, `\t`, `\\`, quotes, `\xHH`, `\uHHHH`, octal);
/// anything else keeps its backslash.
pub(crate) fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(next) = chars.next() else {
            out.push('\\');
            break;
        };
        match next {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0'..='7' => {
                let mut value = next.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('?'));
            }
            'x' | 'u' => {
                let width = if next == 'x' { 2 } else { 4 };
                let mut value = 0u32;
                let mut digits = 0;
                while digits < width {
                    match chars.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            value = value * 16 + d;
                            chars.next();
                            digits += 1;
                        }
                        None => break,
                    }
                }
                if digits == 0 {
                    out.push('\\');
                    out.push(next);
                } else {
                    out.push(char::from_u32(value).unwrap_or('?'));
                }
            }
            '\n' => {}
            '\\' | '\'' | '"' | '`' | '$' | '/' => out.push(next),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// The inline code `cmd` (wrappers already peeled off) runs, if any.
pub(crate) fn find(cmd: &[String]) -> Option<Inline> {
    let first = cmd.first()?;
    let name = base_name(first);
    let args = &cmd[1..];
    let (lang, code) = match name {
        n if is_python(n) => (Lang::Python, python_code(args)?),
        "node" | "nodejs" | "bun" | "ts-node" | "tsx" => (Lang::JavaScript, node_code(args)?),
        "deno" => (Lang::JavaScript, deno_code(args)?),
        "perl" => (Lang::Perl, cluster_code(args, &PERL_SWITCHES)?),
        "ruby" => (Lang::Ruby, cluster_code(args, &RUBY_SWITCHES)?),
        "php" => (
            Lang::Php,
            flag_code(
                args,
                &["-r", "-B", "-R", "-E"],
                &["-c", "-d", "-z"],
                &["-f", "--file"],
            )?,
        ),
        "lua" | "luajit" | "lua5.1" | "lua5.2" | "lua5.3" | "lua5.4" => {
            (Lang::Lua, flag_code(args, &["-e"], &["-l"], &[])?)
        }
        "awk" | "gawk" | "mawk" | "nawk" => (Lang::Awk, awk_program(args)?),
        "Rscript" | "R" => (
            Lang::Unread,
            flag_code(args, &["-e", "--expr"], &[], &["-f", "--file"])?,
        ),
        "julia" => (
            Lang::Unread,
            flag_code(args, &["-e", "--eval", "-E", "--print"], &[], &[])?,
        ),
        "osascript" => (Lang::Unread, flag_code(args, &["-e"], &["-l"], &[])?),
        "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe" => (
            Lang::Unread,
            flag_code(
                args,
                &[
                    "-c",
                    "-command",
                    "-Command",
                    "-e",
                    "-ec",
                    "-EncodedCommand",
                    "-encodedcommand",
                ],
                &[],
                &["-File", "-file", "-f"],
            )?,
        ),
        "elixir" | "groovy" | "racket" | "clojure" | "scala" => {
            (Lang::Unread, flag_code(args, &["-e", "--eval"], &[], &[])?)
        }
        "guile" => (Lang::Unread, flag_code(args, &["-c"], &[], &[])?),
        "sbcl" => (Lang::Unread, flag_code(args, &["--eval"], &[], &[])?),
        _ => return None,
    };
    Some(Inline {
        lang,
        interpreter: name.to_owned(),
        code,
    })
}

/// The language of code an interpreter reads from its standard input (a here-document),
/// when it is one of those read here.
pub(crate) fn stdin_lang(name: &str) -> Option<Lang> {
    let name = base_name(name);
    Some(match name {
        n if is_python(n) => Lang::Python,
        "node" | "nodejs" | "bun" => Lang::JavaScript,
        "perl" => Lang::Perl,
        "ruby" => Lang::Ruby,
        "php" => Lang::Php,
        "lua" | "luajit" => Lang::Lua,
        _ => return None,
    })
}

fn is_python(name: &str) -> bool {
    name.starts_with("python") || name.starts_with("pypy")
}

/// `python [opts] -c CODE` (also `-Ic CODE`, `-cCODE`); `None` for a script or `-m`.
fn python_code(args: &[String]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" || arg == "-" || !arg.starts_with('-') {
            return None;
        }
        if arg.starts_with("--") {
            continue;
        }
        let cluster = &arg[1..];
        for (at, c) in cluster.char_indices() {
            match c {
                'c' => {
                    let rest = &cluster[at + 1..];
                    return if rest.is_empty() {
                        args.get(i).cloned()
                    } else {
                        Some(rest.to_owned())
                    };
                }
                'm' => return None,
                'W' | 'X' | 'Q' => {
                    if at + 1 == cluster.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    None
}

/// `node -e CODE`, `--eval=CODE`, `-p CODE`, `-pe CODE`; `None` for a script.
fn node_code(args: &[String]) -> Option<String> {
    const WITH_VALUE: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "-C",
        "--conditions",
        "--title",
        "--input-type",
        "--env-file",
        "--cwd",
    ];
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" || !arg.starts_with('-') || arg == "-" {
            return None;
        }
        if matches!(arg, "-e" | "--eval" | "-p" | "--print" | "-pe" | "-ep") {
            return args.get(i).cloned();
        }
        if let Some(code) = arg
            .strip_prefix("--eval=")
            .or_else(|| arg.strip_prefix("--print="))
        {
            return Some(code.to_owned());
        }
        if WITH_VALUE.contains(&arg) {
            i += 1;
        }
    }
    None
}

/// `deno eval [opts] CODE`.
fn deno_code(args: &[String]) -> Option<String> {
    let mut rest = args.iter().skip_while(|a| a.starts_with('-'));
    if rest.next().map(String::as_str) != Some("eval") {
        return None;
    }
    rest.find(|a| !a.starts_with('-')).cloned()
}

/// How an interpreter reads clustered single-letter switches (`perl -lne CODE`).
struct Switches {
    /// Letters whose value is code (the rest of the cluster, or the next word).
    code: &'static str,
    /// Letters whose value is the rest of the cluster.
    rest: &'static str,
    /// Of those, the ones whose value is the next word when the cluster ends with them.
    next: &'static str,
    /// Letters followed by optional digits only (`-l`, `-0777`).
    digits: &'static str,
}

const PERL_SWITCHES: Switches = Switches {
    code: "eE",
    rest: "iFxCdDIMm",
    next: "IMm",
    digits: "l0",
};

const RUBY_SWITCHES: Switches = Switches {
    code: "e",
    rest: "rICEFiWxK",
    next: "rICEF",
    digits: "0",
};

/// Clustered single-letter switches (`perl -lne CODE`, `ruby -rjson -e CODE`): every piece
/// of code given, joined by newlines.
fn cluster_code(args: &[String], switches: &Switches) -> Option<String> {
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" || arg == "-" || !arg.starts_with('-') {
            break;
        }
        if arg.starts_with("--") {
            continue;
        }
        let cluster = &arg[1..];
        let mut chars = cluster.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let rest = &cluster[at + c.len_utf8()..];
            if switches.code.contains(c) {
                if rest.is_empty() {
                    if let Some(code) = args.get(i) {
                        pieces.push(code.clone());
                        i += 1;
                    }
                } else {
                    pieces.push(rest.to_owned());
                }
                break;
            }
            if switches.rest.contains(c) {
                if rest.is_empty() && switches.next.contains(c) {
                    i += 1;
                }
                break;
            }
            if switches.digits.contains(c) {
                // Octal digits, or `-0xHH…` in hexadecimal.
                let hex = c == '0' && chars.next_if(|(_, d)| *d == 'x').is_some();
                while chars
                    .next_if(|(_, d)| {
                        if hex {
                            d.is_ascii_hexdigit()
                        } else {
                            ('0'..='7').contains(d)
                        }
                    })
                    .is_some()
                {}
            }
        }
    }
    (!pieces.is_empty()).then(|| pieces.join("\n"))
}

/// Separate flags (`php -r CODE`, `Rscript -e CODE`, `--eval=CODE`): every piece given to a
/// flag of `code_flags`, joined by newlines; `None` once a flag of `file_flags` names a
/// script file.
fn flag_code(
    args: &[String],
    code_flags: &[&str],
    with_value: &[&str],
    file_flags: &[&str],
) -> Option<String> {
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if code_flags.contains(&arg) {
            if let Some(code) = args.get(i) {
                pieces.push(code.clone());
                i += 1;
            }
            continue;
        }
        if let Some(code) = code_flags
            .iter()
            .filter(|f| f.starts_with("--"))
            .find_map(|f| arg.strip_prefix(&format!("{f}=")))
        {
            pieces.push(code.to_owned());
            continue;
        }
        if file_flags.contains(&arg) {
            return None;
        }
        if with_value.contains(&arg) {
            i += 1;
        }
    }
    (!pieces.is_empty()).then(|| pieces.join("\n"))
}

/// An awk program: the first operand, unless `-f` names a program file (gawk's `-e`/`--source`
/// add program text).
fn awk_program(args: &[String]) -> Option<String> {
    let mut pieces = Vec::new();
    let mut from_file = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            break;
        }
        match arg {
            "-f" | "--file" => {
                from_file = true;
                i += 1;
            }
            "-e" | "--source" => {
                if let Some(code) = args.get(i) {
                    pieces.push(code.clone());
                }
                i += 1;
            }
            "-F" | "-v" | "--field-separator" | "--assign" | "-i" | "--include" | "-l"
            | "--load" => i += 1,
            a if a.starts_with('-') && a.len() > 1 => {}
            _ => {
                i -= 1;
                break;
            }
        }
    }
    if pieces.is_empty() && !from_file {
        pieces.push(args.get(i)?.clone());
    }
    (!pieces.is_empty()).then(|| pieces.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| (*w).to_owned()).collect()
    }

    fn code(argv: &[&str]) -> Option<(Lang, String)> {
        find(&words(argv)).map(|i| (i.lang, i.code))
    }

    #[test]
    fn finds_inline_code() {
        assert_eq!(
            code(&["python3", "-c", "x"]),
            Some((Lang::Python, "x".into()))
        );
        assert_eq!(
            code(&["python", "-Ic", "x"]),
            Some((Lang::Python, "x".into()))
        );
        assert_eq!(code(&["python", "-cx"]), Some((Lang::Python, "x".into())));
        assert_eq!(
            code(&["python", "-W", "ignore", "-c", "x"]),
            Some((Lang::Python, "x".into()))
        );
        assert_eq!(code(&["python", "-m", "pytest", "-c", "x"]), None);
        assert_eq!(code(&["python", "script.py", "-c", "x"]), None);
        assert_eq!(
            code(&["node", "-e", "x"]),
            Some((Lang::JavaScript, "x".into()))
        );
        assert_eq!(
            code(&["node", "--eval=x"]),
            Some((Lang::JavaScript, "x".into()))
        );
        assert_eq!(
            code(&["node", "-r", "ts-node/register", "-pe", "x"]),
            Some((Lang::JavaScript, "x".into()))
        );
        assert_eq!(code(&["node", "app.js", "-e", "x"]), None);
        assert_eq!(
            code(&["deno", "eval", "x"]),
            Some((Lang::JavaScript, "x".into()))
        );
        assert_eq!(
            code(&["perl", "-lne", "x", "f"]),
            Some((Lang::Perl, "x".into()))
        );
        assert_eq!(
            code(&["perl", "-pi", "-e", "x", "f"]),
            Some((Lang::Perl, "x".into()))
        );
        assert_eq!(
            code(&["perl", "-e", "a", "-e", "b"]),
            Some((Lang::Perl, "a\nb".into()))
        );
        assert_eq!(
            code(&["perl", "-MFile::Path", "-e", "x"]),
            Some((Lang::Perl, "x".into()))
        );
        assert_eq!(
            code(&["perl", "-i.bak", "-pe", "x"]),
            Some((Lang::Perl, "x".into()))
        );
        assert_eq!(
            code(&["perl", "-0777", "-ne", "x"]),
            Some((Lang::Perl, "x".into()))
        );
        assert_eq!(
            code(&["perl", "-l012e", "x"]),
            Some((Lang::Perl, "x".into()))
        );
        assert_eq!(code(&["ruby", "-ne", "x"]), Some((Lang::Ruby, "x".into())));
        assert_eq!(code(&["perl", "script.pl", "-e", "x"]), None);
        assert_eq!(
            code(&["ruby", "-rfileutils", "-e", "x"]),
            Some((Lang::Ruby, "x".into()))
        );
        assert_eq!(
            code(&["ruby", "-r", "json", "-e", "x"]),
            Some((Lang::Ruby, "x".into()))
        );
        assert_eq!(code(&["php", "-r", "x"]), Some((Lang::Php, "x".into())));
        assert_eq!(code(&["lua", "-e", "x"]), Some((Lang::Lua, "x".into())));
        assert_eq!(
            code(&["awk", "-F:", "{print $1}", "f"]),
            Some((Lang::Awk, "{print $1}".into()))
        );
        assert_eq!(
            code(&["awk", "-F", ":", "-v", "a=1", "x", "f"]),
            Some((Lang::Awk, "x".into()))
        );
        assert_eq!(code(&["awk", "-f", "prog.awk", "f"]), None);
        assert_eq!(
            code(&["Rscript", "-e", "x"]),
            Some((Lang::Unread, "x".into()))
        );
        assert_eq!(
            code(&["pwsh", "-Command", "x"]),
            Some((Lang::Unread, "x".into()))
        );
        assert_eq!(code(&["cargo", "-e", "x"]), None);
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(r"a\nb\x41\101\\\'\q"), "a\nbAA\\'\\q");
        assert_eq!(unescape("trailing\\"), "trailing\\");
    }

    #[test]
    fn paths_join() {
        assert_eq!(join_path("$HOME", ".ssh"), "$HOME/.ssh");
        assert_eq!(join_path("a/", "b"), "a/b");
        assert_eq!(join_path("a", "/etc"), "/etc");
    }
}
