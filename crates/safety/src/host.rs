//! Rules about the machine itself: firewall and routing, services and scheduled jobs, kernel
//! modules and settings, accounts, logs and histories, files of the operating system.

use super::category::Category;
use super::paths;
use super::rules::{Hit, has_any, operands};

/// Rules that must win over the generic ones (a delete of `/var/log` is log wiping, a write
/// to `/etc/shadow` is an account change, before either is a system-file write).
pub(crate) fn check_first(name: &str, args: &[String]) -> Option<Hit> {
    let ops = operands(args);
    match name {
        "rm" | "unlink" | "shred" | "srm" | "wipe" | "truncate" => {
            if let Some(target) = ops.iter().find(|t| paths::log_path(t)) {
                return Hit::new(
                    Category::LogWipe,
                    format!("`{name} {target}` erases a log or shell history"),
                );
            }
        }
        "find" => {
            let deletes = args.iter().any(|a| a == "-delete" || a == "-exec");
            let start = args
                .iter()
                .take_while(|a| !a.starts_with('-'))
                .find(|a| paths::log_path(a));
            if let (true, Some(start)) = (deletes, start) {
                return Hit::new(
                    Category::LogWipe,
                    format!("`find {start} … -delete` erases logs"),
                );
            }
        }
        "ln" => {
            // `ln -sf /dev/null ~/.bash_history`
            if ops.first() == Some(&"/dev/null")
                && let Some(target) = ops.get(1).filter(|t| paths::log_path(t))
            {
                return Hit::new(
                    Category::LogWipe,
                    format!("`ln -s /dev/null {target}` throws the history away"),
                );
            }
        }
        _ => {}
    }
    if let Some(target) = written_paths(name, args).find(|t| paths::account_path(t)) {
        return Hit::new(
            Category::AccountChange,
            format!("`{name} … {target}` changes who may log in or become root"),
        );
    }
    if let Some(target) = written_paths(name, args).find(|t| paths::kernel_path(t)) {
        return Hit::new(
            Category::KernelChange,
            format!("`{name} … {target}` changes a kernel setting"),
        );
    }
    None
}

/// The paths a file-changing command writes, replaces or deletes.
fn written_paths<'a>(name: &str, args: &'a [String]) -> Box<dyn Iterator<Item = &'a str> + 'a> {
    let ops = operands(args);
    match name {
        "tee" | "rm" | "unlink" | "shred" | "truncate" | "touch" | "rmdir" => {
            Box::new(ops.into_iter())
        }
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            let target_dir = args
                .iter()
                .position(|a| a == "-t" || a == "--target-directory")
                .and_then(|i| args.get(i + 1))
                .map(String::as_str)
                .or_else(|| {
                    args.iter()
                        .find_map(|a| a.strip_prefix("--target-directory="))
                });
            Box::new(target_dir.or(ops.last().copied()).into_iter())
        }
        "sed" | "perl"
            if args
                .iter()
                .any(|a| a.starts_with("-i") || a == "--in-place") =>
        {
            Box::new(ops.into_iter().skip(1))
        }
        "dd" => Box::new(args.iter().filter_map(|a| a.strip_prefix("of="))),
        _ => Box::new(std::iter::empty()),
    }
}

/// The host rules checked after the built-in ones.
pub(crate) fn check(name: &str, args: &[String]) -> Option<Hit> {
    match name {
        "iptables" | "ip6tables" | "iptables-legacy" | "iptables-nft" | "ip6tables-legacy"
        | "ip6tables-nft" | "ebtables" | "arptables" => firewall_tables(name, args),
        "iptables-restore" | "ip6tables-restore" | "iptables-legacy-restore" => Hit::new(
            Category::FirewallChange,
            format!("`{name}` replaces the firewall rules"),
        ),
        "nft" => {
            const WRITES: &[&str] = &[
                "flush", "delete", "destroy", "add", "insert", "replace", "create", "-f", "--file",
            ];
            word_in(args, WRITES).and_then(|w| {
                Hit::new(
                    Category::FirewallChange,
                    format!("`nft {w}` changes the firewall rules"),
                )
            })
        }
        "ufw" => {
            const READS: &[&str] = &["status", "show", "version", "app", "--help", "help"];
            match operands(args).first() {
                Some(sub) if !READS.contains(sub) => Hit::new(
                    Category::FirewallChange,
                    format!("`ufw {sub}` changes the firewall"),
                ),
                _ => None,
            }
        }
        "firewall-cmd" => {
            let reads_only = args.iter().all(|a| {
                a.starts_with("--list")
                    || a.starts_with("--get")
                    || a.starts_with("--query")
                    || a.starts_with("--zone")
                    || matches!(a.as_str(), "--state" | "--help" | "-h" | "--version" | "-q")
            });
            (!reads_only && !args.is_empty())
                .then(|| {
                    Hit::new(
                        Category::FirewallChange,
                        "`firewall-cmd` changes the firewall",
                    )
                })
                .flatten()
        }
        "pfctl" => has_any(args, &[], "dFfeK")
            .then(|| {
                Hit::new(
                    Category::FirewallChange,
                    "`pfctl` changes the packet filter",
                )
            })
            .flatten(),
        "ip" => ip_command(args),
        "route" => word_in(args, &["add", "del", "delete", "flush", "change"]).and_then(|w| {
            Hit::new(
                Category::RoutingChange,
                format!("`route {w}` changes the routing table"),
            )
        }),
        "ifconfig" => {
            let ops = operands(args);
            (ops.len() >= 2)
                .then(|| {
                    Hit::new(
                        Category::RoutingChange,
                        format!(
                            "`ifconfig {}` reconfigures a network interface",
                            ops.join(" ")
                        ),
                    )
                })
                .flatten()
        }
        "ifdown" => Hit::new(Category::RoutingChange, "`ifdown` takes an interface down"),
        "nmcli" => {
            let ops = operands(args);
            let takes_down = ops.windows(2).any(|w| {
                matches!(
                    (w[0], w[1]),
                    ("networking", "off")
                        | ("radio", "off")
                        | ("connection" | "con" | "c", "down" | "delete" | "del")
                        | ("device" | "dev" | "d", "disconnect" | "down" | "delete")
                )
            });
            takes_down
                .then(|| Hit::new(Category::RoutingChange, "`nmcli` takes the network down"))
                .flatten()
        }
        "crontab" => crontab(args),
        "atrm" => Hit::new(Category::ScheduledJobRemoval, "`atrm` deletes queued jobs"),
        "at" if has_any(args, &[], "rd") => {
            Hit::new(Category::ScheduledJobRemoval, "`at -r` deletes queued jobs")
        }
        "systemctl" => {
            const REMOVES: &[&str] = &["stop", "disable", "mask", "kill", "isolate"];
            word_in(args, REMOVES).and_then(|w| {
                let timer = args.iter().any(|a| a.ends_with(".timer"));
                Hit::new(
                    if timer {
                        Category::ScheduledJobRemoval
                    } else {
                        Category::ServiceRemoval
                    },
                    format!("`systemctl {w}` stops or disables a service"),
                )
            })
        }
        "service" | "rc-service" => word_in(args, &["stop", "disable", "zap"]).and_then(|w| {
            Hit::new(
                Category::ServiceRemoval,
                format!("`{name} … {w}` stops a service"),
            )
        }),
        "update-rc.d" | "rc-update" | "chkconfig" => word_in(
            args,
            &["remove", "disable", "del", "delete", "off", "--del"],
        )
        .and_then(|w| {
            Hit::new(
                Category::ServiceRemoval,
                format!("`{name} … {w}` removes a service from start-up"),
            )
        }),
        "launchctl" => word_in(
            args,
            &["unload", "remove", "bootout", "disable", "stop", "kill"],
        )
        .and_then(|w| {
            Hit::new(
                Category::ServiceRemoval,
                format!("`launchctl {w}` stops or removes a service"),
            )
        }),
        "insmod" | "rmmod" | "kexec" => Hit::new(
            Category::KernelChange,
            format!("`{name}` changes the running kernel"),
        ),
        "modprobe" => {
            let reads = has_any(
                args,
                &[
                    "--dry-run",
                    "--show-depends",
                    "--showconfig",
                    "--help",
                    "--version",
                    "--show",
                ],
                "ncDVh",
            );
            (!reads && !operands(args).is_empty())
                .then(|| {
                    Hit::new(
                        Category::KernelChange,
                        "`modprobe` loads or removes a kernel module",
                    )
                })
                .flatten()
        }
        "sysctl" => {
            let writes = has_any(args, &["--write", "--load", "--system"], "wp")
                || operands(args).iter().any(|a| a.contains('='));
            writes
                .then(|| Hit::new(Category::KernelChange, "`sysctl` changes kernel settings"))
                .flatten()
        }
        "useradd" | "userdel" | "usermod" | "adduser" | "deluser" | "addgroup" | "delgroup"
        | "groupadd" | "groupdel" | "groupmod" | "gpasswd" | "chpasswd" | "chage" | "vipw"
        | "vigr" | "visudo" | "chsh" | "newusers" | "pwconv" | "dscl" | "sysadminctl" => {
            let reads = has_any(args, &["--help", "--version", "--check", "-c"], "")
                && matches!(name, "visudo" | "chage");
            (!reads)
                .then(|| {
                    Hit::new(
                        Category::AccountChange,
                        format!("`{name}` changes user accounts or groups"),
                    )
                })
                .flatten()
        }
        "passwd" => (!has_any(args, &["--status", "-S", "--help"], ""))
            .then(|| Hit::new(Category::AccountChange, "`passwd` changes a password"))
            .flatten(),
        "history" => has_any(args, &[], "cd")
            .then(|| Hit::new(Category::LogWipe, "`history -c` erases the shell history"))
            .flatten(),
        "unset" => args
            .iter()
            .any(|a| a == "HISTFILE")
            .then(|| {
                Hit::new(
                    Category::LogWipe,
                    "`unset HISTFILE` stops recording history",
                )
            })
            .flatten(),
        "export" | "declare" | "typeset" | "local" => args
            .iter()
            .find_map(|a| history_off(a).and_then(|r| Hit::new(Category::LogWipe, r))),
        "set" => args
            .windows(2)
            .any(|w| w[0] == "+o" && w[1] == "history")
            .then(|| {
                Hit::new(
                    Category::LogWipe,
                    "`set +o history` stops recording history",
                )
            })
            .flatten(),
        "journalctl" => args
            .iter()
            .find(|a| a.starts_with("--vacuum"))
            .and_then(|a| {
                Hit::new(
                    Category::LogWipe,
                    format!("`journalctl {a}` deletes system logs"),
                )
            }),
        "wevtutil" => word_in(args, &["cl", "clear-log"])
            .and_then(|_| Hit::new(Category::LogWipe, "`wevtutil cl` clears an event log")),
        "chattr" => operands(args)
            .iter()
            .skip(1)
            .find(|t| paths::system_path(t))
            .and_then(|t| {
                Hit::new(
                    Category::SystemFileWrite,
                    format!("`chattr … {t}` changes attributes of a system file"),
                )
            }),
        _ => {
            let target = written_paths(name, args).find(|t| paths::system_path(t))?;
            Hit::new(
                Category::SystemFileWrite,
                format!("`{name} … {target}` changes a file of the operating system"),
            )
        }
    }
}

/// `HISTFILE=/dev/null`, `HISTSIZE=0`, `HISTFILESIZE=0`: turns history off; the reason if so.
pub(crate) fn history_off(assignment: &str) -> Option<String> {
    let (name, value) = assignment.split_once('=')?;
    let off = match name {
        "HISTFILE" => value.is_empty() || value == "/dev/null",
        "HISTSIZE" | "HISTFILESIZE" | "SAVEHIST" => value == "0",
        _ => false,
    };
    off.then(|| format!("`{name}={value}` stops recording history"))
}

/// The first argument that is one of `words`.
fn word_in<'a>(args: &'a [String], words: &[&str]) -> Option<&'a str> {
    args.iter().map(String::as_str).find(|a| words.contains(a))
}

fn firewall_tables(name: &str, args: &[String]) -> Option<Hit> {
    const LONG: &[&str] = &[
        "--flush",
        "--delete-chain",
        "--zero",
        "--delete",
        "--append",
        "--insert",
        "--replace",
        "--policy",
        "--new-chain",
        "--rename-chain",
    ];
    // Short commands are upper-case letters; `-t nat`, `-j DROP` etc. take values.
    let writes = args.iter().any(|a| {
        LONG.contains(&a.as_str())
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a[1..].chars().any(|c| "FXZDAIRPNE".contains(c))
                && !a[1..].contains('L')
                && !a[1..].contains('S'))
    });
    writes
        .then(|| {
            Hit::new(
                Category::FirewallChange,
                format!("`{name}` changes the firewall rules"),
            )
        })
        .flatten()
}

fn ip_command(args: &[String]) -> Option<Hit> {
    // Skip options such as `-6`, `-br`, `-n NETNS`.
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if matches!(args[i].as_str(), "-n" | "-netns" | "-b" | "-batch") {
            2
        } else {
            1
        };
    }
    let object = args.get(i)?.as_str();
    let verb = args.get(i + 1).map_or("", String::as_str);
    let routing = matches!(
        object,
        "route"
            | "ro"
            | "r"
            | "rule"
            | "ru"
            | "link"
            | "l"
            | "addr"
            | "address"
            | "a"
            | "neigh"
            | "n"
            | "tunnel"
            | "xfrm"
    );
    let writes = matches!(
        verb,
        "add" | "del" | "delete" | "change" | "replace" | "flush" | "append" | "set" | "a" | "d"
    );
    (routing && writes)
        .then(|| {
            Hit::new(
                Category::RoutingChange,
                format!("`ip {object} {verb}` changes the network configuration"),
            )
        })
        .flatten()
}

fn crontab(args: &[String]) -> Option<Hit> {
    if has_any(args, &["--remove"], "r") {
        return Hit::new(
            Category::ScheduledJobRemoval,
            "`crontab -r` deletes every scheduled job",
        );
    }
    let reads = has_any(args, &["--help"], "leT");
    let ops: Vec<&str> = {
        // `-u USER` takes a value.
        let mut out = Vec::new();
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].as_str();
            i += 1;
            if arg == "-u" {
                i += 1;
            } else if arg == "-" || !arg.starts_with('-') {
                out.push(arg);
            }
        }
        out
    };
    match ops.first() {
        Some(file) if !reads => Hit::new(
            Category::ScheduledJobRemoval,
            format!("`crontab {file}` replaces every scheduled job"),
        ),
        _ => None,
    }
}
