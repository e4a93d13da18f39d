//! Which paths matter to the safety check: system folders, home folders, logs and histories,
//! account files, kernel interfaces and secrets.

/// A path split into its components after normalising `.`, `..` and repeated slashes, with
/// its anchor: `/`, a home (`~`, `~user`, `$HOME`) or nothing (relative).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed<'a> {
    /// Where the path starts.
    pub anchor: Anchor,
    /// The components after the anchor.
    pub parts: Vec<&'a str>,
}

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// `/…`
    Root,
    /// `~`, `~user`, `$HOME`, `${HOME}`.
    Home,
    /// Anything else (relative, or another variable).
    Other,
}

/// Splits and normalises `path` (quotes are already removed by the caller).
pub(crate) fn parse(path: &str) -> Parsed<'_> {
    let path = path.trim();
    let (anchor, rest) = if let Some(rest) = path
        .strip_prefix("$HOME")
        .or_else(|| path.strip_prefix("${HOME}"))
    {
        if rest.is_empty() || rest.starts_with('/') {
            (Anchor::Home, rest)
        } else {
            (Anchor::Other, path)
        }
    } else if let Some(rest) = path.strip_prefix('~') {
        // `~user/...`: the user's name ends at the first slash.
        let end = rest.find('/').unwrap_or(rest.len());
        let user = &rest[..end];
        if user
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            (Anchor::Home, &rest[end..])
        } else {
            (Anchor::Other, path)
        }
    } else if path.starts_with('/') {
        (Anchor::Root, path)
    } else {
        (Anchor::Other, path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    Parsed { anchor, parts }
}

/// Top-level folders that hold the operating system (any depth below them counts, apart from
/// the exceptions in [`system_path`]).
const SYSTEM_ROOTS: &[&str] = &[
    "bin",
    "boot",
    "etc",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "sbin",
    "usr",
    "var",
    "snap",
    "run",
    "System",
    "Library",
    "Applications",
    "private",
];

/// Whether `path` lies in a folder of the operating system: `/etc/…`, `/usr/…`, `/var/lib/…`,
/// `/boot/…`, `/System/…`. Not system: temporary folders (`/var/tmp`, `/private/tmp`,
/// `/var/folders`, `/run/user`), what local installs own below `/usr/local/` (`/opt` is
/// not a system root either), devices (see the disk-device rule) and home folders.
pub(crate) fn system_path(path: &str) -> bool {
    let parsed = parse(path);
    if parsed.anchor != Anchor::Root {
        return false;
    }
    let parts = parsed.parts.as_slice();
    match parts {
        [] => false,
        ["var" | "private", "tmp" | "folders", ..] | ["private", "var", "folders" | "tmp", ..] => {
            false
        }
        ["run", "user", ..] => false,
        ["usr", "local", _, ..] => false,
        [first, ..] => SYSTEM_ROOTS.contains(first),
    }
}

/// Caches and scratch folders directly in a home folder that are fine to delete.
const HOME_SCRATCH: &[&str] = &[
    ".cache",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".bun",
    ".node-gyp",
    ".gradle",
    "tmp",
    ".tmp",
];

/// Whether `path` is a home folder or a folder directly in one (`~/Documents`, `~/.ssh`,
/// `/home/bob/.config`, `/root/work`), or anything under `~/.ssh` or `~/.gnupg`; caches
/// such as `~/.cache` are not.
pub(crate) fn home_path(path: &str) -> bool {
    let parsed = parse(path);
    let within: &[&str] = match (parsed.anchor, parsed.parts.as_slice()) {
        (Anchor::Home, parts) => parts,
        (Anchor::Root, ["home" | "Users", _, rest @ ..]) => rest,
        (Anchor::Root, ["root", rest @ ..]) => rest,
        _ => return false,
    };
    match within {
        [] => true,
        [".ssh" | ".gnupg", ..] => true,
        [one] => !HOME_SCRATCH.contains(one),
        [_, "*"] => true,
        _ => false,
    }
}

/// Shell and REPL history files.
const HISTORY_FILES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".history",
    ".sh_history",
    ".python_history",
    ".node_repl_history",
    ".mysql_history",
    ".psql_history",
    ".sqlite_history",
    ".lesshst",
    ".viminfo",
    "fish_history",
];

/// Whether `path` is a shell history file or lies under `/var/log` (or is `/var/log`).
pub(crate) fn log_path(path: &str) -> bool {
    let parsed = parse(path);
    if let Some(last) = parsed.parts.last()
        && HISTORY_FILES.contains(last)
    {
        return true;
    }
    parsed.anchor == Anchor::Root
        && matches!(
            parsed.parts.as_slice(),
            ["var", "log", ..] | ["private", "var", "log", ..] | ["var", "adm", ..]
        )
}

/// Whether `path` is a file that defines who may log in or become root: `/etc/passwd`,
/// `/etc/shadow`, `/etc/group`, `/etc/sudoers(.d)`, `/etc/pam.d`, an `authorized_keys`.
pub(crate) fn account_path(path: &str) -> bool {
    let parsed = parse(path);
    if parsed
        .parts
        .last()
        .is_some_and(|p| p.starts_with("authorized_keys"))
    {
        return true;
    }
    parsed.anchor == Anchor::Root
        && matches!(
            parsed.parts.as_slice(),
            [
                "etc",
                "passwd"
                    | "shadow"
                    | "group"
                    | "gshadow"
                    | "sudoers"
                    | "sudoers.d"
                    | "pam.d"
                    | "login.defs"
                    | "subuid"
                    | "subgid",
                ..
            ]
        )
}

/// Whether `path` is a kernel setting or trigger: `/proc/sys/…`, `/sys/…`,
/// `/proc/sysrq-trigger`.
pub(crate) fn kernel_path(path: &str) -> bool {
    let parsed = parse(path);
    parsed.anchor == Anchor::Root
        && matches!(
            parsed.parts.as_slice(),
            ["proc", "sys", ..] | ["proc", "sysrq-trigger"] | ["sys", _, ..]
        )
}

/// Whether `text` (a word, possibly `@file`, `name=@file` or holding `$(cat file)`) names a
/// secret: private SSH keys and the `.ssh` folder, cloud and registry credentials, GnuPG
/// keys, `.netrc`, `.git-credentials`, `/etc/shadow`, `.env` files. Public keys (`.pub`) are not.
pub(crate) fn mentions_secret(text: &str) -> bool {
    const NEEDLES: &[&str] = &[
        ".ssh/id_",
        ".aws/credentials",
        ".aws/config",
        ".gnupg",
        ".netrc",
        ".git-credentials",
        ".docker/config.json",
        ".kube/config",
        ".npmrc",
        ".pypirc",
        ".config/gh/hosts.yml",
        "/etc/shadow",
        "/etc/gshadow",
        "gcloud/credentials.db",
        "application_default_credentials.json",
    ];
    text.split(|c: char| c.is_whitespace() || matches!(c, '@' | '=' | '<' | '(' | ')' | '"'))
        .any(|token| {
            let token = token.trim_matches(|c: char| matches!(c, '\'' | '`' | ';'));
            if token.ends_with(".pub") {
                return false;
            }
            let base = token.rsplit('/').next().unwrap_or(token);
            NEEDLES.iter().any(|n| token.contains(n))
                || token.ends_with("/.ssh")
                || token.ends_with("/.ssh/")
                || matches!(base, "id_rsa" | "id_dsa" | "id_ecdsa" | "id_ed25519")
                || base == ".env"
                || base.starts_with(".env.")
        })
}

/// Credential stores, as path endings: what deleting or overwriting destroys a credential.
const CREDENTIAL_FILES: &[&[&str]] = &[
    &[".aws", "credentials"],
    &[".aws", "config"],
    &[".netrc"],
    &[".git-credentials"],
    &[".docker", "config.json"],
    &[".kube", "config"],
    &[".pypirc"],
    &[".npmrc"],
    &["gh", "hosts.yml"],
    &["gcloud", "credentials.db"],
    &["gcloud", "application_default_credentials.json"],
    &[".azure", "accessTokens.json"],
    &[".password-store"],
];

/// Whether `path` is key material or a credential store of a person: a private SSH key
/// (`~/.ssh/id_*` but not `.pub`, or a file named like one anywhere), anything under
/// `.gnupg` or `.password-store`, cloud and registry credentials (`~/.aws/credentials`,
/// `.netrc`, `.git-credentials`, `.docker/config.json`, `.kube/config`, …). A project's
/// `.env` is not (see [`key_or_secret`] for what a secure-delete tool counts).
pub(crate) fn credential_path(path: &str) -> bool {
    let parsed = parse(path);
    let parts = parsed.parts.as_slice();
    let Some(last) = parts.last() else {
        return false;
    };
    if last.ends_with(".pub") {
        return false;
    }
    let ssh_key =
        matches!(
            *last,
            "id_rsa" | "id_dsa" | "id_ecdsa" | "id_ed25519" | "id_ecdsa_sk" | "id_ed25519_sk"
        ) || (parts.len() >= 2 && parts[parts.len() - 2] == ".ssh" && last.starts_with("id_"));
    ssh_key
        || parts
            .iter()
            .any(|p| matches!(*p, ".gnupg" | ".password-store"))
        || CREDENTIAL_FILES.iter().any(|end| parts.ends_with(end))
}

/// File name endings of keys, certificates with keys, keystores and password databases.
const KEY_EXTENSIONS: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".kdbx",
    ".ppk",
];

/// What a secure-delete tool aimed at counts as destroying a secret: a credential
/// ([`credential_path`]), anything [`mentions_secret`] names (`.env` files included), or a
/// key file by its extension (`*.pem`, `*.key`, `*.p12`, `*.kdbx`, …).
pub(crate) fn key_or_secret(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    credential_path(path)
        || mentions_secret(path)
        || KEY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials() {
        for p in [
            "~/.ssh/id_rsa",
            "/home/bob/.ssh/id_ed25519",
            "$HOME/.ssh/id_work",
            "~/.gnupg/private-keys-v1.d/AB.key",
            "~/.aws/credentials",
            "/root/.netrc",
            "~/.docker/config.json",
            "~/.kube/config",
            "~/.password-store/bank.gpg",
            "keys/id_ed25519",
        ] {
            assert!(credential_path(p), "{p}");
        }
        for p in [
            "~/.ssh/id_rsa.pub",
            "~/.ssh/known_hosts",
            "~/.ssh/config",
            ".env",
            "src/config.json",
            "target",
        ] {
            assert!(!credential_path(p), "{p}");
        }
        for p in [
            ".env",
            "deploy/server.key",
            "cert.PEM",
            "vault.kdbx",
            "~/.ssh/id_rsa",
        ] {
            assert!(key_or_secret(p), "{p}");
        }
        for p in ["notes.txt", "src/key.rs", "build/", "~/.ssh/id_rsa.pub"] {
            assert!(!key_or_secret(p), "{p}");
        }
    }

    #[test]
    fn system_paths() {
        for p in [
            "/var/lib",
            "/var/lib/apt",
            "/etc/nginx/nginx.conf",
            "/usr/bin/python3",
            "/usr/local",
            "/boot/grub",
            "/System/Library",
            "/etc/../usr/lib",
        ] {
            assert!(system_path(p), "{p}");
        }
        for p in [
            "/tmp/x",
            "/var/tmp/build",
            "/usr/local/lib/foo",
            "/opt/app/cache",
            "/home/me/project",
            "relative/etc",
            "/dev/null",
            "/run/user/1000/x",
        ] {
            assert!(!system_path(p), "{p}");
        }
    }

    #[test]
    fn home_paths() {
        for p in [
            "~",
            "~/",
            "~/Documents",
            "$HOME/.config",
            "${HOME}/.ssh/keys",
            "/home/bob/.local",
            "/Users/bob/Library",
            "/root",
            "~bob/work",
            "~/*",
        ] {
            assert!(home_path(p), "{p}");
        }
        for p in [
            "~/.cache",
            "~/projects/x/target",
            "$HOME/.cache/keel",
            "/home/bob/project/build",
            "./home",
            "~.bak",
        ] {
            assert!(!home_path(p), "{p}");
        }
    }

    #[test]
    fn secrets() {
        for t in [
            "@~/.ssh/id_rsa",
            "key=@/home/me/.ssh/id_ed25519",
            "$(cat ~/.aws/credentials)",
            "~/.ssh",
            ".env",
            "config/.env.production",
            "/etc/shadow",
        ] {
            assert!(mentions_secret(t), "{t}");
        }
        for t in [
            "~/.ssh/id_rsa.pub",
            "data.json",
            "@payload.json",
            ".envrc.example2",
            "environment",
        ] {
            assert!(!mentions_secret(t), "{t}");
        }
    }
}
