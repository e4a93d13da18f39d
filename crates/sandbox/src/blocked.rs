//! Recognising, in a failed command's output, that the sandbox stopped it, and naming what it
//! stopped: "blocked by the sandbox: write to /etc/hosts".

use std::path::{Component, Path, PathBuf};

/// Something the sandbox stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// A write to a path outside the writable ones.
    Write {
        /// The path as resolved (symlinks followed as far as they exist).
        path: PathBuf,
        /// Why it is not writable (e.g. `.git stays read-only`), when more than "outside".
        note: Option<String>,
    },
    /// A network socket while `network = false`.
    Network,
    /// A denial whose path could not be told, with the output line it was seen on.
    Unnamed {
        /// The line of output.
        line: String,
    },
}

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Write { path, note: None } => {
                write!(f, "blocked by the sandbox: write to {}", path.display())
            }
            Self::Write {
                path,
                note: Some(note),
            } => write!(
                f,
                "blocked by the sandbox: write to {} ({note})",
                path.display()
            ),
            Self::Network => f.write_str(
                "blocked by the sandbox: network access (network = false allows only AF_UNIX \
                 sockets)",
            ),
            Self::Unnamed { line } => write!(f, "probably blocked by the sandbox: {line}"),
        }
    }
}

/// The errno messages a denial shows up as.
const PERMISSION: &str = "Permission denied";
const NOT_PERMITTED: &str = "Operation not permitted";
const READ_ONLY_FS: &str = "Read-only file system";

/// A line of output reporting a denial, and the path it names if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Denial {
    pub(crate) line: String,
    pub(crate) path: Option<String>,
    /// `Operation not permitted` (seccomp's answer) rather than EACCES/EROFS.
    pub(crate) not_permitted: bool,
    /// The line speaks of sockets or connections.
    pub(crate) network_words: bool,
}

/// Every line of `output` reporting EACCES, EPERM or EROFS, with the path it names.
pub(crate) fn denials(output: &str) -> Vec<Denial> {
    output
        .lines()
        .filter_map(|line| {
            let phrase = [PERMISSION, NOT_PERMITTED, READ_ONLY_FS]
                .into_iter()
                .find(|p| line.contains(p))?;
            let lower = line.to_ascii_lowercase();
            Some(Denial {
                line: line.trim().to_owned(),
                path: named_path(line, phrase),
                not_permitted: phrase == NOT_PERMITTED,
                network_words: ["socket", "connect", "network", "/dev/tcp", "/dev/udp"]
                    .iter()
                    .any(|w| lower.contains(w)),
            })
        })
        .collect()
}

/// The path a denial line names: quoted (`cannot touch '/etc/x'`, Python's `: '/etc/x'`), or
/// the `: `-separated field just before the errno message (`bash: /etc/x: Permission denied`).
fn named_path(line: &str, phrase: &str) -> Option<String> {
    for (open, close) in [('\'', '\''), ('‘', '’'), ('"', '"'), ('`', '\'')] {
        if let Some(start) = line.find(open) {
            let rest = &line[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let quoted = &rest[..end];
                if looks_like_path(quoted) {
                    return Some(quoted.to_owned());
                }
            }
        }
    }
    let before = &line[..line.find(phrase)?];
    let field = before
        .trim_end()
        .trim_end_matches(':')
        .rsplit(": ")
        .next()?;
    let field = field.trim();
    looks_like_path(field).then(|| field.to_owned())
}

fn looks_like_path(text: &str) -> bool {
    !text.is_empty()
        && !text.contains(' ')
        && (text.contains('/') || text.contains('.'))
        && !text.starts_with("/dev/tcp")
        && !text.starts_with("/dev/udp")
}

/// `path` as the command saw it from `cwd`, made absolute, `/proc/self/cwd` read as `cwd`, `..`
/// folded, and the longest existing prefix resolved through symlinks.
pub(crate) fn resolve(path: &str, cwd: &Path) -> PathBuf {
    let mut text = path.to_owned();
    for prefix in ["/proc/self/cwd", "/proc/thread-self/cwd"] {
        if let Some(rest) = text.strip_prefix(prefix) {
            text = format!("{}{rest}", cwd.display());
        }
    }
    let joined = cwd.join(text);
    let mut lexical = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    // Follow symlinks in the part that exists (a link planted earlier points elsewhere).
    let mut existing = lexical.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = parent.to_path_buf();
            }
            _ => return lexical,
        }
    }
    let Ok(mut real) = existing.canonicalize() else {
        return lexical;
    };
    for name in rest.into_iter().rev() {
        real.push(name);
    }
    real
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_common_messages() {
        let cases = [
            (
                "touch: cannot touch '/etc/hosts': Permission denied",
                "/etc/hosts",
            ),
            ("bash: line 1: /etc/hosts: Permission denied", "/etc/hosts"),
            ("bash: ../out.txt: Read-only file system", "../out.txt"),
            (
                "PermissionError: [Errno 13] Permission denied: '/tmp/x.txt'",
                "/tmp/x.txt",
            ),
            (
                "mkdir: cannot create directory ‘/opt/x’: Permission denied",
                "/opt/x",
            ),
        ];
        for (line, path) in cases {
            let found = denials(line);
            assert_eq!(found.len(), 1, "{line}");
            assert_eq!(found[0].path.as_deref(), Some(path), "{line}");
        }
        let net = denials("bash: socket: Operation not permitted");
        assert!(net[0].not_permitted && net[0].network_words && net[0].path.is_none());
        assert!(denials("all good\nok").is_empty());
    }

    #[test]
    fn resolve_folds_and_reads_proc_cwd() {
        let cwd = Path::new("/nonexistent-keel-root/work");
        assert_eq!(
            resolve("../x", cwd),
            PathBuf::from("/nonexistent-keel-root/x")
        );
        assert_eq!(resolve("/proc/self/cwd/../../y", cwd), PathBuf::from("/y"));
    }

    proptest::proptest! {
        #[test]
        fn resolve_is_absolute_and_never_panics(path in "[a-z./]{0,24}") {
            let resolved = resolve(&path, Path::new("/nonexistent-keel-root"));
            proptest::prop_assert!(resolved.is_absolute());
            proptest::prop_assert!(resolved.components().all(|c| !matches!(c, Component::ParentDir)));
        }

        #[test]
        fn denials_never_panic(text in "\\PC{0,80}") {
            let _ = denials(&text);
        }
    }
}
