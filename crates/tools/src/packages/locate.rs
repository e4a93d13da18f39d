//! Where a dependency's source lives on this machine: the cargo registry
//! (`$CARGO_HOME/registry/src/*/NAME-VERSION`), `node_modules/NAME`, a Python environment's
//! site-packages (the project's `.venv` / `venv`, `$VIRTUAL_ENV`, else the interpreter's), and
//! the Go module cache.

use std::path::{Path, PathBuf};

use super::Ecosystem;

/// Where a located package lives and which version is there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Its folder (or, for a single-module Python package, its `.py` file).
    pub path: PathBuf,
    /// The version installed there, when known.
    pub version: Option<String>,
}

/// The folders searched for an ecosystem, to say where a search looked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places(pub Vec<PathBuf>);

impl Places {
    /// The folders as a comma-separated list.
    pub fn describe(&self) -> String {
        if self.0.is_empty() {
            return "nowhere (no such folder on this machine)".to_owned();
        }
        self.0
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// `$CARGO_HOME`, else `~/.cargo`.
pub fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".cargo")))
}

/// The registry source folders (`registry/src/<index>/`).
pub fn cargo_registries() -> Places {
    let Some(src) = cargo_home().map(|h| h.join("registry").join("src")) else {
        return Places::default();
    };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&src)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    Places(dirs)
}

/// The unpacked source of crate `name` at `version` in the cargo registry.
pub fn cargo_source(registries: &Places, name: &str, version: &str) -> Option<Located> {
    registries.0.iter().find_map(|dir| {
        let path = dir.join(format!("{name}-{version}"));
        path.is_dir().then(|| Located {
            path,
            version: Some(version.to_owned()),
        })
    })
}

/// The `node_modules` folders at `from` and above it, up to `root`.
pub fn node_modules_dirs(root: &Path, from: &Path) -> Places {
    let mut dirs = Vec::new();
    let mut dir = Some(from);
    while let Some(current) = dir {
        if !current.starts_with(root) {
            break;
        }
        let candidate = current.join("node_modules");
        if candidate.is_dir() {
            dirs.push(candidate);
        }
        dir = current.parent();
    }
    Places(dirs)
}

/// Whether `name` can be an npm package name: `name` or `@scope/name`, no path tricks.
fn npm_name(name: &str) -> bool {
    let plain = |part: &str| {
        !part.is_empty()
            && !part.starts_with('.')
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    match name.strip_prefix('@').and_then(|n| n.split_once('/')) {
        Some((scope, package)) => plain(scope) && plain(package),
        None => plain(name),
    }
}

/// Whether `name` can be a Python distribution or module name.
fn python_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// `node_modules/NAME` in the first folder that has it, with its `package.json` version.
pub fn node_source(dirs: &Places, name: &str) -> Option<Located> {
    if !npm_name(name) {
        return None;
    }
    dirs.0.iter().find_map(|dir| {
        let path = dir.join(name);
        if !path.join("package.json").is_file() {
            return None;
        }
        let version = std::fs::read_to_string(path.join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("version")?.as_str().map(str::to_owned));
        Some(Located { path, version })
    })
}

/// The site-packages folders of the project's environment: `.venv` / `venv` under `root`, else
/// `$VIRTUAL_ENV`, else what `python3` reports (`site.getsitepackages()`).
pub fn python_site_packages(root: &Path) -> Places {
    let mut dirs = Vec::new();
    let mut envs: Vec<PathBuf> = [".venv", "venv"].iter().map(|v| root.join(v)).collect();
    if let Some(active) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        envs.push(PathBuf::from(active));
    }
    for env in envs {
        for lib in ["lib", "lib64"] {
            for entry in std::fs::read_dir(env.join(lib))
                .into_iter()
                .flatten()
                .flatten()
            {
                let site = entry.path().join("site-packages");
                let is_python = entry.file_name().to_string_lossy().starts_with("python");
                if is_python && site.is_dir() && !dirs.contains(&site) {
                    dirs.push(site);
                }
            }
        }
        // Windows layout.
        let site = env.join("Lib").join("site-packages");
        if site.is_dir() && !dirs.contains(&site) {
            dirs.push(site);
        }
    }
    if dirs.is_empty() {
        dirs = interpreter_site_packages();
    }
    Places(dirs)
}

/// `python3 -c 'import site; …'`: the interpreter's site-packages (none when it is absent).
fn interpreter_site_packages() -> Vec<PathBuf> {
    let output = std::process::Command::new("python3")
        .args([
            "-c",
            "import site\nfor p in site.getsitepackages() + [site.getusersitepackages()]: print(p)",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match output {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(PathBuf::from)
            .filter(|p| p.is_dir())
            .collect(),
        _ => Vec::new(),
    }
}

/// The importable package (folder or `.py` file) of distribution `name` in `dirs`, with the
/// version its `*.dist-info` records. The import name comes from `top_level.txt` when present.
pub fn python_source(dirs: &Places, name: &str) -> Option<Located> {
    if !python_name(name) {
        return None;
    }
    let wanted = Ecosystem::Python.normalise(name);
    for dir in &dirs.0 {
        let mut version = None;
        let mut import_names = vec![name.replace('-', "_"), name.to_owned()];
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = file_name.strip_suffix(".dist-info") else {
                continue;
            };
            let Some((dist, dist_version)) = stem.rsplit_once('-') else {
                continue;
            };
            if Ecosystem::Python.normalise(dist) != wanted {
                continue;
            }
            version = Some(dist_version.to_owned());
            if let Ok(top) = std::fs::read_to_string(entry.path().join("top_level.txt")) {
                let mut listed: Vec<String> = top
                    .lines()
                    .map(str::trim)
                    .filter(|l| python_name(l))
                    .map(str::to_owned)
                    .collect();
                listed.append(&mut import_names);
                import_names = listed;
            }
        }
        for import in &import_names {
            let package = dir.join(import);
            if package.is_dir() {
                return Some(Located {
                    path: package,
                    version,
                });
            }
            let module = dir.join(format!("{import}.py"));
            if module.is_file() {
                return Some(Located {
                    path: module,
                    version,
                });
            }
        }
    }
    None
}

/// The Go module cache: `$GOMODCACHE`, else `$GOPATH/pkg/mod`, else `~/go/pkg/mod`.
pub fn go_module_cache() -> Places {
    let dir = std::env::var_os("GOMODCACHE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("GOPATH")
                .filter(|v| !v.is_empty())
                .map(|p| PathBuf::from(p).join("pkg").join("mod"))
        })
        .or_else(|| home().map(|h| h.join("go").join("pkg").join("mod")));
    Places(dir.filter(|d| d.is_dir()).into_iter().collect())
}

/// Module `module` at `version` in the Go module cache (upper-case letters escaped as `!x`).
pub fn go_source(cache: &Places, module: &str, version: &str) -> Option<Located> {
    let escaped: String = module
        .chars()
        .flat_map(|c| {
            if c.is_ascii_uppercase() {
                vec!['!', c.to_ascii_lowercase()]
            } else {
                vec![c]
            }
        })
        .collect();
    cache.0.iter().find_map(|dir| {
        let path = dir.join(format!("{escaped}@{version}"));
        path.is_dir().then(|| Located {
            path,
            version: Some(version.to_owned()),
        })
    })
}

/// Where `name` (at `version`, when locked; cargo and Go need the version) is on this machine,
/// and the places searched.
pub fn source_of(
    root: &Path,
    ecosystem: Ecosystem,
    name: &str,
    version: Option<&str>,
) -> (Option<Located>, Places) {
    match ecosystem {
        Ecosystem::Cargo => {
            let places = cargo_registries();
            let found = version.and_then(|v| cargo_source(&places, name, v));
            (found, places)
        }
        Ecosystem::Npm => {
            let places = node_modules_dirs(root, root);
            (node_source(&places, name), places)
        }
        Ecosystem::Python => {
            let places = python_site_packages(root);
            (python_source(&places, name), places)
        }
        Ecosystem::Go => {
            let places = go_module_cache();
            let found = version.and_then(|v| go_source(&places, name, v));
            (found, places)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_python_packages_by_distribution_name() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join(".venv/lib/python3.12/site-packages");
        std::fs::create_dir_all(site.join("yaml")).unwrap();
        std::fs::create_dir_all(site.join("PyYAML-6.0.2.dist-info")).unwrap();
        std::fs::write(site.join("PyYAML-6.0.2.dist-info/top_level.txt"), "yaml\n").unwrap();
        std::fs::write(site.join("six.py"), "").unwrap();
        let places = python_site_packages(dir.path());
        assert_eq!(places.0, std::slice::from_ref(&site));
        let yaml = python_source(&places, "pyyaml").unwrap();
        assert_eq!(yaml.path, site.join("yaml"));
        assert_eq!(yaml.version.as_deref(), Some("6.0.2"));
        assert_eq!(
            python_source(&places, "six").unwrap().path,
            site.join("six.py")
        );
        assert_eq!(python_source(&places, "missing"), None);
    }

    #[test]
    fn names_cannot_leave_their_folder() {
        assert!(npm_name("@types/node"));
        assert!(npm_name("left-pad"));
        for bad in ["/etc", "../x", "@a/../b", "a/b", ".bin", "@/x", ""] {
            assert!(!npm_name(bad), "{bad}");
        }
        assert!(python_name("zope.interface"));
        for bad in ["/usr", "a/b", "..", ".hidden"] {
            assert!(!python_name(bad), "{bad}");
        }
    }

    #[test]
    fn finds_node_modules_upwards() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("node_modules/left-pad")).unwrap();
        std::fs::write(
            root.join("node_modules/left-pad/package.json"),
            r#"{"name":"left-pad","version":"1.3.0"}"#,
        )
        .unwrap();
        std::fs::create_dir_all(root.join("packages/web")).unwrap();
        let places = node_modules_dirs(root, &root.join("packages/web"));
        let found = node_source(&places, "left-pad").unwrap();
        assert_eq!(found.version.as_deref(), Some("1.3.0"));
    }
}
