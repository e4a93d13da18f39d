//! Python inline code (`python -c`), read with tree-sitter-python.
//!
//! One pass over the tree in source order: imports and assignments bind names (`import os as
//! o`, `from shutil import rmtree as r`, `p = "/"`), loops bind their variable to what they
//! iterate (`for f in glob.glob("*.pyc")`), and every call is looked up by the qualified name
//! its callee resolves to (`o.system` → `os.system`).

use std::collections::HashMap;

use tree_sitter::Node;

use super::{Effect, Effects, Lang, Value, join_all, join_path, parse, text, unescape};

/// What `code` does.
pub(super) fn analyze(code: &str) -> Vec<Effect> {
    let Some(tree) = parse(code, tree_sitter_python::LANGUAGE.into()) else {
        return vec![Effect::Unknown(
            "is given Python code the check could not parse".to_owned(),
        )];
    };
    let mut py = Py {
        src: code,
        env: HashMap::new(),
        star: Vec::new(),
        effects: Effects::default(),
    };
    py.walk(tree.root_node());
    let mut effects = py.effects;
    if tree.root_node().has_error() {
        effects.unknown("is given Python code that does not parse");
    }
    effects.into_vec()
}

/// Functions a wildcard import (`from shutil import *`) can bring in that matter here.
const STAR_NAMES: &[&str] = &[
    "os.system",
    "os.popen",
    "os.remove",
    "os.unlink",
    "os.rmdir",
    "os.removedirs",
    "os.rename",
    "os.replace",
    "os.chmod",
    "os.kill",
    "os.truncate",
    "os.execv",
    "os.execvp",
    "os.execl",
    "os.execlp",
    "shutil.rmtree",
    "shutil.move",
    "shutil.copy",
    "shutil.copyfile",
    "shutil.copytree",
    "subprocess.run",
    "subprocess.call",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.Popen",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "pathlib.Path",
    "glob.glob",
    "glob.iglob",
    "pty.spawn",
];

/// Built-in names that matter here.
const BUILTINS: &[&str] = &[
    "exec",
    "eval",
    "compile",
    "open",
    "__import__",
    "getattr",
    "str",
    "globals",
    "vars",
    "locals",
];

struct Py<'a> {
    src: &'a str,
    env: HashMap<String, Value>,
    /// Modules imported with `*`.
    star: Vec<String>,
    effects: Effects,
}

/// A call's arguments: positional ones in order, keyword ones by name; `spread` when a
/// `*args`/`**kwargs` makes positions unknowable.
struct Args<'t> {
    positional: Vec<Node<'t>>,
    keywords: Vec<(String, Node<'t>)>,
    spread: bool,
}

impl<'t> Args<'t> {
    fn of(call: Node<'t>, src: &str) -> Self {
        let mut args = Args {
            positional: Vec::new(),
            keywords: Vec::new(),
            spread: false,
        };
        let Some(list) = call.child_by_field_name("arguments") else {
            return args;
        };
        let mut cursor = list.walk();
        for arg in list.named_children(&mut cursor) {
            match arg.kind() {
                "keyword_argument" => {
                    if let (Some(name), Some(value)) = (
                        arg.child_by_field_name("name"),
                        arg.child_by_field_name("value"),
                    ) {
                        args.keywords.push((text(name, src).into_owned(), value));
                    }
                }
                "list_splat" | "dictionary_splat" => args.spread = true,
                "comment" => {}
                _ => args.positional.push(arg),
            }
        }
        args
    }

    /// Positional argument `index`, or the keyword argument `name`.
    fn get(&self, index: usize, name: &str) -> Option<Node<'t>> {
        self.keywords
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
            .or_else(|| self.positional.get(index).copied())
    }
}

impl Py<'_> {
    /// Visits `root` and everything under it in source order.
    fn walk(&mut self, root: Node<'_>) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            self.visit(node);
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }

    fn visit(&mut self, node: Node<'_>) {
        match node.kind() {
            "import_statement" => self.import(node),
            "import_from_statement" => self.import_from(node),
            "assignment" | "named_expression" => {
                let (left, right) = match node.kind() {
                    "assignment" => (
                        node.child_by_field_name("left"),
                        node.child_by_field_name("right"),
                    ),
                    _ => (
                        node.child_by_field_name("name"),
                        node.child_by_field_name("value"),
                    ),
                };
                if let Some(left) = left {
                    let value = right.map_or(Value::Unknown, |r| self.eval(r));
                    self.bind(left, value);
                }
            }
            "augmented_assignment" => {
                if let Some(left) = node.child_by_field_name("left") {
                    self.bind(left, Value::Unknown);
                }
            }
            "for_statement" | "for_in_clause" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    let element = match self.eval(right) {
                        Value::List(items) => Value::OneOf(items),
                        one @ (Value::OneOf(_) | Value::Str(_)) => one,
                        _ => Value::Unknown,
                    };
                    self.bind(left, element);
                }
            }
            "as_pattern_target" | "parameters" | "lambda_parameters" => {
                self.bind(node, Value::Unknown);
            }
            "function_definition" | "class_definition" => {
                if let Some(name) = node.child_by_field_name("name") {
                    self.bind(name, Value::Unknown);
                }
            }
            "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => {
                // The loop variables are bound before the body, which comes first in the text.
                let mut cursor = node.walk();
                let clauses: Vec<Node<'_>> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "for_in_clause")
                    .collect();
                for clause in clauses {
                    self.visit(clause);
                }
            }
            "call" => self.call(node),
            _ => {}
        }
    }

    /// Binds every name in the target `node` (an identifier, or a pattern of them).
    fn bind(&mut self, node: Node<'_>, value: Value) {
        if node.kind() == "identifier" {
            self.env.insert(text(node, self.src).into_owned(), value);
            return;
        }
        if matches!(node.kind(), "attribute" | "subscript") {
            return;
        }
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" {
                self.env
                    .insert(text(n, self.src).into_owned(), Value::Unknown);
                continue;
            }
            if matches!(n.kind(), "default_parameter" | "typed_default_parameter") {
                if let Some(name) = n.child_by_field_name("name") {
                    stack.push(name);
                }
                continue;
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
    }

    fn import(&mut self, node: Node<'_>) {
        let mut cursor = node.walk();
        for name in node.children_by_field_name("name", &mut cursor) {
            match name.kind() {
                "dotted_name" => {
                    let full = text(name, self.src);
                    let first = full.split('.').next().unwrap_or_default().to_owned();
                    self.env.insert(first.clone(), Value::Name(first));
                }
                "aliased_import" => {
                    if let (Some(module), Some(alias)) = (
                        name.child_by_field_name("name"),
                        name.child_by_field_name("alias"),
                    ) {
                        self.env.insert(
                            text(alias, self.src).into_owned(),
                            Value::Name(text(module, self.src).into_owned()),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    fn import_from(&mut self, node: Node<'_>) {
        let Some(module) = node.child_by_field_name("module_name") else {
            return;
        };
        let relative = module.kind() == "relative_import";
        let module = text(module, self.src).into_owned();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.kind() == "wildcard_import" && !relative {
                self.star.push(module.clone());
            }
        }
        let mut cursor = node.walk();
        for name in node.children_by_field_name("name", &mut cursor) {
            let (imported, bound) = match name.kind() {
                "dotted_name" => (name, name),
                "aliased_import" => match (
                    name.child_by_field_name("name"),
                    name.child_by_field_name("alias"),
                ) {
                    (Some(n), Some(a)) => (n, a),
                    _ => continue,
                },
                _ => continue,
            };
            let value = if relative {
                Value::Unknown
            } else {
                Value::Name(format!("{module}.{}", text(imported, self.src)))
            };
            self.env.insert(text(bound, self.src).into_owned(), value);
        }
    }

    /// The value of an expression, as far as it is known (no effects recorded).
    fn eval(&self, node: Node<'_>) -> Value {
        match node.kind() {
            "string" => self.string(node),
            "concatenated_string" => {
                let mut out = String::new();
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    match self.eval(part) {
                        Value::Str(s) => out.push_str(&s),
                        _ => return Value::Unknown,
                    }
                }
                Value::Str(out)
            }
            "integer" => integer(&text(node, self.src)).map_or(Value::Unknown, Value::Int),
            "unary_operator" => {
                let operand = node.child_by_field_name("argument").map(|a| self.eval(a));
                let minus = node
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, self.src) == "-");
                match operand {
                    Some(Value::Int(n)) if minus => Value::Int(-n),
                    Some(v) if !minus => v,
                    _ => Value::Unknown,
                }
            }
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "identifier" => self.name(&text(node, self.src)),
            "attribute" => {
                let (Some(object), Some(attr)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("attribute"),
                ) else {
                    return Value::Unknown;
                };
                let attr = text(attr, self.src);
                match self.eval(object) {
                    Value::Name(q) if q == "sys" && attr == "executable" => {
                        Value::Str("python3".to_owned())
                    }
                    Value::Name(q) => Value::Name(format!("{q}.{attr}")),
                    Value::Path(p) if attr == "parent" => Value::Path(parent(&p)),
                    _ => Value::Unknown,
                }
            }
            "subscript" => {
                let (Some(value), Some(index)) = (
                    node.child_by_field_name("value"),
                    node.child_by_field_name("subscript"),
                ) else {
                    return Value::Unknown;
                };
                match (self.eval(value), self.eval(index)) {
                    (Value::Name(q), Value::Str(key)) if q == "os.environ" => {
                        Value::Str(format!("${key}"))
                    }
                    (Value::Name(q), Value::Str(key)) => {
                        Value::Name(format!("{}.{key}", q.trim_end_matches(".__dict__")))
                    }
                    (Value::List(items), Value::Int(i)) => usize::try_from(i)
                        .ok()
                        .and_then(|i| items.get(i).cloned())
                        .unwrap_or(Value::Unknown),
                    _ => Value::Unknown,
                }
            }
            "binary_operator" => {
                let (Some(left), Some(right), Some(op)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("operator"),
                ) else {
                    return Value::Unknown;
                };
                match (
                    text(op, self.src).as_ref(),
                    self.eval(left),
                    self.eval(right),
                ) {
                    ("+", Value::Str(a), Value::Str(b)) => Value::Str(a + &b),
                    ("+", Value::List(mut a), Value::List(b)) => {
                        a.extend(b);
                        Value::List(a)
                    }
                    ("/", Value::Path(a), b) => match b.str() {
                        Some(b) => Value::Path(join_path(&a, &b)),
                        None => Value::Unknown,
                    },
                    _ => Value::Unknown,
                }
            }
            "list" | "tuple" | "expression_list" => {
                let mut cursor = node.walk();
                let mut items = Vec::new();
                for item in node.named_children(&mut cursor) {
                    if item.kind() == "comment" {
                        continue;
                    }
                    if item.kind() == "list_splat" {
                        return Value::Unknown;
                    }
                    items.push(self.eval(item));
                }
                Value::List(items)
            }
            "parenthesized_expression" | "await" => node
                .named_child(0)
                .map_or(Value::Unknown, |inner| self.eval(inner)),
            "conditional_expression" => {
                let mut cursor = node.walk();
                let parts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
                match parts.as_slice() {
                    [a, _, b] => match (self.eval(*a), self.eval(*b)) {
                        (a @ Value::Str(_), b @ Value::Str(_)) => Value::OneOf(vec![a, b]),
                        _ => Value::Unknown,
                    },
                    _ => Value::Unknown,
                }
            }
            "call" => self.call_value(node),
            _ => Value::Unknown,
        }
    }

    /// A string literal (f-strings whose parts are all known included).
    fn string(&self, node: Node<'_>) -> Value {
        let mut cursor = node.walk();
        let mut raw = false;
        let mut out = String::new();
        for part in node.named_children(&mut cursor) {
            match part.kind() {
                "string_start" => {
                    raw = text(part, self.src).to_ascii_lowercase().contains('r');
                }
                "string_content" => {
                    let content = text(part, self.src);
                    if raw {
                        out.push_str(&content);
                    } else {
                        out.push_str(&unescape(&content));
                    }
                }
                "interpolation" => {
                    match part
                        .child_by_field_name("expression")
                        .map(|e| self.eval(e))
                        .and_then(|v| v.str())
                    {
                        Some(s) => out.push_str(&s),
                        None => return Value::Unknown,
                    }
                }
                _ => {}
            }
        }
        Value::Str(out)
    }

    /// What a bare name refers to.
    fn name(&self, name: &str) -> Value {
        if let Some(value) = self.env.get(name) {
            return value.clone();
        }
        if name == "__builtins__" {
            return Value::Name("builtins".to_owned());
        }
        if BUILTINS.contains(&name) {
            return Value::Name(name.to_owned());
        }
        for module in &self.star {
            let qualified = format!("{module}.{name}");
            if STAR_NAMES.contains(&qualified.as_str()) {
                return Value::Name(qualified);
            }
        }
        Value::Unknown
    }

    fn arg(&self, args: &Args<'_>, index: usize, name: &str) -> Value {
        args.get(index, name)
            .map_or(Value::Unknown, |node| self.eval(node))
    }

    /// The value a call returns, for the calls that compute paths, strings and modules.
    fn call_value(&self, node: Node<'_>) -> Value {
        let Some(function) = node.child_by_field_name("function") else {
            return Value::Unknown;
        };
        let args = Args::of(node, self.src);
        let strs = || -> Option<Vec<String>> {
            args.positional
                .iter()
                .map(|a| self.eval(*a).str())
                .collect::<Option<Vec<String>>>()
        };
        if function.kind() == "attribute"
            && let (Some(object), Some(attr)) = (
                function.child_by_field_name("object"),
                function.child_by_field_name("attribute"),
            )
        {
            let attr = text(attr, self.src);
            match (self.eval(object), attr.as_ref()) {
                (Value::Str(sep), "join") => {
                    return match self.arg(&args, 0, "iterable").words() {
                        Some(words) => Value::Str(words.join(&sep)),
                        None => Value::Unknown,
                    };
                }
                (Value::Path(p), "expanduser" | "resolve" | "absolute") => return Value::Path(p),
                (Value::Path(p), "joinpath") => {
                    return match strs() {
                        Some(parts) => Value::Path(parts.iter().fold(p, |a, b| join_path(&a, b))),
                        None => Value::Unknown,
                    };
                }
                (Value::Path(p), "glob" | "rglob") => {
                    return match self.arg(&args, 0, "pattern").str() {
                        Some(pattern) => Value::List(vec![Value::Path(join_path(&p, &pattern))]),
                        None => Value::Unknown,
                    };
                }
                (Value::Path(p), "iterdir") => {
                    return Value::List(vec![Value::Path(join_path(&p, "*"))]);
                }
                _ => {}
            }
        }
        let Value::Name(q) = self.eval(function) else {
            return Value::Unknown;
        };
        let first = || self.arg(&args, 0, "path");
        match q.as_str() {
            "os.path.expanduser"
            | "os.path.expandvars"
            | "os.path.abspath"
            | "os.path.realpath"
            | "os.path.normpath"
            | "os.fspath"
            | "str"
            | "posixpath.expanduser" => match first() {
                Value::Path(p) => Value::Str(p),
                other => other,
            },
            "os.path.join" | "posixpath.join" => {
                if args.spread || args.positional.is_empty() {
                    return Value::Unknown;
                }
                let parts: Vec<Value> = args.positional.iter().map(|a| self.eval(*a)).collect();
                join_all(&parts)
            }
            "os.path.dirname" => first()
                .str()
                .map_or(Value::Unknown, |p| Value::Str(parent(&p))),
            "os.getenv" | "os.environ.get" => match self.arg(&args, 0, "key") {
                Value::Str(key) => Value::Str(format!("${key}")),
                _ => Value::Unknown,
            },
            "os.getcwd" | "os.getcwdb" => Value::Str(".".to_owned()),
            // A fresh temporary folder: whatever its name, it is under the temp dir.
            "tempfile.mkdtemp" | "tempfile.gettempdir" => Value::Str("/tmp/tmp.keel".to_owned()),
            "pathlib.Path" | "pathlib.PosixPath" | "pathlib.PurePath" | "pathlib.PurePosixPath" => {
                match strs() {
                    Some(parts) if parts.is_empty() => Value::Path(".".to_owned()),
                    Some(parts) => Value::Path(
                        parts
                            .iter()
                            .skip(1)
                            .fold(parts[0].clone(), |a, b| join_path(&a, b)),
                    ),
                    None => Value::Unknown,
                }
            }
            "pathlib.Path.home" | "pathlib.PosixPath.home" => Value::Path("$HOME".to_owned()),
            "pathlib.Path.cwd" | "pathlib.PosixPath.cwd" => Value::Path(".".to_owned()),
            "glob.glob" | "glob.iglob" => match self.arg(&args, 0, "pathname") {
                Value::Str(pattern) => Value::List(vec![Value::Str(pattern)]),
                _ => Value::Unknown,
            },
            "os.listdir" | "os.scandir" => match args.positional.first() {
                None => Value::List(vec![Value::Str("*".to_owned())]),
                Some(_) => first().str().map_or(Value::Unknown, |d| {
                    Value::List(vec![Value::Str(join_path(&d, "*"))])
                }),
            },
            "shlex.join" => self
                .arg(&args, 0, "split_command")
                .words()
                .map_or(Value::Unknown, |w| Value::Str(w.join(" "))),
            "shlex.split" => match self.arg(&args, 0, "s") {
                Value::Str(s) => Value::List(
                    s.split_whitespace()
                        .map(|w| Value::Str(w.to_owned()))
                        .collect(),
                ),
                _ => Value::Unknown,
            },
            "__import__"
            | "importlib.import_module"
            | "importlib.__import__"
            | "builtins.__import__" => match self.arg(&args, 0, "name") {
                Value::Str(module) => Value::Name(module),
                _ => Value::Unknown,
            },
            "getattr" | "builtins.getattr" => match (
                args.positional.first().map(|o| self.eval(*o)),
                args.positional.get(1).map(|n| self.eval(*n)),
            ) {
                (Some(Value::Name(q)), Some(Value::Str(attr))) => {
                    Value::Name(format!("{q}.{attr}"))
                }
                _ => Value::Unknown,
            },
            "globals" | "vars" | "locals" if args.positional.is_empty() => {
                Value::Name("builtins".to_owned())
            }
            "vars" => match args.positional.first().map(|o| self.eval(*o)) {
                Some(Value::Name(q)) => Value::Name(q),
                _ => Value::Unknown,
            },
            q if q.starts_with("ctypes.") => Value::Name(q.to_owned()),
            _ => Value::Unknown,
        }
    }

    /// Records what a call does.
    fn call(&mut self, node: Node<'_>) {
        let Some(function) = node.child_by_field_name("function") else {
            return;
        };
        let mut effects = std::mem::take(&mut self.effects);
        let args = Args::of(node, self.src);
        let arg = |index: usize, name: &str| self.arg(&args, index, name);
        let positional_strs = |from: usize| -> Option<Vec<String>> {
            if args.spread {
                return None;
            }
            args.positional
                .iter()
                .skip(from)
                .map(|a| self.eval(*a).str())
                .collect()
        };
        // Calls on a path object: `Path("x").unlink()`.
        if function.kind() == "attribute"
            && let (Some(object), Some(attr)) = (
                function.child_by_field_name("object"),
                function.child_by_field_name("attribute"),
            )
            && let path @ Value::Path(_) = self.eval(object)
        {
            let what = format!("Path.{}", text(attr, self.src));
            match text(attr, self.src).as_ref() {
                "unlink" => effects.on_path(&["rm", "-f"], &path, &what, true),
                "rmdir" => effects.on_path(&["rmdir"], &path, &what, true),
                "write_text" | "write_bytes" => effects.on_path(&["tee"], &path, &what, false),
                "chmod" => effects.chmod(&arg(0, "mode"), &path),
                "rename" | "replace" => effects.two_paths(&["mv"], &path, &arg(0, "target")),
                "symlink_to" | "hardlink_to" => {
                    effects.two_paths(&["ln", "-s"], &arg(0, "target"), &path);
                }
                "open" if writes(&arg(0, "mode")) => {
                    effects.on_path(&["tee"], &path, &what, false);
                }
                _ => {}
            }
            self.effects = effects;
            return;
        }
        // A function picked from a module by a key computed at run time.
        if function.kind() == "subscript"
            && let Some(value) = function.child_by_field_name("value")
            && matches!(self.eval(value), Value::Name(_))
            && !function
                .child_by_field_name("subscript")
                .is_some_and(|s| matches!(self.eval(s), Value::Str(_)))
        {
            effects.unknown("calls a function chosen at run time");
            self.effects = effects;
            return;
        }
        let Value::Name(q) = self.eval(function) else {
            self.effects = effects;
            return;
        };
        let q = q.strip_prefix("builtins.").unwrap_or(&q).to_owned();
        match q.as_str() {
            "os.system"
            | "os.popen"
            | "posix.system"
            | "subprocess.getoutput"
            | "subprocess.getstatusoutput"
            | "commands.getoutput"
            | "commands.getstatusoutput"
            | "asyncio.create_subprocess_shell"
            | "platform.popen" => {
                effects.shell(&arg(0, "cmd"), &q);
            }
            "subprocess.run"
            | "subprocess.call"
            | "subprocess.check_call"
            | "subprocess.check_output"
            | "subprocess.Popen" => {
                let shell = args
                    .keywords
                    .iter()
                    .find(|(k, _)| k == "shell")
                    .is_some_and(|(_, v)| self.eval(*v).truthy());
                match arg(0, "args") {
                    Value::Str(s) if shell => effects.push(Effect::Shell(s)),
                    Value::Str(s) => effects.push(Effect::Exec(vec![s])),
                    list @ Value::List(_) => match list.words() {
                        Some(words) if shell => {
                            effects.push(Effect::Shell(words.first().cloned().unwrap_or_default()));
                        }
                        words => effects.exec(words, &q),
                    },
                    _ => effects.unknown(format!("runs a command built at run time (`{q}`)")),
                }
            }
            "asyncio.create_subprocess_exec" => effects.exec(positional_strs(0), &q),
            "os.execl" | "os.execlp" => effects.exec(positional_strs(1), &q),
            "os.execle" | "os.execlpe" => effects.exec(
                positional_strs(1).map(|mut w| {
                    w.pop();
                    w
                }),
                &q,
            ),
            "os.execv" | "os.execvp" | "os.execve" | "os.execvpe" | "os.posix_spawn"
            | "os.posix_spawnp" => effects.exec(arg(1, "argv").words(), &q),
            "os.spawnl" | "os.spawnlp" => effects.exec(positional_strs(2), &q),
            "os.spawnle" | "os.spawnlpe" => effects.exec(
                positional_strs(2).map(|mut w| {
                    w.pop();
                    w
                }),
                &q,
            ),
            "os.spawnv" | "os.spawnvp" | "os.spawnve" | "os.spawnvpe" => {
                effects.exec(arg(2, "args").words(), &q);
            }
            "pty.spawn" => match arg(0, "argv") {
                Value::Str(s) => effects.push(Effect::Exec(vec![s])),
                other => effects.exec(other.words(), &q),
            },
            "shutil.rmtree" => effects.on_path(&["rm", "-rf"], &arg(0, "path"), &q, true),
            "os.remove" | "os.unlink" => effects.on_path(&["rm", "-f"], &arg(0, "path"), &q, true),
            "os.rmdir" | "os.removedirs" => {
                effects.on_path(&["rmdir"], &arg(0, "path"), &q, true);
            }
            "shutil.move" | "os.rename" | "os.replace" | "os.renames" => {
                effects.two_paths(&["mv"], &arg(0, "src"), &arg(1, "dst"));
            }
            "shutil.copy" | "shutil.copy2" | "shutil.copyfile" | "shutil.copytree" => {
                effects.two_paths(&["cp"], &arg(0, "src"), &arg(1, "dst"));
            }
            "os.symlink" | "os.link" => {
                effects.two_paths(&["ln", "-s"], &arg(0, "src"), &arg(1, "dst"))
            }
            "os.truncate" => effects.on_path(&["truncate", "-s", "0"], &arg(0, "path"), &q, false),
            "os.chmod" | "os.lchmod" => effects.chmod(&arg(1, "mode"), &arg(0, "path")),
            "os.chown" | "os.lchown" | "shutil.chown" => {
                effects.on_path(&["chown", "nobody"], &arg(0, "path"), &q, false);
            }
            "os.kill" => effects.kill(&arg(0, "pid")),
            "open" | "io.open" | "codecs.open" if writes(&arg(1, "mode")) => {
                effects.on_path(&["tee"], &arg(0, "file"), &q, false);
            }
            "exec" | "eval" | "compile" => effects.code(Lang::Python, &arg(0, "source"), &q),
            "__import__" | "importlib.import_module" | "importlib.__import__"
                if !matches!(arg(0, "name"), Value::Str(_)) =>
            {
                effects.unknown(format!("imports a module chosen at run time (`{q}`)"));
            }
            "getattr" => {
                let on_module = args
                    .positional
                    .first()
                    .is_some_and(|o| matches!(self.eval(*o), Value::Name(_)));
                let literal = args
                    .positional
                    .get(1)
                    .is_some_and(|n| matches!(self.eval(*n), Value::Str(_)));
                if on_module && !literal {
                    effects.unknown("calls a function chosen at run time (`getattr`)");
                }
            }
            "pickle.loads" | "pickle.load" | "marshal.loads" | "marshal.load" | "dill.loads"
            | "dill.load" | "cPickle.loads" | "shelve.open" => {
                effects.unknown(format!("deserialises data, which can run code (`{q}`)"));
            }
            q if q.starts_with("ctypes.") => {
                effects.unknown("calls native code through ctypes");
            }
            _ => {}
        }
        self.effects = effects;
    }
}

/// Whether an `open` mode writes (`w`, `a`, `x`, `+`).
fn writes(mode: &Value) -> bool {
    mode.str().is_some_and(|m| m.contains(['w', 'a', 'x', '+']))
}

/// A Python integer literal (`0o755`, `0x1F`, `1_000`).
fn integer(literal: &str) -> Option<i64> {
    let digits = literal.replace('_', "").to_ascii_lowercase();
    if let Some(octal) = digits.strip_prefix("0o") {
        i64::from_str_radix(octal, 8).ok()
    } else if let Some(hex) = digits.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(binary) = digits.strip_prefix("0b") {
        i64::from_str_radix(binary, 2).ok()
    } else {
        digits.parse().ok()
    }
}

/// The folder holding `path`.
fn parent(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(at) => trimmed[..at].to_owned(),
        None => ".".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(code: &str) -> Vec<Effect> {
        analyze(code)
    }

    fn like(words: &[&str]) -> Effect {
        Effect::Like(words.iter().map(|w| (*w).to_owned()).collect())
    }

    #[test]
    fn shell_and_programs() {
        assert_eq!(
            effects("import os; os.system('rm -rf /')"),
            vec![Effect::Shell("rm -rf /".into())]
        );
        assert_eq!(
            effects("from os import system as s\ns('ls ' + '-l')"),
            vec![Effect::Shell("ls -l".into())]
        );
        assert_eq!(
            effects("import subprocess as sp; sp.run(['rm', '-rf', '/'])"),
            vec![Effect::Exec(vec!["rm".into(), "-rf".into(), "/".into()])]
        );
        assert_eq!(
            effects("import subprocess; subprocess.call('cargo test', shell=True)"),
            vec![Effect::Shell("cargo test".into())]
        );
        assert_eq!(
            effects("__import__('os').system('reboot')"),
            vec![Effect::Shell("reboot".into())]
        );
        assert_eq!(
            effects("import os; getattr(os, 'system')('halt')"),
            vec![Effect::Shell("halt".into())]
        );
    }

    #[test]
    fn file_operations() {
        assert_eq!(
            effects("import shutil, os; shutil.rmtree(os.path.expanduser('~'))"),
            vec![like(&["rm", "-rf", "~"])]
        );
        assert_eq!(
            effects("import os; os.remove(os.path.join(os.environ['HOME'], '.ssh', 'id_rsa'))"),
            vec![like(&["rm", "-f", "$HOME/.ssh/id_rsa"])]
        );
        assert_eq!(
            effects("from pathlib import Path; (Path.home() / '.aws' / 'credentials').unlink()"),
            vec![like(&["rm", "-f", "$HOME/.aws/credentials"])]
        );
        assert_eq!(
            effects("import glob, os\nfor f in glob.glob('*.pyc'): os.remove(f)"),
            vec![like(&["rm", "-f", "*.pyc"])]
        );
        assert_eq!(
            effects("import os, glob; [os.remove(f) for f in glob.glob('build/*.o')]"),
            vec![like(&["rm", "-f", "build/*.o"])]
        );
        assert_eq!(
            effects("open('/etc/hosts', 'a').write('x')"),
            vec![like(&["tee", "/etc/hosts"])]
        );
        assert_eq!(effects("print(open('/etc/hosts').read())"), vec![]);
        assert_eq!(
            effects("import os; os.chmod('/etc/shadow', 0o777)"),
            vec![like(&["chmod", "777", "/etc/shadow"])]
        );
    }

    #[test]
    fn what_cannot_be_judged() {
        for code in [
            "import os, sys; os.system(sys.argv[1])",
            "exec(input())",
            "import base64; exec(base64.b64decode('cHJpbnQoMSk='))",
            "m = __import__('o' + input())",
            "import os; getattr(os, input())('x')",
            "import shutil, sys; shutil.rmtree(sys.argv[1])",
            "import ctypes; ctypes.CDLL(None).system(b'ls')",
            "import pickle; pickle.loads(data)",
            "print(1",
        ] {
            let found = effects(code);
            assert!(
                found.iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{code}: {found:?}"
            );
        }
        assert_eq!(
            effects("exec('import os; os.system(\"id\")')"),
            vec![Effect::Code(
                Lang::Python,
                "import os; os.system(\"id\")".into()
            )]
        );
    }

    #[test]
    fn benign_code_has_no_effects() {
        for code in [
            "print(1)",
            "import sys; print(sys.version)",
            "import json, sys; print(json.load(sys.stdin)['name'])",
            "import os; print(os.getcwd(), os.listdir('.'))",
            "import platform; print(platform.python_version())",
            "x = [i * i for i in range(10)]; print(sum(x))",
        ] {
            assert_eq!(effects(code), vec![], "{code}");
        }
    }
}
