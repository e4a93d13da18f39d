//! [`Sandbox`]: a policy checked against this kernel for one workspace root, which confines any
//! `Command` it is applied to; and [`Confinement`], what one confined command holds on to.

use std::path::{Path, PathBuf};

use crate::blocked::{Blocked, denials, resolve};
use crate::error::SandboxError;
use crate::mode::{Fallback, SandboxMode};
use crate::policy::SandboxPolicy;
use crate::support::Support;

/// Names under the workspace root that stay read-only in `workspace-write`.
pub const PROTECTED_NAMES: &[&str] = &[".git", ".keel", "keel.toml"];

/// A sandbox policy for one workspace root, checked against what this kernel can enforce.
#[derive(Debug, Clone)]
pub struct Sandbox {
    policy: SandboxPolicy,
    root: PathBuf,
    writable_roots: Vec<PathBuf>,
    gaps: Vec<String>,
}

impl Sandbox {
    /// Checks `policy` for commands run in `root`. With `sandbox_fallback = "refuse"` (the
    /// default), a mode this system cannot fully enforce is an error naming what is missing.
    pub fn new(policy: SandboxPolicy, root: &Path) -> Result<Self, SandboxError> {
        let canonical = |path: &Path| {
            path.canonicalize().map_err(|e| SandboxError::Path {
                path: path.to_path_buf(),
                reason: e.to_string(),
            })
        };
        let root = canonical(root)?;
        let writable_roots = policy
            .writable_roots
            .iter()
            .map(|path| canonical(&root.join(path)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut gaps = Vec::new();
        if !policy.is_off() {
            let report = Support::get().report(policy.mode, policy.network);
            if !report.enforceable {
                match policy.fallback {
                    Fallback::Refuse => {
                        return Err(SandboxError::Unenforceable {
                            mode: policy.mode,
                            missing: report.missing.join("; "),
                        });
                    }
                    Fallback::Warn => gaps = report.missing,
                }
            }
        }
        Ok(Self {
            policy,
            root,
            writable_roots,
            gaps,
        })
    }

    /// No sandbox for `root` (commands run unconfined).
    pub fn off(root: &Path) -> Self {
        Self {
            policy: SandboxPolicy::off(),
            root: root.to_path_buf(),
            writable_roots: Vec::new(),
            gaps: Vec::new(),
        }
    }

    /// The policy.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The warning to show with every command when the mode is only partly enforced here
    /// (`sandbox_fallback = "warn"`).
    pub fn warning(&self) -> Option<String> {
        (!self.gaps.is_empty()).then(|| {
            format!(
                "the sandbox ({}) is only partly enforced on this system: {}",
                self.policy.describe(),
                self.gaps.join("; ")
            )
        })
    }

    /// Confines `command`: it will run in the sandbox, with `TMPDIR` set to a private temp dir
    /// and the tools' caches that live in the home folder (`XDG_CACHE_HOME`, `GOCACHE`,
    /// `npm_config_cache`) moved under it: a cache outside the writable paths fails the tool
    /// (`go test` cannot start), and one shared with commands run outside the sandbox could be
    /// poisoned from inside it.
    /// Keep the returned [`Confinement`] until the command has ended (it owns the temp dir).
    pub fn confine(
        &self,
        command: &mut tokio::process::Command,
    ) -> Result<Confinement, SandboxError> {
        let (confinement, setup) = self.prepare()?;
        if let Some(setup) = setup {
            for (key, value) in confinement.env() {
                command.env(key, value);
            }
            install_tokio(setup, command);
        }
        Ok(confinement)
    }

    /// [`Sandbox::confine`] for a `std::process::Command`.
    pub fn confine_std(
        &self,
        command: &mut std::process::Command,
    ) -> Result<Confinement, SandboxError> {
        let (confinement, setup) = self.prepare()?;
        if let Some(setup) = setup {
            for (key, value) in confinement.env() {
                command.env(key, value);
            }
            install_std(setup, command);
        }
        Ok(confinement)
    }

    fn protected(&self) -> Vec<PathBuf> {
        if self.policy.mode != SandboxMode::WorkspaceWrite {
            return Vec::new();
        }
        PROTECTED_NAMES
            .iter()
            .map(|name| self.root.join(name))
            .filter(|path| path.symlink_metadata().is_ok())
            .collect()
    }

    fn prepare(&self) -> Result<(Confinement, Option<Setup>), SandboxError> {
        if self.policy.is_off() {
            return Ok((
                Confinement {
                    temp: None,
                    root: self.root.clone(),
                    writable: Vec::new(),
                    protected: Vec::new(),
                    mode: SandboxMode::Off,
                    network: true,
                },
                None,
            ));
        }
        let temp = tempfile::Builder::new()
            .prefix("keel-sandbox-")
            .tempdir()
            .map_err(SandboxError::TempDir)?;
        let temp_path = temp.path().canonicalize().map_err(SandboxError::TempDir)?;
        let mut writable = vec![temp_path];
        if self.policy.mode == SandboxMode::WorkspaceWrite {
            writable.push(self.root.clone());
        }
        writable.extend(self.writable_roots.iter().cloned());
        let protected = self.protected();
        let setup = build_setup(&writable, &protected, self.policy.network)?;
        Ok((
            Confinement {
                temp: Some(temp),
                root: self.root.clone(),
                writable,
                protected,
                mode: self.policy.mode,
                network: self.policy.network,
            },
            Some(setup),
        ))
    }
}

/// What one confined command holds: its private temp dir (removed when this is dropped) and
/// what it may write, to tell a sandbox denial from an ordinary one afterwards.
#[derive(Debug)]
pub struct Confinement {
    temp: Option<tempfile::TempDir>,
    root: PathBuf,
    writable: Vec<PathBuf>,
    protected: Vec<PathBuf>,
    mode: SandboxMode,
    network: bool,
}

impl Confinement {
    /// Whether the command runs confined.
    pub fn is_confined(&self) -> bool {
        self.mode != SandboxMode::Off
    }

    /// The private temp dir (also the command's `TMPDIR`), when confined.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_ref().map(tempfile::TempDir::path)
    }

    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let Some(dir) = self.temp_dir() else {
            return Vec::new();
        };
        let cache = dir.join("cache");
        let mut env: Vec<(&'static str, PathBuf)> = ["TMPDIR", "TMP", "TEMP"]
            .into_iter()
            .map(|key| (key, dir.to_path_buf()))
            .collect();
        env.push(("GOCACHE", cache.join("go-build")));
        env.push(("npm_config_cache", cache.join("npm")));
        env.push(("XDG_CACHE_HOME", cache));
        env
    }

    /// What the sandbox stopped, judging by a failed command's `output` (run with the workspace
    /// root as its working directory): the first denial of a write outside the writable paths
    /// or into a protected one, or of a socket while the network is off. `None` when nothing in
    /// the output points at the sandbox (an ordinary permission error under a writable path is
    /// not blamed on it).
    pub fn explain(&self, output: &str) -> Option<Blocked> {
        if !self.is_confined() {
            return None;
        }
        let mut unnamed = None;
        for denial in denials(output) {
            if denial.not_permitted
                && !self.network
                && (denial.network_words || denial.path.is_none())
            {
                return Some(Blocked::Network);
            }
            let Some(path) = &denial.path else {
                unnamed.get_or_insert(Blocked::Unnamed { line: denial.line });
                continue;
            };
            let path = resolve(path, &self.root);
            if let Some(protected) = self.protected.iter().find(|p| path.starts_with(p)) {
                let name = protected
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                return Some(Blocked::Write {
                    path,
                    note: Some(format!("{name} stays read-only in workspace-write")),
                });
            }
            let writable =
                self.writable.iter().any(|w| path.starts_with(w)) || path.starts_with("/dev");
            if !writable {
                let note = (self.mode == SandboxMode::ReadOnly)
                    .then(|| "read-only mode allows writes only to its temp dir".to_owned());
                return Some(Blocked::Write { path, note });
            }
        }
        unnamed
    }
}

#[cfg(target_os = "linux")]
type Setup = crate::linux::ChildSetup;

#[cfg(target_os = "linux")]
fn build_setup(
    writable: &[PathBuf],
    protected: &[PathBuf],
    network: bool,
) -> Result<Setup, SandboxError> {
    use crate::linux::{ChildSetup, Namespace, no_network_filter, ruleset};
    let support = Support::get();
    let namespace = if support.mount_namespace && !protected.is_empty() {
        Some(Namespace::new(protected)?)
    } else {
        None
    };
    let ruleset = match support.landlock_abi {
        Some(_) => Some(ruleset(writable, network)?),
        None => None,
    };
    let seccomp = if !network && support.seccomp {
        Some(no_network_filter()?)
    } else {
        None
    };
    Ok(ChildSetup {
        namespace,
        ruleset,
        seccomp,
    })
}

#[cfg(target_os = "linux")]
fn install_tokio(setup: Setup, command: &mut tokio::process::Command) {
    setup.install_tokio(command);
}

#[cfg(target_os = "linux")]
fn install_std(setup: Setup, command: &mut std::process::Command) {
    setup.install_std(command);
}

/// Elsewhere nothing can be enforced: [`Sandbox::new`] refused, or warns on every command.
#[cfg(not(target_os = "linux"))]
type Setup = ();

#[cfg(not(target_os = "linux"))]
fn build_setup(_: &[PathBuf], _: &[PathBuf], _: bool) -> Result<Setup, SandboxError> {
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn install_tokio(_: Setup, _: &mut tokio::process::Command) {}

#[cfg(not(target_os = "linux"))]
fn install_std(_: Setup, _: &mut std::process::Command) {}
