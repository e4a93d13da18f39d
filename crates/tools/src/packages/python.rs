//! Python package metadata beyond one file: `setup.py` and `PKG-INFO` read as manifests, the
//! metadata files of one package folder read together (an sdist's `pyproject.toml` may hold
//! only `[build-system]`, its `PKG-INFO` the name and version), and dynamic versions
//! resolved: `[tool.setuptools.dynamic]`, `[tool.hatch.version]`, `[tool.pdm.version]`,
//! setuptools-scm's version file, `setup.cfg`'s `attr:`/`file:`, `PKG-INFO` (also in
//! `*.egg-info`), and the `__version__` of the package's own module.

use std::path::{Path, PathBuf};

use super::Ecosystem;
use super::manifest::{Manifest, empty, split_requirement};

/// Python metadata files, in the order their fields are preferred.
pub const PYTHON_FILES: &[&str] = &["pyproject.toml", "setup.cfg", "setup.py", "PKG-INFO"];

/// `PKG-INFO` (core metadata, RFC 822 headers): `Name`, `Version`, `Summary`, `Requires-Dist`.
/// Lenient: lines that are not headers are skipped.
pub(crate) fn pkg_info(path: &Path, text: &str) -> Manifest {
    let mut manifest = empty(Ecosystem::Python, path);
    for line in text.lines() {
        if line.trim().is_empty() {
            // The headers end at the first blank line; the description follows.
            break;
        }
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "name" => manifest.name = Some(value.to_owned()),
            "version" => manifest.version = Some(value.to_owned()),
            "summary" if !value.is_empty() => manifest.description = Some(value.to_owned()),
            "requires-dist" => {
                let mut dep = split_requirement(value);
                dep.section = if value.contains("extra ==") {
                    "Requires-Dist (extra)".to_owned()
                } else {
                    "Requires-Dist".to_owned()
                };
                if !dep.name.is_empty() {
                    manifest.dependencies.push(dep);
                }
            }
            _ => {}
        }
    }
    manifest
}

/// `setup.py`: the literal keyword arguments of its `setup(…)` call (`name`, `version`,
/// `description`, `install_requires`), names assigned a literal at module level followed
/// (`VERSION = "1.0"` … `version=VERSION`). A version computed at run time is left unset.
pub(crate) fn setup_py(path: &Path, text: &str) -> Manifest {
    let mut manifest = empty(Ecosystem::Python, path);
    let mut parser = tree_sitter::Parser::new();
    let tree = parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .ok()
        .and_then(|()| parser.parse(ascii_shadow(text), None));
    let Some(tree) = tree else {
        return manifest;
    };
    let src = text;
    let node_text = |n: tree_sitter::Node<'_>| -> String {
        src.get(n.byte_range()).unwrap_or_default().to_owned()
    };
    // Module-level `NAME = "literal"`.
    let mut constants: Vec<(String, String)> = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let Some(assignment) = statement
            .named_child(0)
            .filter(|n| statement.kind() == "expression_statement" && n.kind() == "assignment")
        else {
            continue;
        };
        if let (Some(left), Some(right)) = (
            assignment.child_by_field_name("left"),
            assignment.child_by_field_name("right"),
        ) && left.kind() == "identifier"
            && let Some(value) = string_literal(&node_text(right))
        {
            constants.push((node_text(left), value));
        }
    }
    let value_of = |n: tree_sitter::Node<'_>| -> Option<String> {
        match n.kind() {
            "string" | "concatenated_string" => string_literal(&node_text(n)),
            "identifier" => {
                let name = node_text(n);
                constants
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.clone())
            }
            _ => None,
        }
    };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        if node.kind() != "call" {
            continue;
        }
        let is_setup = node.child_by_field_name("function").is_some_and(|f| {
            let name = node_text(f);
            name == "setup" || name.ends_with(".setup")
        });
        let Some(arguments) = node.child_by_field_name("arguments").filter(|_| is_setup) else {
            continue;
        };
        let mut args = arguments.walk();
        for arg in arguments.named_children(&mut args) {
            let (Some(key), Some(value)) = (
                arg.child_by_field_name("name"),
                arg.child_by_field_name("value"),
            ) else {
                continue;
            };
            match node_text(key).as_str() {
                "name" => manifest.name = value_of(value),
                "version" => manifest.version = value_of(value),
                "description" => manifest.description = value_of(value),
                "install_requires" if value.kind() == "list" => {
                    let mut items = value.walk();
                    for item in value.named_children(&mut items) {
                        if let Some(requirement) = value_of(item) {
                            let mut dep = split_requirement(&requirement);
                            dep.section = "install_requires".to_owned();
                            if !dep.name.is_empty() {
                                manifest.dependencies.push(dep);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        break;
    }
    manifest
}

/// `text` with every non-ASCII character as as many `x` bytes (byte offsets unchanged), for
/// the grammar's scanner.
fn ascii_shadow(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let n = if c.is_ascii() { 0 } else { c.len_utf8() };
            std::iter::once(c)
                .filter(char::is_ascii)
                .chain(std::iter::repeat_n('x', n))
        })
        .collect()
}

/// The value of a Python string literal written as `text` (`'1.0'`, `"1.0"`, `r"x"`,
/// `"""x"""`, adjacent literals joined); `None` for anything else (f-strings included).
pub(crate) fn string_literal(text: &str) -> Option<String> {
    let mut rest = text.trim();
    let mut out = String::new();
    let mut any = false;
    while !rest.is_empty() {
        let prefix_len = rest
            .find(['"', '\''])
            .filter(|&at| at <= 2 && rest[..at].chars().all(|c| "rRuUbB".contains(c)))?;
        let raw = rest[..prefix_len].contains(['r', 'R']);
        let body = &rest[prefix_len..];
        let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") {
            &body[..3]
        } else {
            &body[..1]
        };
        let inner = &body[quote.len()..];
        let end = inner.find(quote)?;
        let content = &inner[..end];
        if raw {
            out.push_str(content);
        } else {
            out.push_str(
                &content
                    .replace("\\\\", "\\")
                    .replace("\\'", "'")
                    .replace("\\\"", "\""),
            );
        }
        any = true;
        rest = inner[end + quote.len()..].trim_start();
    }
    any.then_some(out)
}

/// The literal string assigned to one of `names` at module level in Python source `text`
/// (`__version__ = "1.2"`, `__version__: str = '1.2'`, `__version__ = version = '1.2'`).
pub(crate) fn assigned_string(text: &str, names: &[&str]) -> Option<String> {
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let line = line.split(" #").next().unwrap_or(line).trim();
        let parts = split_assignment(line);
        let Some((value, targets)) = parts.split_last() else {
            continue;
        };
        if targets.is_empty() {
            continue;
        }
        let assigns = targets.iter().any(|t| {
            let target = t.split(':').next().unwrap_or(t).trim();
            names.contains(&target)
        });
        if assigns && let Some(version) = string_literal(value) {
            return Some(version);
        }
    }
    None
}

/// `a = b = 'x'` → `["a", "b", "'x'"]`, splitting on `=` outside quotes that is not part of
/// `==`, `!=`, `<=`, `>=`.
fn split_assignment(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'=' => {
                let before = i.checked_sub(1).map(|j| bytes[j]);
                let after = bytes.get(i + 1).copied();
                let comparison =
                    matches!(before, Some(b'=' | b'!' | b'<' | b'>')) || after == Some(b'=');
                if !comparison {
                    parts.push(&line[start..i]);
                    start = i + 1;
                }
            }
            None => {}
        }
    }
    parts.push(&line[start..]);
    parts
}

/// Completes a Python manifest from the other metadata files of its folder (name,
/// description, dependencies and a static version where it lacks them) and, when the version
/// is still unknown, resolves it the ways build back ends declare dynamic versions. Where the
/// version came from, when not from the manifest itself, is set on `version_source`.
pub fn complete_python(manifest: &mut Manifest) {
    if manifest.ecosystem != Ecosystem::Python {
        return;
    }
    let Some(dir) = manifest.file.parent().map(Path::to_path_buf) else {
        return;
    };
    for file in PYTHON_FILES {
        let path = dir.join(file);
        if path == manifest.file || !path.is_file() {
            continue;
        }
        let Ok(other) = super::parse_manifest(&path) else {
            continue;
        };
        if manifest.name.is_none() {
            manifest.name = other.name;
        }
        if manifest.description.is_none() {
            manifest.description = other.description;
        }
        if manifest.dependencies.is_empty() {
            manifest.dependencies = other.dependencies;
        }
        if manifest.version.is_none() && other.version.is_some() {
            manifest.version = other.version;
            manifest.version_source = Some((*file).to_owned());
        }
    }
    if manifest.version.is_some() {
        return;
    }
    if let Some((version, source)) = dynamic_version(&dir, manifest.name.as_deref()) {
        manifest.version = Some(version);
        manifest.version_source = Some(source);
    }
}

/// A dynamic version and where it was found.
fn dynamic_version(dir: &Path, name: Option<&str>) -> Option<(String, String)> {
    let pyproject = std::fs::read_to_string(dir.join("pyproject.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok());
    let tool = pyproject
        .as_ref()
        .and_then(|doc| doc.get("tool"))
        .and_then(|t| t.as_table());
    let table = |path: &[&str]| -> Option<&toml::Table> {
        let mut current = tool?;
        for key in path {
            current = current.get(*key)?.as_table()?;
        }
        Some(current)
    };
    let package_dirs = package_dirs(dir, table(&["setuptools", "package-dir"]));
    // [tool.setuptools.dynamic] version = {attr = "pkg.__version__"} | {file = "VERSION"}.
    if let Some(spec) = table(&["setuptools", "dynamic"]).and_then(|d| d.get("version")) {
        if let Some(attr) = spec.get("attr").and_then(|a| a.as_str())
            && let Some(found) = from_attr(dir, &package_dirs, attr)
        {
            return Some(found);
        }
        let files: Vec<&str> = match spec.get("file") {
            Some(toml::Value::String(f)) => vec![f.as_str()],
            Some(toml::Value::Array(list)) => list.iter().filter_map(|f| f.as_str()).collect(),
            _ => Vec::new(),
        };
        for file in files {
            if let Some(found) = from_file(dir, file) {
                return Some(found);
            }
        }
    }
    // [tool.hatch.version] path = "…", [tool.pdm.version] path = "…".
    for tool_path in [&["hatch", "version"][..], &["pdm", "version"][..]] {
        if let Some(path) = table(tool_path)
            .and_then(|t| t.get("path"))
            .and_then(|p| p.as_str())
            && let Some(found) = from_module_file(dir, path)
        {
            return Some(found);
        }
    }
    // setuptools-scm (and hatch-vcs) write the version to a file.
    for tool_path in [
        &["setuptools_scm"][..],
        &["hatch", "build", "hooks", "vcs"][..],
    ] {
        if let Some(path) = table(tool_path).and_then(|t| {
            t.get("version_file")
                .or_else(|| t.get("write_to"))
                .or_else(|| t.get("version-file"))
                .and_then(|p| p.as_str())
        }) && let Some(found) = from_module_file(dir, path)
        {
            return Some(found);
        }
    }
    // setup.cfg: version = attr: pkg.__version__ | file: VERSION.
    if let Ok(cfg) = std::fs::read_to_string(dir.join("setup.cfg")) {
        let directive = cfg.lines().find_map(|line| {
            let (key, value) = line.split_once(['=', ':'])?;
            (key.trim() == "version" && !line.starts_with([' ', '\t'])).then(|| value.trim())
        });
        if let Some(attr) = directive.and_then(|d| d.strip_prefix("attr:"))
            && let Some(found) = from_attr(dir, &package_dirs, attr.trim())
        {
            return Some(found);
        }
        if let Some(file) = directive.and_then(|d| d.strip_prefix("file:"))
            && let Some(found) = from_file(dir, file.trim())
        {
            return Some(found);
        }
    }
    // Build output that records the version: PKG-INFO of an sdist or an egg-info.
    for info in egg_infos(dir) {
        if let Ok(text) = std::fs::read_to_string(&info)
            && let Some(version) = pkg_info(&info, &text).version
        {
            return Some((version, relative(dir, &info)));
        }
    }
    // The package's own module.
    let name = name?;
    let module = name.replace(['-', '.'], "_").to_ascii_lowercase();
    for base in &package_dirs {
        for file in [
            "__init__.py",
            "_version.py",
            "__about__.py",
            "version.py",
            "__version__.py",
        ] {
            if let Some(found) =
                from_module_file(dir, &relative(dir, &base.join(&module).join(file)))
            {
                return Some(found);
            }
        }
        if let Some(found) =
            from_module_file(dir, &relative(dir, &base.join(format!("{module}.py"))))
        {
            return Some(found);
        }
    }
    None
}

/// Where a package's modules are: `[tool.setuptools.package-dir]`'s root (`"" = "src"`),
/// else the folder itself and `src/`.
fn package_dirs(dir: &Path, mapping: Option<&toml::Table>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(root) = mapping.and_then(|m| m.get("")).and_then(|r| r.as_str()) {
        dirs.push(dir.join(root));
    }
    dirs.push(dir.to_path_buf());
    dirs.push(dir.join("src"));
    dirs
}

/// `attr: pkg.mod.__version__`: the attribute's literal value in the module's file.
fn from_attr(dir: &Path, package_dirs: &[PathBuf], attr: &str) -> Option<(String, String)> {
    let (module, name) = attr.rsplit_once('.')?;
    let module_path = module.replace('.', "/");
    for base in package_dirs {
        for file in [
            base.join(format!("{module_path}.py")),
            base.join(&module_path).join("__init__.py"),
        ] {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            if let Some(version) = assigned_string(&text, &[name]) {
                return Some((version, format!("`{name}` in {}", relative(dir, &file))));
            }
        }
    }
    None
}

/// A module file (relative to `dir`) holding `__version__` (or `VERSION`, `version`).
fn from_module_file(dir: &Path, path: &str) -> Option<(String, String)> {
    let file = dir.join(path);
    let text = std::fs::read_to_string(&file).ok()?;
    let version = assigned_string(&text, &["__version__", "VERSION", "version"])?;
    Some((
        version,
        format!("`__version__` in {}", relative(dir, &file)),
    ))
}

/// A file holding only the version (`file: VERSION`).
fn from_file(dir: &Path, path: &str) -> Option<(String, String)> {
    let file = dir.join(path);
    let text = std::fs::read_to_string(&file).ok()?;
    let version = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?
        .to_owned();
    Some((version, relative(dir, &file)))
}

/// `PKG-INFO` files a build left: `*.egg-info/PKG-INFO` in the folder and in `src/`.
fn egg_infos(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for base in [dir.to_path_buf(), dir.join("src")] {
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        let mut infos: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "egg-info"))
            .map(|p| p.join("PKG-INFO"))
            .filter(|p| p.is_file())
            .collect();
        infos.sort();
        found.extend(infos);
    }
    found
}

/// `path` shown relative to `dir` (as is when outside it).
fn relative(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::super::manifest::Dependency;
    use super::*;

    fn names(deps: &[Dependency]) -> Vec<String> {
        deps.iter()
            .map(|d| format!("{} {}", d.name, d.requirement))
            .collect()
    }

    fn write(dir: &Path, rel: &str, text: &str) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_pkg_info_and_setup_py() {
        let m = pkg_info(
            Path::new("PKG-INFO"),
            "Metadata-Version: 2.1\nName: tool\nVersion: 2.4.0\nSummary: A tool\nRequires-Dist: requests (>=2)\nRequires-Dist: rich; extra == \"ui\"\n\nName: not-a-header\n",
        );
        assert_eq!(m.name.as_deref(), Some("tool"));
        assert_eq!(m.version.as_deref(), Some("2.4.0"));
        assert_eq!(m.description.as_deref(), Some("A tool"));
        assert_eq!(
            names(&m.dependencies),
            ["requests (>=2)", "rich ; extra == \"ui\""]
        );
        let m = setup_py(
            Path::new("setup.py"),
            "from setuptools import setup\nNAME = 'legacy'\nsetup(\n    name=NAME,\n    version=get_version(),\n    description=\"Old \" \"style\",\n    install_requires=['click>=8', 'attrs'],\n)\n",
        );
        assert_eq!(m.name.as_deref(), Some("legacy"));
        assert_eq!(m.version, None);
        assert_eq!(m.description.as_deref(), Some("Old style"));
        assert_eq!(names(&m.dependencies), ["click >=8", "attrs "]);
    }

    #[test]
    fn finds_version_assignments() {
        let text = "import os\n__version__ = version = '1.2.3'  # set by scm\nif x:\n    __version__ = 'no'\n";
        assert_eq!(
            assigned_string(text, &["__version__"]).as_deref(),
            Some("1.2.3")
        );
        assert_eq!(
            assigned_string("__version__: str = \"4.5\"\n", &["__version__"]).as_deref(),
            Some("4.5")
        );
        assert_eq!(
            assigned_string("__version__ = get_version()\n", &["__version__"]),
            None
        );
        assert_eq!(
            assigned_string("if __version__ == '1': pass\n", &["__version__"]),
            None
        );
        assert_eq!(string_literal("r'a\\b' \"c\"").as_deref(), Some("a\\bc"));
        assert_eq!(string_literal("f'{x}'"), None);
    }

    #[test]
    fn resolves_dynamic_versions() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "pyproject.toml",
            "[project]\nname = \"my-lib\"\ndynamic = [\"version\"]\n[tool.setuptools.dynamic]\nversion = {attr = \"my_lib.about.__version__\"}\n",
        );
        write(root, "src/my_lib/about.py", "__version__ = '0.9.1'\n");
        let mut m = super::super::parse_manifest(&root.join("pyproject.toml")).unwrap();
        complete_python(&mut m);
        assert_eq!(m.version.as_deref(), Some("0.9.1"));
        assert_eq!(
            m.version_source.as_deref(),
            Some("`__version__` in src/my_lib/about.py")
        );

        // Hatch's version path.
        write(
            root,
            "pyproject.toml",
            "[project]\nname = \"my-lib\"\ndynamic = [\"version\"]\n[tool.hatch.version]\npath = \"src/my_lib/__about__.py\"\n",
        );
        write(root, "src/my_lib/__about__.py", "__version__ = \"3.0.0\"\n");
        let mut m = super::super::parse_manifest(&root.join("pyproject.toml")).unwrap();
        complete_python(&mut m);
        assert_eq!(m.version.as_deref(), Some("3.0.0"));

        // Nothing declared: an sdist's PKG-INFO, then the package's __init__.
        write(
            root,
            "pyproject.toml",
            "[build-system]\nrequires = [\"setuptools\"]\n",
        );
        write(
            root,
            "setup.py",
            "from setuptools import setup\nsetup(name='my-lib', version=read_version())\n",
        );
        let mut m = super::super::parse_manifest(&root.join("pyproject.toml")).unwrap();
        complete_python(&mut m);
        assert_eq!(m.name.as_deref(), Some("my-lib"));
        assert_eq!(
            m.version.as_deref(),
            Some("3.0.0"),
            "from src/my_lib/__about__.py"
        );
        write(
            root,
            "PKG-INFO",
            "Metadata-Version: 2.1\nName: my-lib\nVersion: 3.0.1\n",
        );
        let mut m = super::super::parse_manifest(&root.join("pyproject.toml")).unwrap();
        complete_python(&mut m);
        assert_eq!(m.version.as_deref(), Some("3.0.1"));
        assert_eq!(m.version_source.as_deref(), Some("PKG-INFO"));
    }
}
