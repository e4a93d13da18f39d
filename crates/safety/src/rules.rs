//! The rules: given one command's words (wrappers already peeled off), is it dangerous?

use super::category::Category;
use super::wrappers::base_name;
use super::{host, network, paths};

/// A rule that matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// Which kind of danger.
    pub category: Category,
    /// Why, for a person.
    pub reason: String,
}

impl Hit {
    /// A hit, wrapped for returning from a rule.
    pub(crate) fn new(category: Category, reason: impl Into<String>) -> Option<Self> {
        Some(Self {
            category,
            reason: reason.into(),
        })
    }
}

/// Top-level folders whose recursive delete or permission change wrecks a system.
const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "home",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "media",
    "mnt",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "snap",
    "srv",
    "sys",
    "usr",
    "var",
    "System",
    "Users",
    "Applications",
    "Library",
    "private",
    "Volumes",
];

/// Checks one command (its first word is the program).
pub(crate) fn check(argv: &[String]) -> Option<Hit> {
    let name = base_name(argv.first()?);
    let args = &argv[1..];
    host::check_first(name, args)
        .or_else(|| check_builtin(argv))
        .or_else(|| network::check(name, args))
        .or_else(|| host::check(name, args))
        .or_else(|| check_credentials(name, args))
}

/// Secure-delete tools: they overwrite before deleting, so nothing brings the file back.
fn is_secure_delete(name: &str, args: &[String]) -> bool {
    matches!(
        name,
        "shred" | "gshred" | "srm" | "wipe" | "scrub" | "sdelete" | "sdelete64" | "bcwipe"
    ) || (name == "rm" && has_any(args, &[], "P"))
}

/// Destroying keys and credentials: a secure-delete tool aimed at a secret, deleting,
/// truncating or overwriting key material, deleting secret GnuPG keys or a keychain.
fn check_credentials(name: &str, args: &[String]) -> Option<Hit> {
    let ops = operands(args);
    if is_secure_delete(name, args)
        && let Some(target) = ops.iter().find(|t| paths::key_or_secret(t))
    {
        return Hit::new(
            Category::CredentialDestruction,
            format!("`{name} {target}` destroys a key or credentials beyond recovery"),
        );
    }
    match name {
        "rm" | "unlink" | "truncate" | "srm" | "wipe" => ops
            .iter()
            .find(|t| paths::credential_path(t))
            .and_then(|target| {
                Hit::new(
                    Category::CredentialDestruction,
                    format!("`{name} {target}` deletes a key or credentials"),
                )
            }),
        "gpg" | "gpg2" => args
            .iter()
            .find(|a| a.starts_with("--delete-secret"))
            .and_then(|flag| {
                Hit::new(
                    Category::CredentialDestruction,
                    format!("`gpg {flag}` deletes secret keys"),
                )
            }),
        "security" => match ops.first() {
            Some(
                sub @ (&"delete-keychain"
                | &"delete-generic-password"
                | &"delete-internet-password"
                | &"delete-identity"
                | &"delete-certificate"),
            ) => Hit::new(
                Category::CredentialDestruction,
                format!("`security {sub}` deletes stored credentials"),
            ),
            _ => None,
        },
        _ => None,
    }
}

/// The rules for deletes, disks, permissions, git, shutdowns and kills.
fn check_builtin(argv: &[String]) -> Option<Hit> {
    let name = base_name(argv.first()?);
    let args = &argv[1..];
    match name {
        "rm" | "unlink" | "rmdir" => check_rm(args),
        "find" => check_find(args),
        "mv" => check_mv(args),
        "dd" => check_dd(args),
        "shred" | "gshred" | "scrub" => check_device_args(name, args, Category::RawDiskWrite),
        // Secure-delete tools that also delete folders (`srm -r ~`, `wipe -rf /`).
        "srm" | "wipe" => {
            check_device_args(name, args, Category::RawDiskWrite).or_else(|| check_rm(args))
        }
        "tee" | "cp" | "cat" | "pv" => check_copy_to_device(name, args),
        "blkdiscard" => Hit::new(
            Category::RawDiskWrite,
            "`blkdiscard` discards every block of a device",
        ),
        "mkswap" | "mke2fs" | "mkntfs" | "mkdosfs" | "mkexfatfs" | "mformat" => Hit::new(
            Category::FilesystemFormat,
            format!("`{name}` creates a file system, erasing what the device held"),
        ),
        n if n.starts_with("mkfs") || n.starts_with("newfs") => Hit::new(
            Category::FilesystemFormat,
            format!("`{name}` creates a file system, erasing what the device held"),
        ),
        "wipefs" => has_any(args, &["-a", "--all", "-o", "--offset"], "a")
            .then(|| {
                Hit::new(
                    Category::FilesystemFormat,
                    "`wipefs -a` erases file system signatures",
                )
            })
            .flatten(),
        "fdisk" | "gdisk" | "cfdisk" | "cgdisk" => {
            let listing = has_any(
                args,
                &["-l", "--list", "-h", "--help", "-V", "--version"],
                "",
            );
            (!listing)
                .then(|| {
                    Hit::new(
                        Category::FilesystemFormat,
                        format!("`{name}` edits a partition table"),
                    )
                })
                .flatten()
        }
        "sfdisk" => {
            let reading = has_any(
                args,
                &[
                    "-l",
                    "--list",
                    "-d",
                    "--dump",
                    "-s",
                    "--show-size",
                    "-J",
                    "--json",
                    "-V",
                    "--version",
                    "-h",
                    "--help",
                    "--verify",
                    "-F",
                    "--list-free",
                    "-g",
                    "--show-geometry",
                ],
                "",
            );
            (!reading && args.iter().any(|a| a.starts_with("/dev/")))
                .then(|| {
                    Hit::new(
                        Category::FilesystemFormat,
                        "`sfdisk` rewrites a partition table",
                    )
                })
                .flatten()
        }
        "parted" => {
            const WRITES: &[&str] = &[
                "mklabel",
                "mktable",
                "mkpart",
                "mkpartfs",
                "rm",
                "resizepart",
                "resize",
                "mkfs",
                "rescue",
            ];
            args.iter()
                .find(|a| WRITES.contains(&a.as_str()))
                .and_then(|w| {
                    Hit::new(
                        Category::FilesystemFormat,
                        format!("`parted {w}` rewrites a partition table"),
                    )
                })
        }
        "sgdisk" => has_any(
            args,
            &[
                "-Z",
                "--zap-all",
                "-z",
                "--zap",
                "-o",
                "--clear",
                "-n",
                "--new",
                "-d",
                "--delete",
                "-g",
                "--mbrtogpt",
            ],
            "",
        )
        .then(|| {
            Hit::new(
                Category::FilesystemFormat,
                "`sgdisk` rewrites a partition table",
            )
        })
        .flatten(),
        "diskutil" => {
            const ERASE: &[&str] = &[
                "eraseDisk",
                "eraseVolume",
                "partitionDisk",
                "zeroDisk",
                "randomDisk",
                "secureErase",
                "reformat",
            ];
            args.iter()
                .find(|a| ERASE.contains(&a.as_str()))
                .and_then(|w| {
                    Hit::new(
                        Category::FilesystemFormat,
                        format!("`diskutil {w}` erases a disk"),
                    )
                })
        }
        "chmod" | "chown" | "chgrp" => check_permissions(name, args),
        "git" => check_git(args),
        "shutdown" => (!has_any(args, &["-c"], ""))
            .then(|| Hit::new(Category::Shutdown, "`shutdown` turns the machine off"))
            .flatten(),
        "reboot" | "halt" | "poweroff" => {
            Hit::new(Category::Shutdown, format!("`{name}` stops the machine"))
        }
        "init" | "telinit" => match args.first().map(String::as_str) {
            Some(level @ ("0" | "6")) => Hit::new(
                Category::Shutdown,
                format!("`{name} {level}` halts or restarts the machine"),
            ),
            _ => None,
        },
        "systemctl" | "loginctl" => {
            const STOPS: &[&str] = &[
                "poweroff",
                "reboot",
                "halt",
                "kexec",
                "emergency",
                "rescue",
                "soft-reboot",
            ];
            args.iter()
                .find(|a| STOPS.contains(&a.as_str()))
                .and_then(|w| {
                    Hit::new(
                        Category::Shutdown,
                        format!("`{name} {w}` stops the machine"),
                    )
                })
        }
        "kill" => check_kill(args),
        "killall5" => Hit::new(Category::KillAll, "`killall5` signals every process"),
        "pkill" | "killall" => check_pkill(name, args),
        "perl" | "ruby" | "python" | "python3" => argv
            .iter()
            .any(|a| a.contains("fork while fork") || a.contains("fork until 0"))
            .then(|| Hit::new(Category::ForkBomb, "the script forks itself without end"))
            .flatten(),
        _ => None,
    }
}

/// Whether any argument is one of `long` (exact), or a short-option cluster holding one of
/// the letters in `letters`.
pub(crate) fn has_any(args: &[String], exact: &[&str], letters: &str) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| {
        exact.contains(&a.as_str())
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a.len() > 1
                && a[1..].chars().any(|c| letters.contains(c)))
    })
}

/// Splits into (options, operands), honouring `--`.
pub(crate) fn operands(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut ended = false;
    for arg in args {
        if ended {
            out.push(arg.as_str());
        } else if arg == "--" {
            ended = true;
        } else if !(arg.starts_with('-') && arg.len() > 1) {
            out.push(arg.as_str());
        }
    }
    out
}

/// What a path would delete if it is the root, a system folder or home; `None` otherwise.
pub(crate) fn root_like(path: &str) -> Option<&'static str> {
    let path = path.trim();
    let path = path.replace("${HOME}", "$HOME");
    if path.is_empty() {
        return None;
    }
    // Home: ~, ~/, ~/*, $HOME, $HOME/, $HOME/*, ~user.
    for home in ["~", "$HOME"] {
        if let Some(rest) = path.strip_prefix(home) {
            let rest = rest.trim_end_matches(['/', '*', '.']);
            if rest.is_empty() {
                return Some("the home folder");
            }
            let user_name = rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if home == "~" && user_name {
                return Some("a user's home folder");
            }
        }
    }
    // `$VAR/` or `$VAR/*`: the root itself when the variable is empty or unset.
    if let Some(rest) = path.strip_prefix('$') {
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '{' || c == '}'))
            .unwrap_or(rest.len());
        let tail = &rest[name_end..];
        if name_end > 0
            && !tail.is_empty()
            && tail
                .trim_start_matches('/')
                .trim_start_matches('*')
                .is_empty()
        {
            return Some("the root folder if the variable is empty");
        }
    }
    if !path.starts_with('/') {
        return None;
    }
    // Normalise: drop empty and `.` components, apply `..`, drop a trailing `*`.
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.last().is_some_and(|p| *p == "*" || *p == ".*") {
        parts.pop();
    }
    match parts.as_slice() {
        [] => Some("the whole file system"),
        [dir] if SYSTEM_DIRS.contains(dir) => Some("a top-level system folder"),
        ["home" | "Users", _] => Some("a user's home folder"),
        _ => None,
    }
}

fn check_rm(args: &[String]) -> Option<Hit> {
    if args.iter().any(|a| a == "--no-preserve-root") {
        return Hit::new(
            Category::RecursiveDelete,
            "`rm --no-preserve-root` disables the guard against deleting `/`",
        );
    }
    let recursive = has_any(args, &["--recursive"], "rR");
    if !recursive {
        return None;
    }
    let ops = operands(args);
    if let Some(target) = ops.iter().find_map(|t| wide_path(t).map(|what| (t, what))) {
        return Hit::new(
            Category::RecursiveDelete,
            format!("`rm -r {}` deletes {}", target.0, target.1),
        );
    }
    let git = ops
        .iter()
        .find(|t| paths::parse(t).parts.last().is_some_and(|p| *p == ".git"))?;
    Hit::new(
        Category::DestructiveGit,
        format!("`rm -r {git}` deletes the repository's whole history"),
    )
}

/// What a recursive operation on `path` would reach if it is the root, a system folder, a
/// home folder or a folder directly in one; `None` otherwise.
fn wide_path(path: &str) -> Option<&'static str> {
    root_like(path).or_else(|| {
        if paths::system_path(path) {
            Some("a folder of the operating system")
        } else if paths::home_path(path) {
            Some("a folder in a home folder")
        } else {
            None
        }
    })
}

fn check_find(args: &[String]) -> Option<Hit> {
    let starts: Vec<&str> = args
        .iter()
        .take_while(|a| !a.starts_with('-') && *a != "(" && *a != "!")
        .map(String::as_str)
        .collect();
    let (start, what) = starts.iter().find_map(|s| wide_path(s).map(|w| (*s, w)))?;
    let deletes = args.iter().any(|a| a == "-delete")
        || args.windows(2).any(|w| {
            matches!(w[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
                && matches!(base_name(&w[1]), "rm" | "shred" | "unlink")
        });
    deletes
        .then(|| {
            Hit::new(
                Category::RecursiveDelete,
                format!("`find {start} … -delete` deletes {what}"),
            )
        })
        .flatten()
}

fn check_mv(args: &[String]) -> Option<Hit> {
    let ops = operands(args);
    let (sources, _) = ops.split_at(ops.len().saturating_sub(1));
    let (src, what) = sources.iter().find_map(|s| root_like(s).map(|w| (*s, w)))?;
    Hit::new(
        Category::RecursiveDelete,
        format!("`mv {src}` moves away {what}"),
    )
}

/// Whether `path` is a disk, partition or memory device (not /dev/null, /dev/tty, /dev/fd/…).
pub(crate) fn is_disk_device(path: &str) -> bool {
    const DEVICES: &[&str] = &[
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "mapper/",
        "mem", "kmem", "port", "sr", "nbd", "zram", "mtd", "ubi", "root", "block/",
    ];
    path.strip_prefix("/dev/")
        .is_some_and(|name| DEVICES.iter().any(|d| name.starts_with(d)))
}

fn check_dd(args: &[String]) -> Option<Hit> {
    let target = args
        .iter()
        .find_map(|a| a.strip_prefix("of="))
        .filter(|t| is_disk_device(t))?;
    Hit::new(
        Category::RawDiskWrite,
        format!("`dd of={target}` overwrites a disk device"),
    )
}

fn check_device_args(name: &str, args: &[String], category: Category) -> Option<Hit> {
    let target = operands(args).into_iter().find(|a| is_disk_device(a))?;
    Hit::new(
        category,
        format!("`{name} {target}` overwrites a disk device"),
    )
}

fn check_copy_to_device(name: &str, args: &[String]) -> Option<Hit> {
    let ops = operands(args);
    let target = match name {
        "cp" => ops.last().copied().filter(|t| is_disk_device(t)),
        "tee" => ops.into_iter().find(|t| is_disk_device(t)),
        _ => None,
    }?;
    Hit::new(
        Category::RawDiskWrite,
        format!("`{name} … {target}` writes onto a disk device"),
    )
}

fn check_permissions(name: &str, args: &[String]) -> Option<Hit> {
    let recursive = has_any(args, &["--recursive"], "R");
    let ops = operands(args);
    // The first operand is the mode or owner (unless --reference gives it).
    let skip = usize::from(!args.iter().any(|a| a.starts_with("--reference")));
    let (target, what) = ops
        .iter()
        .skip(skip)
        .find_map(|t| wide_path(t).map(|w| (*t, w)))?;
    let whole_root = what == "the whole file system" || paths::system_path(target);
    (recursive || whole_root)
        .then(|| {
            Hit::new(
                Category::PermissionBlast,
                format!("`{name} … {target}` changes permissions on {what}"),
            )
        })
        .flatten()
}

/// Git's global options that take a value.
const GIT_GLOBAL_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--config-env",
    "--super-prefix",
];

fn check_git(args: &[String]) -> Option<Hit> {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if GIT_GLOBAL_WITH_VALUE.contains(&args[i].as_str()) {
            2
        } else {
            1
        };
    }
    let sub = args.get(i)?.as_str();
    let rest = &args[i + 1..];
    match sub {
        "push" => check_git_push(rest),
        "reset" => rest
            .iter()
            .any(|a| a == "--hard")
            .then(|| {
                Hit::new(
                    Category::DestructiveGit,
                    "`git reset --hard` discards uncommitted changes",
                )
            })
            .flatten(),
        "clean" => {
            let forced = has_any(rest, &["--force"], "f");
            let dry = has_any(rest, &["--dry-run"], "n");
            (forced && !dry)
                .then(|| {
                    Hit::new(
                        Category::DestructiveGit,
                        "`git clean -f` deletes untracked files, which git cannot bring back",
                    )
                })
                .flatten()
        }
        "checkout" => {
            let forced = has_any(rest, &["--force"], "f");
            let whole_tree = operands(rest).iter().any(|p| *p == "." || *p == ":/");
            (forced || whole_tree)
                .then(|| {
                    Hit::new(
                        Category::DestructiveGit,
                        "`git checkout` over the whole tree discards uncommitted changes",
                    )
                })
                .flatten()
        }
        "stash" => matches!(rest.first().map(String::as_str), Some("clear"))
            .then(|| {
                Hit::new(
                    Category::DestructiveGit,
                    "`git stash clear` deletes every stash",
                )
            })
            .flatten(),
        "reflog" => {
            let expire_now = matches!(rest.first().map(String::as_str), Some("expire"))
                && rest.iter().any(|a| {
                    matches!(
                        a.as_str(),
                        "--expire=now"
                            | "--expire=all"
                            | "--expire-unreachable=now"
                            | "--expire-unreachable=all"
                    )
                });
            expire_now
                .then(|| Hit::new(Category::DestructiveGit, "`git reflog expire --expire=now` drops the history that lets lost commits be recovered"))
                .flatten()
        }
        "filter-branch" | "filter-repo" => Hit::new(
            Category::DestructiveGit,
            format!("`git {sub}` rewrites the repository's history"),
        ),
        _ => None,
    }
}

fn check_git_push(args: &[String]) -> Option<Hit> {
    let mut positional = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            positional.extend(args[i..].iter().map(String::as_str));
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let flag = long.split('=').next().unwrap_or(long);
            match flag {
                "force" => {
                    return Hit::new(
                        Category::ForcePush,
                        "`git push --force` overwrites remote history",
                    );
                }
                "force-with-lease" | "force-if-includes" => {
                    return Hit::new(
                        Category::ForcePush,
                        "`git push --force-with-lease` still overwrites remote history",
                    );
                }
                "delete" => {
                    return Hit::new(
                        Category::ForcePush,
                        "`git push --delete` deletes remote branches",
                    );
                }
                "mirror" => {
                    return Hit::new(
                        Category::ForcePush,
                        "`git push --mirror` overwrites and deletes remote refs",
                    );
                }
                "prune" => {
                    return Hit::new(
                        Category::ForcePush,
                        "`git push --prune` deletes remote branches",
                    );
                }
                "push-option" | "repo" | "receive-pack" | "exec" if !long.contains('=') => i += 1,
                _ => {}
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            for c in cluster.chars() {
                match c {
                    'f' => {
                        return Hit::new(
                            Category::ForcePush,
                            "`git push -f` overwrites remote history",
                        );
                    }
                    'd' => {
                        return Hit::new(
                            Category::ForcePush,
                            "`git push -d` deletes remote branches",
                        );
                    }
                    'o' => {
                        if cluster.ends_with('o') {
                            i += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
            continue;
        }
        positional.push(arg);
    }
    // positional[0] is the remote; the rest are refspecs.
    for spec in positional.iter().skip(1) {
        if let Some(rest) = spec.strip_prefix('+') {
            return Hit::new(
                Category::ForcePush,
                format!("`git push +{rest}` force-updates a remote branch"),
            );
        }
        if spec.starts_with(':') && spec.len() > 1 {
            return Hit::new(
                Category::ForcePush,
                format!("`git push {spec}` deletes a remote branch"),
            );
        }
    }
    None
}

fn check_kill(args: &[String]) -> Option<Hit> {
    let mut pids: Vec<&str> = Vec::new();
    let mut signal_seen = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg == "--" {
            pids.extend(args[i..].iter().map(String::as_str));
            break;
        }
        if !signal_seen && arg.starts_with('-') && arg.len() > 1 {
            if matches!(arg, "-l" | "-L" | "--list" | "--table") {
                return None;
            }
            let signal = if matches!(arg, "-s" | "-n" | "--signal") {
                i += 1;
                args.get(i - 1).map_or("", String::as_str)
            } else {
                arg.trim_start_matches('-')
            };
            // Signal 0 only checks that the process exists.
            if signal == "0" {
                return None;
            }
            signal_seen = true;
            continue;
        }
        pids.push(arg);
    }
    if pids.contains(&"-1") {
        return Hit::new(
            Category::KillAll,
            "`kill … -1` signals every process the user may signal",
        );
    }
    if pids.contains(&"1") {
        return Hit::new(
            Category::KillAll,
            "`kill 1` signals init, which stops the whole system",
        );
    }
    None
}

fn check_pkill(name: &str, args: &[String]) -> Option<Hit> {
    const WITH_VALUE: &[&str] = &[
        "-u",
        "-U",
        "-g",
        "-G",
        "-P",
        "-s",
        "-t",
        "-F",
        "--euid",
        "--uid",
        "--pgroup",
        "--group",
        "--parent",
        "--session",
        "--terminal",
        "--pidfile",
        "--signal",
        "--user",
        "-o",
        "--older-than",
        "-y",
        "--younger-than",
    ];
    let mut patterns = Vec::new();
    let mut by_user = false;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        i += 1;
        if arg.starts_with('-') && arg.len() > 1 {
            if matches!(arg, "-u" | "-U" | "--euid" | "--uid" | "--user")
                || arg.starts_with("--euid=")
                || arg.starts_with("--uid=")
                || arg.starts_with("--user=")
            {
                by_user = true;
            }
            if WITH_VALUE.contains(&arg) {
                i += 1;
            }
            continue;
        }
        patterns.push(arg);
    }
    if by_user && patterns.is_empty() {
        return Hit::new(
            Category::KillAll,
            format!("`{name} -u …` with no pattern kills every process of a user"),
        );
    }
    if name == "pkill" && patterns.iter().any(|p| matches!(*p, "." | ".*" | "^" | "")) {
        return Hit::new(Category::KillAll, "`pkill .` matches every process");
    }
    None
}

/// Programs that download from the network to their standard output.
pub(crate) fn is_download(argv: &[String]) -> bool {
    argv.first().is_some_and(|p| {
        matches!(
            base_name(p),
            "curl" | "wget" | "fetch" | "http" | "https" | "xh" | "lwp-request" | "GET"
        )
    })
}

/// Whether `argv` is a shell or interpreter that runs code read from its standard input.
pub(crate) fn executes_stdin(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let name = base_name(first);
    let code_letters = match interpreter_kind(name) {
        Some(Interp::Shell) => "c",
        Some(Interp::Python) => "cm",
        Some(Interp::Perl) => "eE",
        Some(Interp::Ruby) => "e",
        Some(Interp::Node) => "ep",
        Some(Interp::Php) => "r",
        Some(Interp::Source) => {
            return argv.get(1).is_some_and(|a| {
                matches!(
                    a.as_str(),
                    "/dev/stdin" | "-" | "/proc/self/fd/0" | "/dev/fd/0"
                )
            });
        }
        None => return false,
    };
    let mut i = 1;
    while i < argv.len() {
        let arg = argv[i].as_str();
        i += 1;
        if arg == "-" || arg == "/dev/stdin" {
            return true;
        }
        if arg == "--" {
            return argv.get(i).is_none();
        }
        if let Some(long) = arg.strip_prefix("--") {
            if matches!(
                long.split('=').next().unwrap_or(long),
                "command" | "eval" | "print" | "version" | "help"
            ) {
                return false;
            }
            if matches!(long, "rcfile" | "init-file") {
                i += 1;
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').or_else(|| arg.strip_prefix('+')) {
            if cluster.contains('s') && code_letters == "c" {
                return true;
            }
            if cluster.chars().any(|c| code_letters.contains(c)) {
                return false;
            }
            if matches!(cluster, "o" | "O" | "W" | "X") {
                i += 1;
            }
            continue;
        }
        // A script file: stdin is data, not code.
        return false;
    }
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interp {
    Shell,
    Python,
    Perl,
    Ruby,
    Node,
    Php,
    Source,
}

fn interpreter_kind(name: &str) -> Option<Interp> {
    Some(match name {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "csh" | "tcsh"
        | "yash" => Interp::Shell,
        "perl" => Interp::Perl,
        "ruby" => Interp::Ruby,
        "node" | "nodejs" | "bun" => Interp::Node,
        "php" => Interp::Php,
        "source" | "." => Interp::Source,
        n if n.starts_with("python") || n == "pypy" || n == "pypy3" => Interp::Python,
        _ => return None,
    })
}

/// Whether `name` is a shell or script interpreter (its script argument is code).
pub(crate) fn is_interpreter(name: &str) -> bool {
    interpreter_kind(base_name(name)).is_some()
}

/// Whether `name` is a shell that takes `-c COMMAND`.
pub(crate) fn is_shell(name: &str) -> bool {
    interpreter_kind(base_name(name)) == Some(Interp::Shell)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn root_like_paths() {
        for p in [
            "/",
            "/*",
            "//",
            "/.",
            "/usr",
            "/usr/",
            "/etc/*",
            "~",
            "~/",
            "~/*",
            "$HOME",
            "${HOME}/",
            "/home/..",
            "$PREFIX/",
            "$DIR/*",
            "~root",
            "/home/me",
            "/Users/me/",
        ] {
            assert!(root_like(p).is_some(), "{p}");
        }
        for p in [
            "~.bak",
            "/home/me/project/target",
            "target",
            "./build",
            "/tmp/x",
            "/usr/local/lib/foo",
            "~/projects/x",
            "$HOME/.cache/x",
            "$DIR/build",
            "node_modules",
            "*",
        ] {
            assert!(root_like(p).is_none(), "{p}");
        }
    }

    #[test]
    fn stdin_executors() {
        for s in [
            "sh",
            "bash -s -- --yes",
            "python3",
            "python3 -",
            "sudo",
            "bash -x",
            "perl",
            "node -",
        ] {
            let argv = words(s);
            if s == "sudo" {
                assert!(!executes_stdin(&argv));
            } else {
                assert!(executes_stdin(&argv), "{s}");
            }
        }
        for s in [
            "python3 -m json.tool",
            "python -c print(1)",
            "bash script.sh",
            "jq .",
            "perl -ne print",
            "node -e 1",
        ] {
            assert!(!executes_stdin(&words(s)), "{s}");
        }
    }

    #[test]
    fn devices() {
        assert!(is_disk_device("/dev/sda"));
        assert!(is_disk_device("/dev/nvme0n1p1"));
        assert!(!is_disk_device("/dev/null"));
        assert!(!is_disk_device("/dev/fd/1"));
        assert!(!is_disk_device("/dev/stdout"));
    }
}
