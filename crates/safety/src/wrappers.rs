//! Prefixes that run another command: `sudo`, `env VAR=x`, `nohup`, `time`, `xargs`, ….

/// What is left once the wrapper prefixes are peeled off an argument vector.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Unwrapped<'a> {
    /// The command that actually runs (never empty).
    Command(&'a [String]),
    /// A script to parse again (`env -S 'cmd args'`).
    Script(String),
    /// Nothing runs (`sudo -l`, `command -v rm`, a wrapper with no command).
    Nothing,
}

/// The last path component of a command name (`/usr/bin/sudo` → `sudo`).
pub(crate) fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Peels wrappers off `argv` until the real command is reached.
pub(crate) fn unwrap(argv: &[String]) -> Unwrapped<'_> {
    let mut rest = argv;
    // Each round removes at least one word, so this ends; the bound is a belt and braces.
    for _ in 0..64 {
        let Some(first) = rest.first() else {
            return Unwrapped::Nothing;
        };
        let name = base_name(first);
        let after = &rest[1..];
        let skipped = match name {
            "sudo" | "doas" => skip_options(
                after,
                &[
                    "-u",
                    "-g",
                    "-h",
                    "-p",
                    "-C",
                    "-D",
                    "-r",
                    "-t",
                    "-U",
                    "-T",
                    "-R",
                    "--user",
                    "--group",
                    "--host",
                    "--prompt",
                    "--close-from",
                    "--chdir",
                    "--role",
                    "--type",
                    "--other-user",
                    "--command-timeout",
                    "--chroot",
                ],
                &[
                    "-l",
                    "--list",
                    "-v",
                    "--validate",
                    "-k",
                    "-K",
                    "-V",
                    "--version",
                    "-h",
                    "--help",
                    "-e",
                    "--edit",
                ],
            ),
            "env" => {
                // env -S / --split-string: the string is itself a command line.
                let mut i = 0;
                let mut found = None;
                while i < after.len() {
                    let arg = &after[i];
                    if arg == "-S" || arg == "--split-string" {
                        found = Some(after[i + 1..].join(" "));
                        break;
                    }
                    let attached = arg
                        .strip_prefix("--split-string=")
                        .or_else(|| arg.strip_prefix("-S").filter(|s| !s.is_empty()));
                    if let Some(s) = attached {
                        let mut script = s.to_owned();
                        for more in &after[i + 1..] {
                            script.push(' ');
                            script.push_str(more);
                        }
                        found = Some(script);
                        break;
                    }
                    if !arg.starts_with('-') {
                        break;
                    }
                    i += 1;
                }
                if let Some(script) = found {
                    return Unwrapped::Script(script);
                }
                let mut i = skip_options_index(after, &["-u", "-C", "--unset", "--chdir"]);
                while i < after.len() && is_assignment(&after[i]) {
                    i += 1;
                }
                Some(i)
            }
            "nohup" | "builtin" | "unbuffer" | "caffeinate" | "torsocks" => {
                Some(skip_dashdash(after))
            }
            "pkexec" | "run0" => skip_options(after, &["--user", "-u"], &["--help", "--version"]),
            "proxychains" | "proxychains4" => skip_options(after, &["-f"], &[]),
            "strace" | "ltrace" => skip_options(after, &["-o", "-e", "-p", "-s", "-u", "-E"], &[]),
            "unshare" | "nsenter" | "firejail" | "bwrap" => skip_options(after, &[], &[]),
            "chroot" | "flock" => {
                skip_options(after, &["-w", "--timeout", "--userspec", "--groups"], &[])
                    .map(|i| i + 1)
            }
            "watch" => {
                // `watch` runs its words joined, through `sh -c`.
                let i = skip_options_index(after, &["-n", "--interval"]);
                return match after.get(i..) {
                    Some(words) if !words.is_empty() => Unwrapped::Script(words.join(" ")),
                    _ => Unwrapped::Nothing,
                };
            }
            "time" => skip_options(after, &["-f", "-o", "--format", "--output"], &[]),
            "nice" => skip_options(after, &["-n", "--adjustment"], &[]),
            "ionice" => skip_options(
                after,
                &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
                &[],
            ),
            "setsid" | "stdbuf" => skip_options(after, &[], &[]),
            "chrt" | "taskset" => {
                // One positional (priority / mask) before the command.
                skip_options(after, &[], &[]).map(|i| i + 1)
            }
            "timeout" => {
                skip_options(after, &["-s", "-k", "--signal", "--kill-after"], &[]).map(|i| i + 1)
            }
            "command" => {
                if after
                    .iter()
                    .take_while(|a| a.starts_with('-'))
                    .any(|a| a.contains('v') || a.contains('V'))
                {
                    return Unwrapped::Nothing;
                }
                skip_options(after, &[], &[])
            }
            "exec" => skip_options(after, &["-a"], &[]),
            "xargs" => skip_options(
                after,
                &[
                    "-I",
                    "-L",
                    "-n",
                    "-P",
                    "-s",
                    "-d",
                    "-E",
                    "-a",
                    "--arg-file",
                    "--delimiter",
                    "--max-args",
                    "--max-procs",
                    "--max-chars",
                    "--max-lines",
                    "--eof",
                    "--replace",
                    "--process-slot-var",
                ],
                &[],
            ),
            "busybox" => Some(0),
            _ => return Unwrapped::Command(rest),
        };
        match skipped {
            Some(i) if i < after.len() => rest = &after[i..],
            _ => return Unwrapped::Nothing,
        }
    }
    Unwrapped::Nothing
}

/// `NAME=value` with a valid shell name.
pub(crate) fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

fn skip_dashdash(args: &[String]) -> usize {
    usize::from(args.first().is_some_and(|a| a == "--"))
}

/// Index of the first word after the options, or `None` when an option means no command runs.
fn skip_options(args: &[String], with_value: &[&str], no_command: &[&str]) -> Option<usize> {
    if args
        .iter()
        .take_while(|a| a.starts_with('-') && *a != "--")
        .any(|a| no_command.contains(&a.as_str()))
    {
        return None;
    }
    Some(skip_options_index(args, with_value))
}

/// Index of the first word after the options (options in `with_value` take the next word).
fn skip_options_index(args: &[String], with_value: &[&str]) -> usize {
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        if arg == "--" {
            return i + 1;
        }
        if !arg.starts_with('-') || arg == "-" {
            return i;
        }
        if with_value.contains(&arg) {
            i += 2;
        } else {
            i += 1;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn cmd(s: &str) -> Vec<String> {
        match unwrap(&argv(s)) {
            Unwrapped::Command(c) => c.to_vec(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn peels_prefixes() {
        assert_eq!(cmd("sudo -u root rm -rf /"), argv("rm -rf /"));
        assert_eq!(cmd("env A=1 B=2 rm x"), argv("rm x"));
        assert_eq!(cmd("env -i -u X A=1 rm x"), argv("rm x"));
        assert_eq!(cmd("nohup time -p nice -n 5 rm x"), argv("rm x"));
        assert_eq!(cmd("timeout -s KILL 10 rm x"), argv("rm x"));
        assert_eq!(cmd("xargs -n 1 -I {} rm x"), argv("rm x"));
        assert_eq!(cmd("/usr/bin/sudo busybox rm x"), argv("rm x"));
        assert_eq!(cmd("ls -la"), argv("ls -la"));
    }

    #[test]
    fn nothing_runs() {
        assert_eq!(unwrap(&argv("sudo -l")), Unwrapped::Nothing);
        assert_eq!(unwrap(&argv("command -v rm")), Unwrapped::Nothing);
        assert_eq!(unwrap(&argv("env")), Unwrapped::Nothing);
        assert_eq!(unwrap(&[]), Unwrapped::Nothing);
    }

    #[test]
    fn env_split_string() {
        assert_eq!(
            unwrap(&argv("env -S rm -rf /")),
            Unwrapped::Script("rm -rf /".into())
        );
    }
}
