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

/// Phrases that say the tests are right and the code is to change.
const TESTS_RIGHT: &[&str] = &[
    "test is right",
    "test is correct",
    "tests are right",
    "tests are correct",
    "test describes what",
    "tests describe what",
    "test matches what",
    "tests match what",
    "not the test",
    "don't change the test",
    "do not change the test",
    "don't touch the test",
    "do not touch the test",
    "测试是对的",
    "测试是正确的",
    "不要修改测试",
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
    if says_no_change(task) {
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

/// Whether `task` says its tests are right, so the code under test is what changes ("the test
/// is correct", "fix the cache, not the test").
pub(crate) fn keeps_tests(task: &str) -> bool {
    let lower = task.to_lowercase();
    TESTS_RIGHT.iter().any(|phrase| lower.contains(phrase))
}

/// Whether `task` speaks of tests at all ("test", "tests", "unit test", "spec", "测试").
pub(crate) fn mentions_tests(task: &str) -> bool {
    let lower = task.to_lowercase();
    lower.contains("test") || lower.contains("spec") || task.contains("测试")
}

/// Whether `task` is plainly a question that asks for no change: it says not to change
/// anything, or it asks something (a question mark, or opening with what, where, explain, …)
/// and names no change. Stricter than `!asks_for_change`: a task that only describes a
/// problem ("mean() is wrong for [1, 2]") is neither.
pub(crate) fn only_asks(task: &str) -> bool {
    let lower = task.to_lowercase();
    if says_no_change(task) {
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

/// Words that may come between a clause's start and a "no change" phrase that is still said
/// to the agent ("please don't change…", "and do not modify…").
const CLAUSE_OPENERS: &[&str] = &["please", "and", "but", "just", "then", "so", "also"];

/// Whether `task` tells the agent not to change anything: a [`NO_CHANGE`] phrase that opens a
/// clause, not one that is part of what is asked ("… so other callers don't change", "refactor
/// it without changing its behaviour").
fn says_no_change(task: &str) -> bool {
    let lower = task.to_lowercase();
    NO_CHANGE.iter().any(|phrase| {
        lower.match_indices(phrase).any(|(at, _)| {
            if !phrase.is_ascii() {
                return true;
            }
            let before = &lower[..at];
            let clause = before
                .rsplit(['.', ',', ';', ':', '!', '?', '(', ')', '\n', '—'])
                .next()
                .unwrap_or("");
            let after = lower[at + phrase.len()..].trim_start();
            // "don't change the tests" keeps the tests, not the code.
            let about_tests = ["the test", "tests", "any test", "my test", "our test"]
                .iter()
                .any(|object| after.starts_with(object));
            !about_tests
                && clause
                    .split_whitespace()
                    .all(|w| CLAUSE_OPENERS.contains(&w))
        })
    })
}

/// Whether `word` (lower case) is a change verb or one of its inflections (`fixes`, `renamed`,
/// `adding`).
pub(crate) fn is_change_word(word: &str) -> bool {
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
    fn a_no_change_phrase_inside_what_is_asked_is_not_a_refusal() {
        for task in [
            "Give `formatList` a second parameter for the word before the last item (default \"and\", so other callers don't change), and make the sizes part of `describeFilters` use \"or\".",
            "Refactor `parse` without changing its behaviour.",
        ] {
            assert!(asks_for_change(task), "{task}");
            assert!(!only_asks(task), "{task}");
        }
        for task in [
            "Explain the retry loop. Please don't change anything.",
            "How does the cache expire? No code changes.",
            "Look at src/app.py and, please, do not modify it: which function parses the flags?",
        ] {
            assert!(!asks_for_change(task), "{task}");
            assert!(only_asks(task), "{task}");
        }
    }

    #[test]
    fn tasks_that_say_the_tests_are_right() {
        for task in [
            "`cargo test` fails: `century_years` in tests/dates.rs doesn't pass. The test is correct. Please fix the library.",
            "The test matches what the README promises, so please fix the cache, not the test.",
            "test_percent_off fails. The test is right, fix the code.",
            "Fix the parser; don't change the tests.",
        ] {
            assert!(keeps_tests(task), "{task}");
            assert!(asks_for_change(task), "{task}");
        }
        for task in [
            "Rename `Temp` to `Temperature` everywhere, tests included.",
            "Add a test for the empty list.",
        ] {
            assert!(!keeps_tests(task), "{task}");
        }
    }

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
