//! What the safety check says about a command: the categories of danger and the verdict.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A kind of dangerous command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Recursive delete (or move away) of `/`, `/*`, a top-level system folder, `~` or `$HOME`,
    /// or any `rm --no-preserve-root`; `find / -delete`.
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
    /// `chmod`/`chown`/`chgrp` applied recursively to `/`, a top-level system folder or home.
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
}

impl Category {
    /// Every category, in declaration order.
    pub const ALL: [Category; 10] = [
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
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The safety check's verdict on one command line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Classification {
    /// Whether the command matched a dangerous pattern.
    pub dangerous: bool,
    /// Which pattern (`null` when benign).
    pub category: Option<Category>,
    /// Why, in one sentence (names the part of the command that matched).
    pub reason: String,
}

impl Classification {
    /// A benign verdict.
    pub fn benign() -> Self {
        Self {
            dangerous: false,
            category: None,
            reason: "no dangerous pattern found".to_owned(),
        }
    }

    /// A dangerous verdict.
    pub fn dangerous(category: Category, reason: impl Into<String>) -> Self {
        Self {
            dangerous: true,
            category: Some(category),
            reason: reason.into(),
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
