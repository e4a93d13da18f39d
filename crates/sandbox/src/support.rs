//! What this kernel offers the sandbox (Landlock, seccomp, mount namespaces) and what each mode
//! can therefore enforce here: the report behind `keel sandbox check`.

use std::sync::OnceLock;

use serde::Serialize;

use crate::mode::SandboxMode;

/// The kernel features the sandbox uses, probed once per process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Support {
    /// The operating system (`linux`, `macos`, …).
    pub os: String,
    /// The Landlock ABI version the kernel reports; `None` when Landlock is absent or disabled.
    pub landlock_abi: Option<u32>,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
    /// Whether a child can get a private mount namespace (for the read-only `.git`, `.keel` and
    /// `keel.toml` under `workspace-write`); unprivileged users need user namespaces for it.
    pub mount_namespace: bool,
    /// Why the mount namespace probe failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mount_namespace_error: Option<String>,
}

/// What one mode enforces on this kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModeReport {
    /// The mode.
    pub mode: SandboxMode,
    /// Whether `network = false` is part of what was checked.
    pub network: bool,
    /// Every guarantee of the mode holds here.
    pub enforceable: bool,
    /// The guarantees that hold, one phrase each.
    pub enforced: Vec<String>,
    /// The guarantees that do not hold here, one phrase each, saying what is missing.
    pub missing: Vec<String>,
}

/// The lowest Landlock ABI with every filesystem right the sandbox relies on (truncation is
/// controlled from ABI 3).
pub const FULL_LANDLOCK_ABI: u32 = 3;
/// The Landlock ABI that adds TCP bind/connect rules (used as a second line behind seccomp).
pub const NET_LANDLOCK_ABI: u32 = 4;

impl Support {
    /// This kernel's support, probed on first use and then remembered.
    pub fn get() -> &'static Support {
        static SUPPORT: OnceLock<Support> = OnceLock::new();
        SUPPORT.get_or_init(probe)
    }

    /// What `mode` (with `network` allowed or not) enforces here.
    pub fn report(&self, mode: SandboxMode, network: bool) -> ModeReport {
        let mut enforced = Vec::new();
        let mut missing = Vec::new();
        if mode == SandboxMode::Off {
            return ModeReport {
                mode,
                network: true,
                enforceable: true,
                enforced: vec!["nothing: commands run unconfined".to_owned()],
                missing,
            };
        }
        let writes = match mode {
            SandboxMode::ReadOnly => "writes only to a private temp dir",
            _ => "writes only under the workspace root, a private temp dir and writable_roots",
        };
        match self.landlock_abi {
            Some(abi) if abi >= FULL_LANDLOCK_ABI => {
                enforced.push(format!("{writes} (Landlock ABI {abi})"));
            }
            Some(abi) => {
                enforced.push(format!("{writes} (Landlock ABI {abi})"));
                missing.push(format!(
                    "truncating files outside the writable paths is not controlled (needs \
                     Landlock ABI {FULL_LANDLOCK_ABI}, the kernel has {abi})"
                ));
            }
            None => missing.push(format!("{writes}: the kernel has no Landlock")),
        }
        if mode == SandboxMode::WorkspaceWrite {
            if self.mount_namespace {
                enforced.push(
                    ".git, .keel and keel.toml read-only (read-only bind mounts in a private \
                     mount namespace)"
                        .to_owned(),
                );
            } else {
                missing.push(format!(
                    ".git, .keel and keel.toml read-only: no private mount namespace ({})",
                    self.mount_namespace_error
                        .as_deref()
                        .unwrap_or("unsupported here")
                ));
            }
        }
        if network {
            enforced.push("network allowed (network = true)".to_owned());
        } else if self.seccomp {
            let landlock_net = match self.landlock_abi {
                Some(abi) if abi >= NET_LANDLOCK_ABI => ", and Landlock TCP rules",
                _ => "",
            };
            enforced.push(format!(
                "no network: new AF_INET/AF_INET6 sockets denied by seccomp (AF_UNIX \
                 works){landlock_net}"
            ));
        } else {
            missing.push("no network: the kernel has no seccomp filters".to_owned());
        }
        ModeReport {
            mode,
            network,
            enforceable: missing.is_empty(),
            enforced,
            missing,
        }
    }
}

#[cfg(target_os = "linux")]
fn probe() -> Support {
    let (mount_namespace, mount_namespace_error) = match crate::linux::probe_mount_namespace() {
        Ok(()) => (true, None),
        Err(e) => (false, Some(e)),
    };
    Support {
        os: std::env::consts::OS.to_owned(),
        landlock_abi: crate::linux::landlock_abi(),
        seccomp: crate::linux::seccomp_available(),
        mount_namespace,
        mount_namespace_error,
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Support {
    Support {
        os: std::env::consts::OS.to_owned(),
        landlock_abi: None,
        seccomp: false,
        mount_namespace: false,
        mount_namespace_error: Some("not Linux".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(abi: Option<u32>, seccomp: bool, ns: bool) -> Support {
        Support {
            os: "linux".to_owned(),
            landlock_abi: abi,
            seccomp,
            mount_namespace: ns,
            mount_namespace_error: (!ns).then(|| "EPERM".to_owned()),
        }
    }

    #[test]
    fn full_support_enforces_every_mode() {
        let k = kernel(Some(7), true, true);
        for mode in [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite] {
            let r = k.report(mode, false);
            assert!(r.enforceable, "{r:?}");
            assert!(r.enforced.iter().any(|e| e.contains("seccomp")));
        }
    }

    #[test]
    fn gaps_are_named() {
        let r = kernel(None, false, false).report(SandboxMode::WorkspaceWrite, false);
        assert!(!r.enforceable);
        assert_eq!(r.missing.len(), 3, "{r:?}");
        let r = kernel(Some(2), true, false).report(SandboxMode::ReadOnly, true);
        assert!(!r.enforceable);
        assert!(r.missing[0].contains("ABI 3"));
        let r = kernel(None, false, false).report(SandboxMode::Off, false);
        assert!(r.enforceable);
    }
}
