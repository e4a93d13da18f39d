//! Whether a task asks for changes to the project or only for an answer: decides whether a
//! turn that changed no file is told so (and its `agent.end` carries why), and whether an
//! answer that only shows code is pointed back at the edit tools.
//!
//! A plain reading of the words, in English and Chinese: a task that names an action on the
//! code (fix, add, rename, 修复, …) asks for changes, unless it says not to change anything
//! ("no code changes", "don't change", 不要修改) or is phrased as a question about the code (it
//! opens with what, where, which, explain, …, or asks one with a question mark without opening
//! on an action). When in doubt it is a question, so nobody is nagged about an answer they
//! asked for.

/// Verbs (and their inflections' stems) that ask for a change.
const CHANGE_WORDS: &[&str] = &[
    "fix",
    "add",
    "implement",
    "change",
    "update",
    "rename",
    "move",
    "refactor",
    "remove",
    "delete",
    "create",
    "write",
    "make",
    "replace",
    "convert",
    "support",
    "handle",
    "edit",
    "modify",
    "bump",
    "extract",
    "split",
    "merge",
    "introduce",
    "correct",
    "resolve",
    "migrate",
    "port",
    "optimize",
    "optimise",
    "clean",
    "rewrite",
    "append",
    "insert",
    "set",
    "use",
    "adjust",
    "repair",
    "patch",
    "rework",
    "restructure",
    "reorganize",
    "reorganise",
    "drop",
    "raise",
    "return",
    "accept",
    "allow",
    "validate",
];

/// Chinese words that ask for a change.
const CHANGE_WORDS_ZH: &[&str] = &[
    "修复",
    "修改",
    "添加",
    "增加",
    "实现",
    "重命名",
    "移动",
    "删除",
    "创建",
    "更新",
    "重构",
    "替换",
    "编写",
    "改为",
    "改成",
    "支持",
];

/// Words that open a question about the code.
const QUESTION_OPENERS: &[&str] = &[
    "what",
    "where",
    "which",
    "who",
    "why",
    "how",
    "when",
    "explain",
    "describe",
    "is",
    "are",
    "does",
    "do",
    "list",
    "show",
    "tell",
    "summarize",
    "summarise",
    "find",
];

/// Phrases that say no change is wanted.
const NO_CHANGE: &[&str] = &[
    "no code change",
    "no changes",
    "no change",
    "don't change",
    "do not change",
    "don't modify",
    "do not modify",
    "without changing",
    "without modifying",
    "read-only",
    "don't edit",
    "do not edit",
    "不要修改",
    "不修改",
    "不要改",
];

/// Chinese question markers.
const QUESTION_ZH: &[&str] = &["什么", "哪", "为什么", "怎么", "如何", "解释", "吗", "？"];

/// Whether `task` asks for the project's files to change.
pub(crate) fn asks_for_change(task: &str) -> bool {
    let words: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let change =
        words.iter().any(|w| is_change_word(w)) || CHANGE_WORDS_ZH.iter().any(|w| task.contains(w));
    if !change {
        return false;
    }
    let lower = task.to_lowercase();
    if NO_CHANGE.iter().any(|p| lower.contains(p)) {
        return false;
    }
    let opens_with_change = words.first().is_some_and(|w| is_change_word(w));
    let asks_a_question = task.contains('?')
        && words
            .iter()
            .any(|w| QUESTION_OPENERS[..6].contains(&w.as_str()));
    if asks_a_question && !opens_with_change {
        return false;
    }
    let opens_question = words
        .first()
        .is_some_and(|w| QUESTION_OPENERS.contains(&w.as_str()));
    let zh_question = QUESTION_ZH.iter().any(|w| task.contains(w))
        && !CHANGE_WORDS_ZH.iter().any(|w| task.starts_with(w));
    !(opens_question || zh_question)
}

/// Whether `task` is plainly a question that asks for no change: it says not to change
/// anything, or it asks something (a question mark, or opening with what, where, explain, …)
/// and names no change. Stricter than `!asks_for_change`: a task that only describes a
/// problem ("mean() is wrong for [1, 2]") is neither.
pub(crate) fn only_asks(task: &str) -> bool {
    let lower = task.to_lowercase();
    if NO_CHANGE.iter().any(|p| lower.contains(p)) {
        return true;
    }
    if asks_for_change(task) {
        return false;
    }
    let first = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .find(|w| !w.is_empty())
        .unwrap_or("");
    task.contains('?')
        || QUESTION_ZH.iter().any(|w| task.contains(w))
        || QUESTION_OPENERS.contains(&first)
}

/// Whether `word` is a change verb or one of its inflections (`fixes`, `renamed`, `adding`).
fn is_change_word(word: &str) -> bool {
    CHANGE_WORDS.iter().any(|verb| {
        word == *verb
            || word
                .strip_prefix(verb)
                .is_some_and(|rest| matches!(rest, "s" | "es" | "d" | "ed" | "ing" | "ding"))
            || word
                .strip_prefix(verb.trim_end_matches('e'))
                .is_some_and(|rest| matches!(rest, "ed" | "ing"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_for_changes() {
        for task in [
            "Fix the failing test",
            "The test for `mean` fails. Fix it.",
            "Rename parse_cfg to parse_config everywhere.",
            "Implement `slugify` from its docstring",
            "Can you add a `timeout` parameter to fetch()?",
            "Move the helpers into utils.py and update the imports",
            "Please make the parser accept empty input",
            "Fix the bug: why does mean() divide by the wrong count?",
            "修复失败的测试",
            "给 fetch 添加 timeout 参数",
        ] {
            assert!(asks_for_change(task), "{task}");
        }
    }

    #[test]
    fn plain_questions_and_problem_reports() {
        for task in [
            "Which function validates email addresses, and in which file?",
            "Explain how the cache evicts entries",
            "I'm new here. Two questions, no code changes please: (1) Which function refills?",
        ] {
            assert!(only_asks(task), "{task}");
        }
        for task in [
            "mean() returns the wrong value for [1, 2, 3]",
            "Fix the failing test",
            "The test for median fails. Can you fix it?",
        ] {
            assert!(!only_asks(task), "{task}");
        }
    }

    #[test]
    fn questions_and_answers() {
        for task in [
            "Which function validates email addresses, and in which file?",
            "Where is the session cookie signed?",
            "How does the cache decide when to evict an entry?",
            "Explain what fix_paths does",
            "What does this project do?",
            "哪个函数负责解析配置？",
            "Summarize the README",
            "I'm new to this code. Two questions, no code changes please: (1) Which function refills a bucket?",
            "Our docs say the limit is 8. Which function enforces it, and what is the real minimum?",
            "Don't change anything, just tell me how fix_paths works",
            "",
        ] {
            assert!(!asks_for_change(task), "{task}");
        }
    }
}
