//! The Linux pieces: probing the kernel, and the child's setup between fork and exec — a private
//! mount namespace with read-only binds, Landlock, then seccomp.
//!
//! Everything the child does is prepared in the parent (rulesets, BPF, C strings, map lines);
//! the closure run after fork only makes system calls on that prepared data, without
//! allocating, as `pre_exec` requires.
// The sandbox is made of system calls the safe wrappers do not cover (`unshare`, `mount`, the
// Landlock ABI query) and `pre_exec` itself; each `unsafe` block says why it is sound.
#![allow(unsafe_code)]

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, RestrictionStatus, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, path_beneath_rules,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::error::SandboxError;

/// The Landlock ABI the rulesets are written for (filesystem rights up to device ioctls, TCP).
const RULESET_ABI: ABI = ABI::V5;

/// Device files every command may write: the null sink, terminals.
const DEVICE_FILES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
];

/// The Landlock ABI the kernel reports, `None` without Landlock.
pub(crate) fn landlock_abi() -> Option<u32> {
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only returns the
    // ABI version (or -1); it reads no memory.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    u32::try_from(abi).ok().filter(|abi| *abi > 0)
}

/// Whether seccomp filters are available (`Seccomp:` in `/proc/self/status`).
pub(crate) fn seccomp_available() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .map(|status| status.lines().any(|line| line.starts_with("Seccomp:")))
        .unwrap_or(false)
}

/// Tries the namespace setup in a real child (`sh -c :`), as commands will get it.
pub(crate) fn probe_mount_namespace() -> Result<(), String> {
    let namespace = Namespace::new(&[]).map_err(|e| e.to_string())?;
    let mut setup = ChildSetup {
        namespace: Some(namespace),
        ruleset: None,
        seccomp: None,
    };
    let mut command = std::process::Command::new("/bin/sh");
    command
        .args(["-c", ":"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: `ChildSetup::run` only makes system calls on data prepared before the fork.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, move || setup.run());
    }
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("the probe exited with {status}")),
        Err(e) => Err(e.to_string()),
    }
}

/// A private mount namespace (inside a user namespace when not root) with read-only binds.
pub(crate) struct Namespace {
    new_user: bool,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Each path to bind read-only, with the flags its mount already has (which a remount
    /// inside a user namespace must keep).
    binds: Vec<(CString, libc::c_ulong)>,
}

impl Namespace {
    /// The setup making each of `read_only` (existing paths) read-only for the child.
    pub(crate) fn new(read_only: &[PathBuf]) -> Result<Self, SandboxError> {
        // SAFETY: geteuid/getegid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let mut binds = Vec::with_capacity(read_only.len());
        for path in read_only {
            let c_path =
                CString::new(path.as_os_str().as_bytes()).map_err(|_| SandboxError::Path {
                    path: path.clone(),
                    reason: "contains a NUL byte".to_owned(),
                })?;
            binds.push((c_path.clone(), mount_flags(&c_path, path)?));
        }
        Ok(Self {
            new_user: uid != 0,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            binds,
        })
    }

    fn enter(&self) -> io::Result<()> {
        let flags = if self.new_user {
            libc::CLONE_NEWUSER | libc::CLONE_NEWNS
        } else {
            libc::CLONE_NEWNS
        };
        // SAFETY: unshare takes flags only.
        if unsafe { libc::unshare(flags) } != 0 {
            return Err(io::Error::last_os_error());
        }
        if self.new_user {
            match write_proc(c"/proc/self/setgroups", b"deny") {
                Err(e) if e.raw_os_error() != Some(libc::ENOENT) => return Err(e),
                _ => {}
            }
            write_proc(c"/proc/self/uid_map", &self.uid_map)?;
            write_proc(c"/proc/self/gid_map", &self.gid_map)?;
        }
        // Nothing mounted here may propagate back to Keel's namespace.
        mount(None, c"/", libc::MS_REC | libc::MS_PRIVATE)?;
        for (path, kept) in &self.binds {
            mount(Some(path), path, libc::MS_BIND | libc::MS_REC)?;
            mount(
                None,
                path,
                libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept,
            )?;
        }
        Ok(())
    }
}

/// The flags of the mount holding `path` that a read-only remount must repeat.
fn mount_flags(c_path: &CStr, path: &Path) -> Result<libc::c_ulong, SandboxError> {
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a valid C string and `stat` is writable memory of the right type.
    if unsafe { libc::statvfs(c_path.as_ptr(), stat.as_mut_ptr()) } != 0 {
        return Err(SandboxError::Path {
            path: path.to_path_buf(),
            reason: io::Error::last_os_error().to_string(),
        });
    }
    // SAFETY: statvfs succeeded, so it filled `stat`.
    let stat = unsafe { stat.assume_init() };
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Ok(pairs
        .iter()
        .filter(|(st, _)| stat.f_flag & st == *st)
        .fold(0, |flags, (_, ms)| flags | ms))
}

fn mount(source: Option<&CStr>, target: &CStr, flags: libc::c_ulong) -> io::Result<()> {
    let source = source.map_or(std::ptr::null(), CStr::as_ptr);
    // SAFETY: both strings are valid C strings (or NULL, which mount accepts for remounts and
    // propagation changes); no filesystem type or data is passed.
    let rc = unsafe {
        libc::mount(
            source,
            target.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn write_proc(path: &CStr, data: &[u8]) -> io::Result<()> {
    // SAFETY: `path` is a valid C string.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `data` is valid for `data.len()` bytes and `fd` is open.
    let written = unsafe { libc::write(fd, data.as_ptr().cast(), data.len()) };
    let error = io::Error::last_os_error();
    // SAFETY: `fd` is ours and closed once.
    unsafe { libc::close(fd) };
    if usize::try_from(written).ok() == Some(data.len()) {
        Ok(())
    } else {
        Err(error)
    }
}

/// The Landlock ruleset: read and execute everywhere, write under `writable` (and the device
/// files); TCP bind/connect handled with no rule (so denied) when the network is off.
pub(crate) fn ruleset(writable: &[PathBuf], network: bool) -> Result<RulesetCreated, SandboxError> {
    let landlock = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(RULESET_ABI))
        .map_err(landlock)?;
    if !network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(RULESET_ABI))
            .map_err(landlock)?;
    }
    ruleset
        .create()
        .map_err(landlock)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(RULESET_ABI)))
        .map_err(landlock)?
        .add_rules(path_beneath_rules(
            writable
                .iter()
                .map(PathBuf::as_path)
                .chain(DEVICE_FILES.iter().map(Path::new)),
            AccessFs::from_all(RULESET_ABI),
        ))
        .map_err(landlock)
}

/// The seccomp program denying (EPERM) sockets of any family but `AF_UNIX`, and io_uring
/// (whose socket operations would bypass the check).
pub(crate) fn no_network_filter() -> Result<BpfProgram, SandboxError> {
    let seccomp = |e: seccompiler::Error| SandboxError::Seccomp(e.to_string());
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    let not_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::AF_UNIX as u64,
    )
    .map_err(|e| seccomp(e.into()))?;
    let mut rules = BTreeMap::new();
    rules.insert(
        libc::SYS_socket,
        vec![SeccompRule::new(vec![not_unix]).map_err(|e| seccomp(e.into()))?],
    );
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| seccomp(e.into()))?;
    BpfProgram::try_from(filter).map_err(|e| seccomp(e.into()))
}

/// What the child does between fork and exec, in order.
pub(crate) struct ChildSetup {
    pub(crate) namespace: Option<Namespace>,
    pub(crate) ruleset: Option<RulesetCreated>,
    pub(crate) seccomp: Option<BpfProgram>,
}

impl ChildSetup {
    /// Runs in the forked child: namespace and binds, Landlock, seccomp. Allocation-free.
    pub(crate) fn run(&mut self) -> io::Result<()> {
        if let Some(namespace) = &self.namespace {
            namespace.enter()?;
        }
        if let Some(ruleset) = self.ruleset.take() {
            match ruleset.restrict_self() {
                Ok(RestrictionStatus {
                    ruleset: RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced,
                    ..
                }) => {}
                Ok(_) => return Err(io::Error::from_raw_os_error(libc::ENOSYS)),
                Err(_) => return Err(io::Error::last_os_error()),
            }
        }
        if let Some(program) = &self.seccomp {
            seccompiler::apply_filter(program).map_err(|_| io::Error::last_os_error())?;
        }
        Ok(())
    }

    /// Installs the setup on `command`, to run in its child between fork and exec.
    pub(crate) fn install_tokio(self, command: &mut tokio::process::Command) {
        let mut setup = self;
        // SAFETY: `ChildSetup::run` only makes system calls on data prepared before the fork.
        unsafe {
            command.pre_exec(move || setup.run());
        }
    }

    /// Installs the setup on `command`, to run in its child between fork and exec.
    pub(crate) fn install_std(self, command: &mut std::process::Command) {
        let mut setup = self;
        // SAFETY: `ChildSetup::run` only makes system calls on data prepared before the fork.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(command, move || setup.run());
        }
    }
}
