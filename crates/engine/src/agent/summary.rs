//! One-line summaries of tool arguments and results for `run.tool.end` (timelines show them).

use keel_protocol::ToolResult;

/// Longest summary, in characters.
const MAX_SUMMARY_CHARS: usize = 120;

/// A one-line summary of a call's arguments: the most telling argument first.
pub fn args_summary(tool: &str, arguments: &serde_json::Value) -> String {
    let Some(map) = arguments.as_object() else {
        return one_line(&arguments.to_string());
    };
    let text = |key: &str| map.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    let summary = match tool {
        "move_file" => match (text("fromPath"), text("toPath")) {
            (Some(from), Some(to)) => Some(format!("{from} → {to}")),
            _ => None,
        },
        "execute_command" => text("command"),
        "search_files" => text("regex").map(|r| match text("path") {
            Some(p) => format!("/{r}/ in {p}"),
            None => format!("/{r}/"),
        }),
        "attempt_completion" => text("result"),
        "ask_followup_question" => text("question"),
        "plan_mode_respond" => text("response"),
        "create_plan" => text("goal"),
        _ => None,
    }
    .or_else(|| text("path"))
    .unwrap_or_else(|| {
        map.iter()
            .map(|(k, v)| match v.as_str() {
                Some(s) => format!("{k}={s}"),
                None => format!("{k}={v}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    });
    one_line(&summary)
}

/// A one-line summary of a result: the tool's own summary, else its message's first line.
pub fn result_summary(result: &ToolResult) -> String {
    one_line(result.summary.as_deref().unwrap_or(&result.message))
}

/// The text a tool result is given back to the model as: the message, then the content.
pub fn result_text(result: &ToolResult) -> String {
    match &result.content {
        Some(content) if !content.is_empty() => format!("{}\n\n{content}", result.message),
        _ => result.message.clone(),
    }
}

fn one_line(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() <= MAX_SUMMARY_CHARS {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(MAX_SUMMARY_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries_pick_the_telling_argument() {
        assert_eq!(
            args_summary(
                "move_file",
                &json!({"fromPath": "a.py", "toPath": "b/a.py"})
            ),
            "a.py → b/a.py"
        );
        assert_eq!(
            args_summary(
                "execute_command",
                &json!({"command": "pytest -q\nmore", "requires_approval": false})
            ),
            "pytest -q"
        );
        assert_eq!(args_summary("read_file", &json!({"path": "x.rs"})), "x.rs");
        assert_eq!(args_summary("other", &json!({"n": 1})), "n=1");
        assert_eq!(args_summary("x", &json!("raw {")), "\"raw {\"");
        let long = "é".repeat(300);
        assert_eq!(
            args_summary("read_file", &json!({"path": long}))
                .chars()
                .count(),
            120
        );
    }

    #[test]
    fn result_text_joins_message_and_content() {
        assert_eq!(result_text(&ToolResult::ok("done")), "done");
        assert_eq!(
            result_text(&ToolResult::ok_with("Read", "body")),
            "Read\n\nbody"
        );
        assert_eq!(result_summary(&ToolResult::error("\nbad\nthing")), "bad");
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            ".{0,300}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("[a-zA-Z_]{1,10}", inner, 0..6)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn summaries_are_one_short_line(tool in "[a-z_]{1,20}", args in json_value()) {
            let summary = args_summary(&tool, &args);
            proptest::prop_assert!(summary.chars().count() <= MAX_SUMMARY_CHARS);
            proptest::prop_assert!(!summary.contains('\n'));
        }
    }
}
