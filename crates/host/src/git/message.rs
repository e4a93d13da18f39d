//! The texts git work needs, written by the model in one side call each, or without it: a
//! turn's commit message and a pull request's title and description.
//!
//! A commit message is a Conventional Commits subject (`type(scope): summary`, at most 72
//! characters; a model's subject that is not one gets `chore: ` before it), a body, and the
//! trailer [`TRAILER`]. Without the model (a scripted provider, a failed call) the message is
//! made from the turn: `chore: ` and the request's first line, then the request and the files.

use keel_context::ChatMessage;

/// The trailer every commit Keel makes ends with: Keel as co-author (the author is the
/// repository's configured user). `keel.invalid` is a reserved domain: no mail reaches it.
pub const TRAILER: &str = "Co-authored-by: Keel <keel@keel.invalid>";

/// The line a pull request's description ends with.
pub const PR_FOOTER: &str = "Opened with Keel.";

/// Most characters of a subject or a title.
const MAX_SUBJECT: usize = 72;
/// Most characters of the request and of the answer in a prompt.
const MAX_TURN_TEXT: usize = 1_500;
/// Most characters of a diff stat or a commit log in a prompt.
const MAX_LISTING: usize = 3_000;

/// Conventional Commits types a subject may start with.
const TYPES: &[&str] = &[
    "feat", "fix", "refactor", "docs", "test", "chore", "perf", "build", "ci", "style", "revert",
];

const COMMIT_INSTRUCTIONS: &str = "You write git commit messages. From the request, the coding agent's answer and the diff stat below, \
write the commit message for the change: a first line `type(scope): summary` following Conventional Commits \
(type one of feat, fix, refactor, docs, test, chore, perf, build, ci, style; scope optional), at most 72 characters, \
in the imperative mood; then a blank line; then a body of one to five lines saying what changed and why. \
Answer with the message only: no code fences, no trailers, no other text.";

const PR_INSTRUCTIONS: &str = "You write pull request descriptions. From the branch's commits and diff stat below, \
write the pull request: its title on the first line (at most 72 characters, plain text, no prefix such as `Title:`), \
a blank line, then a short Markdown description: what changed and why, and how it was checked when the commits say. \
Answer with the title and description only, no code fence around them.";

/// What a commit message is written from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TurnText<'a> {
    /// The turn's request.
    pub(crate) task: &'a str,
    /// The turn's final answer.
    pub(crate) answer: &'a str,
    /// The committed files.
    pub(crate) files: &'a [String],
    /// `git diff --stat` of them.
    pub(crate) stat: &'a str,
}

/// The side call's messages for a commit message.
pub(crate) fn commit_prompt(turn: &TurnText<'_>) -> Vec<ChatMessage> {
    let text = format!(
        "## Request\n{}\n\n## The agent's answer\n{}\n\n## Diff stat\n{}",
        clip(turn.task, MAX_TURN_TEXT),
        clip(turn.answer, MAX_TURN_TEXT),
        clip(turn.stat, MAX_LISTING)
    );
    vec![
        ChatMessage::system(COMMIT_INSTRUCTIONS),
        ChatMessage::user(text),
    ]
}

/// The model's answer as a commit message with the trailer; `None` when it has no subject.
pub(crate) fn commit_from_model(answer: &str) -> Option<String> {
    let (subject, body) = split_text(answer)?;
    let subject = clip_line(&conventional(&subject), MAX_SUBJECT);
    Some(with_trailer(&subject, &body))
}

/// The message made without the model, from the turn.
pub(crate) fn commit_fallback(turn: &TurnText<'_>) -> String {
    let first = turn
        .task
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("changes from Keel");
    let subject = clip_line(&format!("chore: {first}"), MAX_SUBJECT);
    let mut body = format!("Request: {}", clip(turn.task.trim(), 600));
    body.push_str("\n\nFiles:");
    for file in turn.files {
        body.push_str("\n- ");
        body.push_str(file);
    }
    with_trailer(&subject, &body)
}

/// A pull request's title and description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequestText {
    /// The title.
    pub title: String,
    /// The description (Markdown), ending with [`PR_FOOTER`].
    pub body: String,
}

/// The side call's messages for a pull request.
pub(crate) fn pull_request_prompt(branch: &str, log: &str, stat: &str) -> Vec<ChatMessage> {
    let text = format!(
        "## Branch\n{branch}\n\n## Commits\n{}\n\n## Diff stat\n{}",
        clip(log, MAX_LISTING),
        clip(stat, MAX_LISTING)
    );
    vec![
        ChatMessage::system(PR_INSTRUCTIONS),
        ChatMessage::user(text),
    ]
}

/// The model's answer as a title and description; `None` when it has no title.
pub(crate) fn pull_request_from_model(answer: &str) -> Option<PullRequestText> {
    let (title, body) = split_text(answer)?;
    let title = title.trim_start_matches('#').trim();
    let title = title
        .strip_prefix("Title:")
        .or_else(|| title.strip_prefix("title:"))
        .unwrap_or(title)
        .trim();
    if title.is_empty() {
        return None;
    }
    Some(PullRequestText {
        title: clip_line(title, MAX_SUBJECT),
        body: with_footer(&body),
    })
}

/// The title and description made without the model from the branch's commit subjects
/// (oldest first): the only commit's subject and body, or the first subject and the list.
pub(crate) fn pull_request_fallback(branch: &str, commits: &[(String, String)]) -> PullRequestText {
    match commits {
        [] => PullRequestText {
            title: clip_line(branch, MAX_SUBJECT),
            body: with_footer(""),
        },
        [(subject, body)] => PullRequestText {
            title: clip_line(subject, MAX_SUBJECT),
            body: with_footer(&without_trailers(body)),
        },
        [(first, _), ..] => {
            let list: Vec<String> = commits.iter().map(|(s, _)| format!("- {s}")).collect();
            PullRequestText {
                title: clip_line(first, MAX_SUBJECT),
                body: with_footer(&format!("Commits:\n{}", list.join("\n"))),
            }
        }
    }
}

/// The first line and the rest of an answer, code fences and trailers dropped.
fn split_text(answer: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = answer
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    let text = without_trailers(&lines.join("\n"));
    let mut lines = text.lines().skip_while(|l| l.trim().is_empty());
    let subject = lines
        .next()?
        .trim()
        .trim_matches(|c| c == '`' || c == '"')
        .trim()
        .to_owned();
    if subject.is_empty() {
        return None;
    }
    let body = lines.collect::<Vec<_>>().join("\n").trim().to_owned();
    Some((subject, body))
}

/// `text` without `Co-authored-by:` and `Signed-off-by:` lines.
fn without_trailers(text: &str) -> String {
    text.lines()
        .filter(|l| {
            let l = l.trim_start().to_ascii_lowercase();
            !l.starts_with("co-authored-by:") && !l.starts_with("signed-off-by:")
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// `subject` as a Conventional Commits subject: as it is when it is one, else after `chore: `.
fn conventional(subject: &str) -> String {
    if is_conventional(subject) {
        subject.to_owned()
    } else {
        format!("chore: {subject}")
    }
}

/// Whether `subject` reads `type(scope)!: summary` with a known type.
pub(crate) fn is_conventional(subject: &str) -> bool {
    let Some((head, summary)) = subject.split_once(": ") else {
        return false;
    };
    if summary.trim().is_empty() {
        return false;
    }
    let head = head.strip_suffix('!').unwrap_or(head);
    let kind = match head.split_once('(') {
        Some((kind, scope)) => {
            if !scope.ends_with(')') || scope.len() < 2 {
                return false;
            }
            kind
        }
        None => head,
    };
    TYPES.contains(&kind)
}

fn with_trailer(subject: &str, body: &str) -> String {
    if body.trim().is_empty() {
        format!("{subject}\n\n{TRAILER}\n")
    } else {
        format!("{subject}\n\n{}\n\n{TRAILER}\n", body.trim())
    }
}

fn with_footer(body: &str) -> String {
    if body.trim().is_empty() {
        PR_FOOTER.to_owned()
    } else {
        format!("{}\n\n{PR_FOOTER}", body.trim())
    }
}

/// `text` cut to `max` characters, `…` marking the cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max).collect();
    cut.push('…');
    cut
}

/// One line of at most `max` characters.
fn clip_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(max - 1).collect();
    cut = cut.trim_end().to_owned();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn<'a>(task: &'a str, files: &'a [String]) -> TurnText<'a> {
        TurnText {
            task,
            answer: "done",
            files,
            stat: " a.txt | 1 +",
        }
    }

    #[test]
    fn a_model_message_keeps_its_conventional_subject_and_gets_one_trailer() {
        let answer = "```\nfeat(parser): read empty lines\n\nThe parser skipped them.\nCo-authored-by: Someone <s@x>\n```";
        let message = commit_from_model(answer).unwrap();
        assert_eq!(
            message,
            format!("feat(parser): read empty lines\n\nThe parser skipped them.\n\n{TRAILER}\n")
        );
    }

    #[test]
    fn a_subject_that_is_not_conventional_is_made_one_and_cut() {
        let long = "Fix ".repeat(30);
        let message = commit_from_model(&long).unwrap();
        let subject = message.lines().next().unwrap();
        assert!(subject.starts_with("chore: Fix"));
        assert!(subject.chars().count() <= 72);
        assert!(subject.ends_with('…'));
        assert!(commit_from_model("  \n ``` \n").is_none());
    }

    #[test]
    fn conventional_subjects_are_recognised() {
        assert!(is_conventional("fix: a"));
        assert!(is_conventional("feat(x)!: a"));
        assert!(!is_conventional("Fix: a"));
        assert!(!is_conventional("feat(: a"));
        assert!(!is_conventional("feat:a"));
    }

    #[test]
    fn the_fallback_names_the_request_and_the_files() {
        let files = vec!["a.txt".to_owned(), "b/c.rs".to_owned()];
        let message = commit_fallback(&turn("Add a greeting\nto the app", &files));
        assert_eq!(
            message,
            format!(
                "chore: Add a greeting\n\nRequest: Add a greeting\nto the app\n\nFiles:\n- a.txt\n- b/c.rs\n\n{TRAILER}\n"
            )
        );
    }

    #[test]
    fn pull_request_texts_from_the_model_and_without_it() {
        let text = pull_request_from_model("Title: Add greeting\n\nAdds it.").unwrap();
        assert_eq!(text.title, "Add greeting");
        assert_eq!(text.body, format!("Adds it.\n\n{PR_FOOTER}"));
        let one =
            pull_request_fallback("b", &[("feat: x".to_owned(), format!("Why.\n\n{TRAILER}"))]);
        assert_eq!(one.title, "feat: x");
        assert_eq!(one.body, format!("Why.\n\n{PR_FOOTER}"));
        let two = pull_request_fallback(
            "b",
            &[
                ("feat: x".to_owned(), String::new()),
                ("fix: y".to_owned(), String::new()),
            ],
        );
        assert_eq!(
            two.body,
            format!("Commits:\n- feat: x\n- fix: y\n\n{PR_FOOTER}")
        );
    }
}
