//! JavaScript inline code (`node -e`, `bun -e`, `deno eval`), read with
//! tree-sitter-javascript.
//!
//! Modules are followed through `require`, `import` and destructuring (`const {execSync: x}
//! = require("node:child_process")`); under `node -e` the built-in modules are globals
//! (`child_process.execSync(…)` works there), so they are here too.

use std::collections::HashMap;

use tree_sitter::Node;

use super::{Effect, Effects, Lang, Value, join_all, join_path, parse, text, unescape};

/// What `code` does.
pub(super) fn analyze(code: &str) -> Vec<Effect> {
    let Some(tree) = parse(code, tree_sitter_javascript::LANGUAGE.into()) else {
        return vec![Effect::Unknown(
            "is given JavaScript the check could not parse".to_owned(),
        )];
    };
    let mut js = Js {
        src: code,
        env: HashMap::new(),
        effects: Effects::default(),
    };
    js.walk(tree.root_node());
    let mut effects = js.effects;
    if tree.root_node().has_error() {
        effects.unknown("is given JavaScript that does not parse");
    }
    effects.into_vec()
}

/// Built-in modules that `node -e` makes globals.
const GLOBAL_MODULES: &[&str] = &["fs", "child_process", "os", "path", "vm"];

/// A module specifier in the form calls are looked up in (`node:fs/promises` → `fs`).
fn module(specifier: &str) -> String {
    let name = specifier.strip_prefix("node:").unwrap_or(specifier);
    match name {
        "fs/promises" | "fs-extra" | "graceful-fs" | "original-fs" => "fs".to_owned(),
        other => other.to_owned(),
    }
}

struct Js<'a> {
    src: &'a str,
    env: HashMap<String, Value>,
    effects: Effects,
}

impl Js<'_> {
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
            "variable_declarator" => {
                if let Some(name) = node.child_by_field_name("name") {
                    let value = node
                        .child_by_field_name("value")
                        .map_or(Value::Unknown, |v| self.eval(v));
                    self.bind(name, value);
                }
            }
            "assignment_expression" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) && left.kind() == "identifier"
                {
                    let value = self.eval(right);
                    self.bind(left, value);
                }
            }
            "import_statement" => self.import(node),
            "for_in_statement" => {
                if let (Some(left), Some(right)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    let element = match self.eval(right) {
                        Value::List(items) => Value::OneOf(items),
                        _ => Value::Unknown,
                    };
                    self.bind(left, element);
                }
            }
            "formal_parameters" => self.bind(node, Value::Unknown),
            "arrow_function" => {
                if let Some(parameter) = node.child_by_field_name("parameter") {
                    self.bind(parameter, Value::Unknown);
                }
            }
            "function_declaration" | "class_declaration" => {
                if let Some(name) = node.child_by_field_name("name") {
                    self.bind(name, Value::Unknown);
                }
            }
            "call_expression" => self.call(node, false),
            "new_expression" => self.call(node, true),
            _ => {}
        }
    }

    /// Binds the names in a declaration target: an identifier gets `value`; destructuring a
    /// module binds each picked name to the module's member.
    fn bind(&mut self, target: Node<'_>, value: Value) {
        match target.kind() {
            "identifier" => {
                self.env.insert(text(target, self.src).into_owned(), value);
            }
            "object_pattern" => {
                let mut cursor = target.walk();
                for part in target.named_children(&mut cursor) {
                    let (key, bound) = match part.kind() {
                        "shorthand_property_identifier_pattern" => (part, part),
                        "pair_pattern" => match (
                            part.child_by_field_name("key"),
                            part.child_by_field_name("value"),
                        ) {
                            (Some(k), Some(v)) => (k, v),
                            _ => continue,
                        },
                        "object_assignment_pattern" => match part.child_by_field_name("left") {
                            Some(left) => (left, left),
                            None => continue,
                        },
                        _ => {
                            self.bind(part, Value::Unknown);
                            continue;
                        }
                    };
                    let key = text(key, self.src);
                    let key = key.trim_matches(['"', '\'']);
                    let member = match &value {
                        Value::Name(q) => self.member(q, key),
                        _ => Value::Unknown,
                    };
                    if bound.kind() == "shorthand_property_identifier_pattern" {
                        self.env.insert(text(bound, self.src).into_owned(), member);
                    } else {
                        self.bind(bound, member);
                    }
                }
            }
            _ => {
                let mut stack = vec![target];
                while let Some(n) = stack.pop() {
                    if matches!(
                        n.kind(),
                        "identifier" | "shorthand_property_identifier_pattern"
                    ) {
                        self.env
                            .insert(text(n, self.src).into_owned(), Value::Unknown);
                        continue;
                    }
                    let mut cursor = n.walk();
                    stack.extend(n.named_children(&mut cursor));
                }
            }
        }
    }

    fn import(&mut self, node: Node<'_>) {
        let Some(source) = node.child_by_field_name("source") else {
            return;
        };
        let Value::Str(specifier) = self.eval(source) else {
            return;
        };
        let module = module(&specifier);
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "import_specifier" => {
                    let name = n.child_by_field_name("name");
                    let alias = n.child_by_field_name("alias").or(name);
                    if let (Some(name), Some(alias)) = (name, alias) {
                        let member = self.member(&module, &text(name, self.src));
                        self.env.insert(text(alias, self.src).into_owned(), member);
                    }
                    continue;
                }
                "namespace_import" => {
                    let mut cursor = n.walk();
                    if let Some(id) = n
                        .named_children(&mut cursor)
                        .find(|c| c.kind() == "identifier")
                    {
                        self.env
                            .insert(text(id, self.src).into_owned(), Value::Name(module.clone()));
                    }
                    continue;
                }
                "import_clause" => {
                    let mut cursor = n.walk();
                    for child in n.named_children(&mut cursor) {
                        if child.kind() == "identifier" {
                            self.env.insert(
                                text(child, self.src).into_owned(),
                                Value::Name(module.clone()),
                            );
                        } else {
                            stack.push(child);
                        }
                    }
                    continue;
                }
                _ => {}
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
    }

    /// Member `prop` of the module or object named `q`.
    fn member(&self, q: &str, prop: &str) -> Value {
        match (q, prop) {
            ("global" | "globalThis" | "window" | "self", p) => self.global(p),
            ("fs", "promises") => Value::Name("fs".to_owned()),
            ("process" | "process.mainModule" | "module", "require") => {
                Value::Name("require".to_owned())
            }
            ("path", "posix") => Value::Name("path".to_owned()),
            (q, p) => Value::Name(format!("{q}.{p}")),
        }
    }

    /// A name not bound in the code.
    fn global(&self, name: &str) -> Value {
        match name {
            "require" | "process" | "eval" | "Function" | "Bun" | "Deno" | "setTimeout"
            | "setInterval" | "setImmediate" | "module" | "String" | "import" => {
                Value::Name(name.to_owned())
            }
            "global" | "globalThis" | "window" | "self" => Value::Name("global".to_owned()),
            "__dirname" => Value::Str(".".to_owned()),
            m if GLOBAL_MODULES.contains(&m) => Value::Name(m.to_owned()),
            _ => Value::Unknown,
        }
    }

    fn eval(&self, node: Node<'_>) -> Value {
        match node.kind() {
            "string" => {
                let mut out = String::new();
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    match part.kind() {
                        "string_fragment" => out.push_str(&text(part, self.src)),
                        "escape_sequence" => out.push_str(&unescape(&text(part, self.src))),
                        _ => {}
                    }
                }
                Value::Str(out)
            }
            "template_string" => {
                let mut out = String::new();
                let mut cursor = node.walk();
                for part in node.named_children(&mut cursor) {
                    match part.kind() {
                        "string_fragment" => out.push_str(&text(part, self.src)),
                        "escape_sequence" => out.push_str(&unescape(&text(part, self.src))),
                        "template_substitution" => match part
                            .named_child(0)
                            .map(|e| self.eval(e))
                            .and_then(|v| v.str())
                        {
                            Some(s) => out.push_str(&s),
                            None => return Value::Unknown,
                        },
                        _ => {}
                    }
                }
                Value::Str(out)
            }
            "number" => number(&text(node, self.src)).map_or(Value::Unknown, Value::Int),
            "unary_expression" => {
                let minus = node
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, self.src) == "-");
                match node.child_by_field_name("argument").map(|a| self.eval(a)) {
                    Some(Value::Int(n)) if minus => Value::Int(-n),
                    _ => Value::Unknown,
                }
            }
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "identifier" => {
                let name = text(node, self.src);
                self.env
                    .get(name.as_ref())
                    .cloned()
                    .unwrap_or_else(|| self.global(&name))
            }
            "member_expression" => {
                let (Some(object), Some(property)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("property"),
                ) else {
                    return Value::Unknown;
                };
                let prop = text(property, self.src);
                match self.eval(object) {
                    Value::Name(q) if q == "process.env" => Value::Str(format!("${prop}")),
                    Value::Name(q) => self.member(&q, &prop),
                    _ => Value::Unknown,
                }
            }
            "subscript_expression" => {
                let (Some(object), Some(index)) = (
                    node.child_by_field_name("object"),
                    node.child_by_field_name("index"),
                ) else {
                    return Value::Unknown;
                };
                match (self.eval(object), self.eval(index)) {
                    (Value::Name(q), Value::Str(key)) if q == "process.env" => {
                        Value::Str(format!("${key}"))
                    }
                    (Value::Name(q), Value::Str(key)) => self.member(&q, &key),
                    (Value::List(items), Value::Int(i)) => usize::try_from(i)
                        .ok()
                        .and_then(|i| items.get(i).cloned())
                        .unwrap_or(Value::Unknown),
                    _ => Value::Unknown,
                }
            }
            "binary_expression" => {
                let (Some(left), Some(right), Some(op)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("operator"),
                ) else {
                    return Value::Unknown;
                };
                if text(op, self.src) != "+" {
                    return Value::Unknown;
                }
                match (self.eval(left).str(), self.eval(right).str()) {
                    (Some(a), Some(b)) => Value::Str(a + &b),
                    _ => Value::Unknown,
                }
            }
            "array" => {
                let mut cursor = node.walk();
                let mut items = Vec::new();
                for item in node.named_children(&mut cursor) {
                    match item.kind() {
                        "comment" => {}
                        "spread_element" => return Value::Unknown,
                        _ => items.push(self.eval(item)),
                    }
                }
                Value::List(items)
            }
            "object" => {
                let mut cursor = node.walk();
                let mut fields = Vec::new();
                for pair in node.named_children(&mut cursor) {
                    if pair.kind() == "pair"
                        && let (Some(key), Some(value)) = (
                            pair.child_by_field_name("key"),
                            pair.child_by_field_name("value"),
                        )
                    {
                        let key = text(key, self.src).trim_matches(['"', '\'']).to_owned();
                        fields.push((key, self.eval(value)));
                    }
                }
                Value::Object(fields)
            }
            "parenthesized_expression" | "await_expression" => node
                .named_child(0)
                .map_or(Value::Unknown, |inner| self.eval(inner)),
            "call_expression" => self.call_value(node),
            _ => Value::Unknown,
        }
    }

    fn arguments<'t>(&self, call: Node<'t>) -> (Vec<Node<'t>>, bool) {
        let Some(list) = call.child_by_field_name("arguments") else {
            return (Vec::new(), false);
        };
        if list.kind() == "template_string" {
            return (vec![list], false);
        }
        let mut cursor = list.walk();
        let mut spread = false;
        let args = list
            .named_children(&mut cursor)
            .filter(|a| {
                spread |= a.kind() == "spread_element";
                a.kind() != "comment"
            })
            .collect();
        (args, spread)
    }

    /// The value of the calls that compute modules, paths and strings.
    fn call_value(&self, node: Node<'_>) -> Value {
        let Some(function) = node.child_by_field_name("function") else {
            return Value::Unknown;
        };
        let (args, _) = self.arguments(node);
        let arg = |i: usize| args.get(i).map_or(Value::Unknown, |a| self.eval(*a));
        if function.kind() == "member_expression"
            && let (Some(object), Some(property)) = (
                function.child_by_field_name("object"),
                function.child_by_field_name("property"),
            )
            && text(property, self.src) == "join"
            && let Some(words) = self.eval(object).words()
        {
            return match arg(0) {
                Value::Str(sep) => Value::Str(words.join(&sep)),
                _ => Value::Str(words.join(",")),
            };
        }
        let Value::Name(q) = self.eval(function) else {
            return Value::Unknown;
        };
        match q.as_str() {
            "require" | "import" => match arg(0) {
                Value::Str(specifier) => Value::Name(module(&specifier)),
                _ => Value::Unknown,
            },
            "path.join" | "path.resolve" | "path.normalize" if !args.is_empty() => {
                let parts: Vec<Value> = args.iter().map(|a| self.eval(*a)).collect();
                join_all(&parts)
            }
            "os.homedir" => Value::Str("$HOME".to_owned()),
            "os.tmpdir" => Value::Str("/tmp".to_owned()),
            "fs.mkdtempSync" | "fs.mkdtemp" => match arg(0).str() {
                Some(prefix) => Value::Str(format!("{prefix}XXXXXX")),
                None => Value::Unknown,
            },
            "process.cwd" => Value::Str(".".to_owned()),
            "String" => arg(0),
            _ => Value::Unknown,
        }
    }

    /// Records what a call (or `new`) does.
    fn call(&mut self, node: Node<'_>, constructor: bool) {
        let field = if constructor {
            "constructor"
        } else {
            "function"
        };
        let Some(function) = node.child_by_field_name(field) else {
            return;
        };
        let mut effects = std::mem::take(&mut self.effects);
        let (args, spread) = self.arguments(node);
        let arg = |i: usize| args.get(i).map_or(Value::Unknown, |a| self.eval(*a));
        if function.kind() == "subscript_expression"
            && let Some(object) = function.child_by_field_name("object")
            && matches!(self.eval(object), Value::Name(_))
            && !function
                .child_by_field_name("index")
                .is_some_and(|i| matches!(self.eval(i), Value::Str(_)))
        {
            effects.unknown("calls a function chosen at run time");
            self.effects = effects;
            return;
        }
        let Value::Name(q) = self.eval(function) else {
            self.effects = effects;
            return;
        };
        let with_argv = |file: Value, rest: &Value| -> Option<Vec<String>> {
            let mut argv = vec![file.str()?];
            if let Value::List(_) = rest {
                argv.extend(rest.words()?);
            }
            Some(argv)
        };
        match q.as_str() {
            "child_process.exec" | "child_process.execSync" => effects.shell(&arg(0), &q),
            "child_process.spawn"
            | "child_process.spawnSync"
            | "child_process.execFile"
            | "child_process.execFileSync" => {
                let second = arg(1);
                let options = if matches!(second, Value::Object(_)) {
                    second.clone()
                } else {
                    arg(2)
                };
                let argv = if spread {
                    None
                } else {
                    with_argv(arg(0), &second)
                };
                if options.field("shell").is_some_and(Value::truthy) {
                    match argv {
                        Some(argv) => effects.push(Effect::Shell(argv.join(" "))),
                        None => {
                            effects.unknown(format!("runs a command built at run time (`{q}`)"))
                        }
                    }
                } else {
                    effects.exec(argv, &q);
                }
            }
            "fs.rmSync" | "fs.rm" | "fs.rmdirSync" | "fs.rmdir" => {
                let recursive = arg(1).field("recursive").is_some_and(Value::truthy);
                let verb: &[&str] = match (recursive, q.contains("rmdir")) {
                    (true, _) => &["rm", "-rf"],
                    (false, true) => &["rmdir"],
                    (false, false) => &["rm", "-f"],
                };
                effects.on_path(verb, &arg(0), &q, true);
            }
            "fs.unlinkSync" | "fs.unlink" => effects.on_path(&["rm", "-f"], &arg(0), &q, true),
            "fs.removeSync" | "fs.remove" | "rimraf" | "rimraf.sync" | "rimraf.rimraf"
            | "rimraf.rimrafSync" | "rimraf.default" => {
                effects.on_path(&["rm", "-rf"], &arg(0), &q, true);
            }
            "fs.emptyDirSync" | "fs.emptyDir" | "fs.emptydirSync" | "fs.emptydir" => {
                let contents = match arg(0).str() {
                    Some(dir) => Value::Str(join_path(&dir, "*")),
                    None => Value::Unknown,
                };
                effects.on_path(&["rm", "-rf"], &contents, &q, true);
            }
            "fs.writeFileSync"
            | "fs.writeFile"
            | "fs.appendFileSync"
            | "fs.appendFile"
            | "fs.createWriteStream"
            | "fs.outputFileSync"
            | "fs.outputFile"
            | "Deno.writeTextFile"
            | "Deno.writeTextFileSync"
            | "Deno.writeFile"
            | "Deno.writeFileSync" => effects.on_path(&["tee"], &arg(0), &q, false),
            "fs.truncateSync" | "fs.truncate" => {
                effects.on_path(&["truncate", "-s", "0"], &arg(0), &q, false);
            }
            "fs.renameSync" | "fs.rename" | "fs.moveSync" | "fs.move" => {
                effects.two_paths(&["mv"], &arg(0), &arg(1));
            }
            "fs.copyFileSync" | "fs.copyFile" | "fs.cpSync" | "fs.cp" | "fs.copySync"
            | "fs.copy" => effects.two_paths(&["cp"], &arg(0), &arg(1)),
            "fs.symlinkSync" | "fs.symlink" => effects.two_paths(&["ln", "-s"], &arg(0), &arg(1)),
            "fs.chmodSync" | "fs.chmod" => effects.chmod(&arg(1), &arg(0)),
            "fs.chownSync" | "fs.chown" => {
                effects.on_path(&["chown", "nobody"], &arg(0), &q, false);
            }
            "process.kill" => effects.kill(&arg(0)),
            "eval"
            | "vm.runInThisContext"
            | "vm.runInNewContext"
            | "vm.runInContext"
            | "vm.Script"
            | "vm.compileFunction" => effects.code(Lang::JavaScript, &arg(0), &q),
            "Function" => {
                if let Some(body) = args.last() {
                    effects.code(Lang::JavaScript, &self.eval(*body), &q)
                }
            }
            "setTimeout" | "setInterval" | "setImmediate" => {
                if let s @ Value::Str(_) = arg(0) {
                    effects.code(Lang::JavaScript, &s, &q);
                }
            }
            "require" | "import" if !matches!(arg(0), Value::Str(_)) => {
                effects.unknown(format!("loads a module chosen at run time (`{q}`)"));
            }
            "process.binding" | "process._linkedBinding" | "process.dlopen" => {
                effects.unknown(format!("reaches Node's internals (`{q}`)"));
            }
            "Bun.spawn" | "Bun.spawnSync" => {
                let first = arg(0);
                let argv = match first.field("cmd") {
                    Some(cmd) => cmd.words(),
                    None => first.words(),
                };
                effects.exec(argv, &q);
            }
            "Bun.$" | "bun.$" | "zx.$" => effects.shell(&arg(0), &q),
            "Deno.Command" => {
                let argv = with_argv(
                    arg(0),
                    arg(1).field("args").unwrap_or(&Value::List(Vec::new())),
                );
                effects.exec(argv, &q);
            }
            "Deno.run" => effects.exec(arg(0).field("cmd").and_then(Value::words), &q),
            "Deno.remove" | "Deno.removeSync" => {
                let verb: &[&str] = if arg(1).field("recursive").is_some_and(Value::truthy) {
                    &["rm", "-rf"]
                } else {
                    &["rm", "-f"]
                };
                effects.on_path(verb, &arg(0), &q, true);
            }
            _ => {}
        }
        self.effects = effects;
    }
}

/// A JavaScript integer literal (`0o755`, `0x1f`, `1_000`, `0755` read as octal).
fn number(literal: &str) -> Option<i64> {
    let digits = literal.replace('_', "").to_ascii_lowercase();
    if let Some(octal) = digits.strip_prefix("0o") {
        i64::from_str_radix(octal, 8).ok()
    } else if let Some(hex) = digits.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(binary) = digits.strip_prefix("0b") {
        i64::from_str_radix(binary, 2).ok()
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()
    } else {
        digits.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn like(words: &[&str]) -> Effect {
        Effect::Like(words.iter().map(|w| (*w).to_owned()).collect())
    }

    #[test]
    fn shell_and_programs() {
        assert_eq!(
            analyze("require('child_process').execSync('rm -rf /')"),
            vec![Effect::Shell("rm -rf /".into())]
        );
        assert_eq!(
            analyze(
                "const {execSync: run} = require('node:child_process'); run(`shutdown -h now`)"
            ),
            vec![Effect::Shell("shutdown -h now".into())]
        );
        assert_eq!(
            analyze("child_process.spawnSync('rm', ['-rf', '/'])"),
            vec![Effect::Exec(vec!["rm".into(), "-rf".into(), "/".into()])]
        );
        assert_eq!(
            analyze("import {exec} from 'child_process'; exec('reboot')"),
            vec![Effect::Shell("reboot".into())]
        );
    }

    #[test]
    fn file_operations() {
        assert_eq!(
            analyze(
                "require('fs').rmSync(require('os').homedir(), {recursive: true, force: true})"
            ),
            vec![like(&["rm", "-rf", "$HOME"])]
        );
        assert_eq!(
            analyze(
                "const fs = require('fs'), path = require('path'); fs.unlinkSync(path.join(process.env.HOME, '.ssh/id_ed25519'))"
            ),
            vec![like(&["rm", "-f", "$HOME/.ssh/id_ed25519"])]
        );
        assert_eq!(
            analyze("require('fs').rmSync('dist', {recursive: true})"),
            vec![like(&["rm", "-rf", "dist"])]
        );
        assert_eq!(
            analyze("fs.writeFileSync('/etc/hosts', '')"),
            vec![like(&["tee", "/etc/hosts"])]
        );
    }

    #[test]
    fn what_cannot_be_judged() {
        for code in [
            "require('child_process').execSync(process.argv[1])",
            "eval(Buffer.from(process.argv[1], 'base64').toString())",
            "new Function(atob(s))()",
            "require(process.argv[2])",
            "const cp = require('child_process'); cp[process.argv[1]]('ls')",
            "require('fs').rmSync(process.argv[1], {recursive: true})",
            "console.log(",
        ] {
            let found = analyze(code);
            assert!(
                found.iter().any(|e| matches!(e, Effect::Unknown(_))),
                "{code}: {found:?}"
            );
        }
    }

    #[test]
    fn benign_code_has_no_effects() {
        for code in [
            "console.log(1)",
            "console.log(process.version)",
            "console.log(require('./package.json').version)",
            "const fs = require('fs'); console.log(fs.readFileSync('a.txt', 'utf8'))",
            "process.stdout.write([1, 2].map(x => x * 2).join(','))",
        ] {
            assert_eq!(analyze(code), vec![], "{code}");
        }
    }
}
