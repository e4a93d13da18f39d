//! The message catalogues under `i18n/`: every file of every language parses without errors,
//! and every language has the same files, the same messages and, per message, the same
//! variables as English (so a translation neither lacks a message nor drops a value). Runs
//! over whatever is in `i18n/*/`, so catalogues added later (the page's `web.ftl`) are checked
//! as well.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};

fn i18n_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../i18n")
}

fn variables_of_inline(expression: &InlineExpression<&str>, out: &mut BTreeSet<String>) {
    match expression {
        InlineExpression::VariableReference { id } => {
            out.insert(id.name.to_owned());
        }
        InlineExpression::Placeable { expression } => variables_of(expression, out),
        InlineExpression::FunctionReference { arguments, .. } => {
            for argument in &arguments.positional {
                variables_of_inline(argument, out);
            }
            for named in &arguments.named {
                variables_of_inline(&named.value, out);
            }
        }
        _ => {}
    }
}

fn variables_of(expression: &Expression<&str>, out: &mut BTreeSet<String>) {
    match expression {
        Expression::Inline(inline) => variables_of_inline(inline, out),
        Expression::Select { selector, variants } => {
            variables_of_inline(selector, out);
            for variant in variants {
                pattern_variables(&variant.value, out);
            }
        }
    }
}

fn pattern_variables(pattern: &Pattern<&str>, out: &mut BTreeSet<String>) {
    for element in &pattern.elements {
        if let PatternElement::Placeable { expression } = element {
            variables_of(expression, out);
        }
    }
}

/// Message id (and `id.attribute`) → the variables it uses, of one `.ftl` file.
fn messages(path: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let resource = fluent_syntax::parser::parse(text.as_str())
        .unwrap_or_else(|(_, errors)| panic!("{} does not parse: {errors:?}", path.display()));
    let mut out = BTreeMap::new();
    for entry in &resource.body {
        let (id, value, attributes) = match entry {
            Entry::Message(m) => (m.id.name.to_owned(), m.value.as_ref(), &m.attributes),
            Entry::Term(t) => (format!("-{}", t.id.name), Some(&t.value), &t.attributes),
            Entry::Junk { content } => panic!("{}: junk `{content}`", path.display()),
            _ => continue,
        };
        let mut vars = BTreeSet::new();
        if let Some(value) = value {
            pattern_variables(value, &mut vars);
        }
        assert!(
            out.insert(id.clone(), vars).is_none(),
            "{}: `{id}` twice",
            path.display()
        );
        for attribute in attributes {
            let mut vars = BTreeSet::new();
            pattern_variables(&attribute.value, &mut vars);
            out.insert(format!("{id}.{}", attribute.id.name), vars);
        }
    }
    out
}

/// File name → its messages, for one language folder.
fn catalogue(dir: &Path) -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ftl") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            files.insert(name, messages(&path));
        }
    }
    files
}

#[test]
fn every_language_has_every_message_with_the_same_variables() {
    let english = catalogue(&i18n_dir().join("en"));
    assert!(english.contains_key("cli.ftl") && english.contains_key("tools.ftl"));
    let mut languages = 0;
    for entry in std::fs::read_dir(i18n_dir()).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() || dir.file_name().is_some_and(|n| n == "en") {
            continue;
        }
        languages += 1;
        let lang = dir.file_name().unwrap().to_string_lossy().into_owned();
        let other = catalogue(&dir);
        let names: BTreeSet<_> = english.keys().chain(other.keys()).collect();
        for name in names {
            let (Some(en), Some(tr)) = (english.get(name), other.get(name)) else {
                panic!("{name} is in one of en and {lang} only");
            };
            let missing: Vec<_> = en.keys().filter(|k| !tr.contains_key(*k)).collect();
            let extra: Vec<_> = tr.keys().filter(|k| !en.contains_key(*k)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{lang}/{name}: missing {missing:?}, not in English {extra:?}"
            );
            for (id, vars) in en {
                assert_eq!(&tr[id], vars, "{lang}/{name}: `{id}` uses other variables");
            }
        }
    }
    assert!(languages >= 1, "no translation next to English");
}

#[test]
fn tool_messages_name_real_tools_and_their_arguments() {
    let tools = &catalogue(&i18n_dir().join("en"))["tools.ftl"];
    let registry = keel_tools::ToolRegistry::builtin();
    let mut checked = 0;
    for (id, vars) in tools {
        let Some(name) = id.strip_prefix("tool-") else {
            panic!("tools.ftl: `{id}` is not `tool-<name>`");
        };
        if name == "other" {
            assert_eq!(vars, &BTreeSet::from(["name".to_owned()]));
            continue;
        }
        if name == "mcp" {
            assert_eq!(
                vars,
                &BTreeSet::from(["server".to_owned(), "tool".to_owned()])
            );
            continue;
        }
        // Tools answered by the engine (questions, plans, completion) or by keel-mcp are not
        // in the built-in registry; theirs are checked where they are defined.
        let Some(tool) = registry.get(name) else {
            continue;
        };
        let schema = tool.parameters();
        for var in vars {
            assert!(
                schema["properties"].get(var).is_some(),
                "`{id}` uses ${var}, which is no argument of {name}"
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked,
        registry.names().len(),
        "a built-in tool has no message"
    );
}

#[test]
fn tools_outside_the_registry_have_messages() {
    use keel_engine::agent::{control_tools, remember};
    let tools = &catalogue(&i18n_dir().join("en"))["tools.ftl"];
    // The engine's own tools, keel-mcp's generic ones, and the message for each server tool
    // offered as mcp__SERVER__TOOL.
    let names = [
        control_tools::ATTEMPT_COMPLETION,
        control_tools::CREATE_PLAN,
        control_tools::ASK_FOLLOWUP_QUESTION,
        control_tools::PLAN_MODE_RESPOND,
        remember::REMEMBER,
        keel_tools::builtin::SKILL,
        keel_engine::TASK,
        keel_mcp::USE_MCP_TOOL,
        keel_mcp::ACCESS_MCP_RESOURCE,
        "mcp",
    ];
    for name in names {
        assert!(
            tools.contains_key(&format!("tool-{name}")),
            "tools.ftl has no `tool-{name}`"
        );
    }
}
