//! Approvals on the terminal: `[y]es [n]o [a]lways [e]dit`, asked on one line with the cursor
//! after the choices. When the renderer has shown the request on the same terminal, the prompt
//! is only the choices (the request is shown once); otherwise (`--json`) it says it all.
//!
//! "Always" approves the same subject for the rest of the session without asking again: the
//! exact command line, the same plan goal, or the same tool; for commands and tools it also
//! appends allow rules to the project's `.keel/rules.toml`, and says so (file and rule number)
//! in the approval's reason. The engine still emits its
//! request and resolve events for every approval.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;

use keel_events::{ApprovalDecision, ApprovalKind};
use keel_protocol::{ApprovalReply, ApprovalRequest, Approver};
use keel_tools::approval_rules::{append_always_rules, describe_written, subject_tool};

use super::BoxFuture;
use super::input::LineReader;
use keel_events::Lang;
use keel_render::i18n::{Arg, Messages};

/// Reason recorded when "always" answered an approval.
const ALWAYS_REASON: &str = "approved for the rest of the session";
/// Reason recorded when an earlier "always" answered it.
const REMEMBERED_REASON: &str = "approved earlier for the rest of the session";

/// A person's answer to an approval prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Approve this once.
    Yes,
    /// Reject, with the reason given, if any.
    No(Option<String>),
    /// Approve this and the same subject for the rest of the session.
    Always,
    /// Approve a changed command line.
    Edit(String),
}

/// What to type instead of an answer that was not understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// `e` without the new command line.
    EditNeedsCommand,
    /// Neither y, n, a nor (where allowed) e.
    Unclear {
        /// `e NEW COMMAND` is one of the choices.
        can_edit: bool,
    },
}

impl Hint {
    /// The catalogue message that says what to type.
    fn message_id(self) -> &'static str {
        match self {
            Hint::EditNeedsCommand => "prompt-hint-edit-needs-command",
            Hint::Unclear { can_edit: true } => "prompt-hint-edit",
            Hint::Unclear { can_edit: false } => "prompt-hint",
        }
    }
}

/// Reads an answer: `y`/`yes`, `n`/`no` [reason], `a`/`always`, `e`/`edit` NEW COMMAND
/// (only when `can_edit`). Case does not matter. Anything else is a [`Hint`] at what to type.
pub fn parse_answer(line: &str, can_edit: bool) -> Result<Answer, Hint> {
    let line = line.trim();
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((word, rest)) => (word, rest.trim()),
        None => (line, ""),
    };
    let rest = (!rest.is_empty()).then(|| rest.to_owned());
    match word.to_ascii_lowercase().as_str() {
        "y" | "yes" if rest.is_none() => Ok(Answer::Yes),
        "n" | "no" => Ok(Answer::No(rest)),
        "a" | "always" if rest.is_none() => Ok(Answer::Always),
        "e" | "edit" if can_edit => match rest {
            Some(command) => Ok(Answer::Edit(command)),
            None => Err(Hint::EditNeedsCommand),
        },
        _ => Err(Hint::Unclear { can_edit }),
    }
}

/// What "always" remembers a request by: its kind and the exact command line, the plan goal,
/// or the tool's name.
fn subject_key(request: &ApprovalRequest) -> (&'static str, String) {
    match request.kind {
        ApprovalKind::Command => ("command", request.subject.clone()),
        ApprovalKind::Plan => ("plan", request.subject.trim().to_owned()),
        ApprovalKind::Tool => ("tool", subject_tool(&request.subject).to_owned()),
    }
}

/// Asks approvals on the terminal, remembering "always" answers for the session.
#[derive(Debug)]
pub struct TerminalApprover {
    input: LineReader,
    /// One question at a time.
    lock: tokio::sync::Mutex<()>,
    /// Subjects approved for the rest of the session.
    always: Mutex<HashSet<(&'static str, String)>>,
    /// Where "always" answers are written as allow rules (the project's `.keel/rules.toml`);
    /// `None`: only remembered for the session.
    rules_file: Option<PathBuf>,
    /// The prompts' words.
    messages: Messages,
    /// The renderer has shown the request on this terminal: ask only the choices.
    shown: bool,
}

impl TerminalApprover {
    /// An approver reading answers from `input`, asking in `lang`.
    pub fn new(input: LineReader, lang: Lang) -> Self {
        Self {
            input,
            lock: tokio::sync::Mutex::new(()),
            always: Mutex::new(HashSet::new()),
            rules_file: None,
            messages: Messages::new(lang),
            shown: false,
        }
    }

    /// The same approver for a terminal where the renderer shows each request (`shown`):
    /// the prompt is then only the choices, on the line after it.
    pub fn question_shown(mut self, shown: bool) -> Self {
        self.shown = shown;
        self
    }

    /// The prompt for `request`: the choices, after the request itself unless it was shown.
    /// The cursor stays at its end.
    pub fn prompt(&self, request: &ApprovalRequest) -> String {
        let choices = if request.kind == ApprovalKind::Command {
            "prompt-choices-edit"
        } else {
            "prompt-choices"
        };
        let choices = self.messages.text(choices, &[]);
        if self.shown {
            return format!("  {choices}");
        }
        let id = match request.kind {
            ApprovalKind::Command => "prompt-approve-command",
            ApprovalKind::Plan => "prompt-approve-plan",
            ApprovalKind::Tool => "prompt-approve-tool",
        };
        let question = self
            .messages
            .text(id, &[("subject", Arg::from(request.subject.trim()))]);
        let reason = request.reason.trim();
        let reason = if reason.is_empty() {
            String::new()
        } else {
            format!("  {reason}\n")
        };
        format!("\n{question}\n{reason}  {choices}")
    }

    /// The same approver writing "always" answers to `file` as allow rules.
    pub fn with_rules_file(mut self, file: PathBuf) -> Self {
        self.rules_file = Some(file);
        self
    }

    /// Writes the allow rule(s) an "always" to `request` stands for
    /// ([`append_always_rules`], as the server does). Returns what was written, or why
    /// nothing was.
    fn persist(&self, request: &ApprovalRequest) -> Option<String> {
        let file = self.rules_file.as_ref()?;
        match append_always_rules(file, request.kind, &request.subject) {
            Ok(written) if written.is_empty() => None,
            Ok(written) => Some(describe_written(file, &written)),
            Err(e) => Some(format!("no rule written: {e}")),
        }
    }

    /// True when an earlier "always" covers `request`.
    pub fn remembers(&self, request: &ApprovalRequest) -> bool {
        self.always
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&subject_key(request))
    }

    /// Records `answer` to `request` and returns the reply it stands for.
    pub fn reply(&self, request: &ApprovalRequest, answer: Answer) -> ApprovalReply {
        match answer {
            Answer::Yes => ApprovalReply::approve(),
            Answer::No(reason) => {
                ApprovalReply::reject(reason.unwrap_or_else(|| "the user said no".to_owned()))
            }
            Answer::Always => {
                self.always
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(subject_key(request));
                let reason = match self.persist(request) {
                    Some(written) => format!("{ALWAYS_REASON}; {written}"),
                    None => ALWAYS_REASON.to_owned(),
                };
                ApprovalReply {
                    decision: ApprovalDecision::Approve,
                    reason: Some(reason),
                    modified: None,
                }
            }
            Answer::Edit(command) => ApprovalReply {
                decision: ApprovalDecision::Modify,
                reason: None,
                modified: Some(serde_json::Value::String(command)),
            },
        }
    }

    async fn ask(&self, request: &ApprovalRequest) -> ApprovalReply {
        let _one = self.lock.lock().await;
        if self.remembers(request) {
            // `run.approval.resolve` shows it, with this reason.
            return ApprovalReply {
                decision: ApprovalDecision::Approve,
                reason: Some(REMEMBERED_REASON.to_owned()),
                modified: None,
            };
        }
        let can_edit = request.kind == ApprovalKind::Command;
        let mut prompt = self.prompt(request);
        loop {
            let Some(line) = self.input.read_line(Some(prompt.clone())).await else {
                return ApprovalReply::reject("no answer (input closed)");
            };
            match parse_answer(&line, can_edit) {
                Ok(answer) => return self.reply(request, answer),
                Err(hint) => prompt = format!("  {}", self.messages.text(hint.message_id(), &[])),
            }
        }
    }
}

impl Approver for TerminalApprover {
    fn approve<'a, 'b, 'f>(&'a self, request: &'b ApprovalRequest) -> BoxFuture<'f, ApprovalReply>
    where
        'a: 'f,
        'b: 'f,
        Self: 'f,
    {
        Box::pin(self.ask(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_tools::approval_rules::RuleDecision;

    fn request(kind: ApprovalKind, subject: &str) -> ApprovalRequest {
        ApprovalRequest {
            approval_id: "ap_1".to_owned(),
            kind,
            subject: subject.to_owned(),
            reason: "dangerous".to_owned(),
        }
    }

    #[test]
    fn always_writes_allow_rules_and_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".keel/rules.toml");
        let approver = TerminalApprover::new(LineReader::spawn(std::io::empty()), Lang::En)
            .with_rules_file(file.clone());
        let reply = approver.reply(
            &request(
                ApprovalKind::Command,
                "cargo build && sudo git push origin main",
            ),
            Answer::Always,
        );
        let reason = reply.reason.unwrap();
        assert!(reason.contains(&file.display().to_string()), "{reason}");
        assert!(
            reason.contains("rule 2 `allow git push origin main`"),
            "{reason}"
        );
        let rules = keel_tools::RuleSet::load(Some(dir.path()), None).unwrap();
        assert_eq!(
            rules
                .check_command("git push origin main")
                .map(|v| v.decision),
            Some(RuleDecision::Allow)
        );
        // The safety check still wins: no override was written.
        assert_eq!(rules.check_command("git push origin main --force"), None);
        approver.reply(
            &request(ApprovalKind::Tool, "write_file(a.txt)"),
            Answer::Always,
        );
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("tool = \"write_file\""), "{text}");
        // Plans are remembered for the session only.
        approver.reply(&request(ApprovalKind::Plan, "ship it"), Answer::Always);
        assert_eq!(
            keel_tools::RuleSet::load(Some(dir.path()), None)
                .unwrap()
                .rules()
                .len(),
            3
        );
    }

    #[test]
    fn answers_parse() {
        assert_eq!(parse_answer("y", true), Ok(Answer::Yes));
        assert_eq!(parse_answer(" YES ", false), Ok(Answer::Yes));
        assert_eq!(parse_answer("n", true), Ok(Answer::No(None)));
        assert_eq!(
            parse_answer("no  not on main ", true),
            Ok(Answer::No(Some("not on main".to_owned())))
        );
        assert_eq!(parse_answer("a", true), Ok(Answer::Always));
        assert_eq!(parse_answer("Always", false), Ok(Answer::Always));
        assert_eq!(
            parse_answer("e rm -rf build/tmp", true),
            Ok(Answer::Edit("rm -rf build/tmp".to_owned()))
        );
        assert_eq!(
            parse_answer("edit   ls -la", true),
            Ok(Answer::Edit("ls -la".to_owned()))
        );
    }

    #[test]
    fn unclear_answers_say_what_to_type() {
        assert_eq!(
            parse_answer("", true),
            Err(Hint::Unclear { can_edit: true })
        );
        assert!(parse_answer("maybe", true).is_err());
        assert_eq!(parse_answer("e", true), Err(Hint::EditNeedsCommand));
        assert_eq!(
            parse_answer("e ls", false),
            Err(Hint::Unclear { can_edit: false })
        );
        assert!(parse_answer("y please", true).is_err());
        assert!(parse_answer("always sometimes", true).is_err());
    }

    #[test]
    fn replies_carry_the_decision() {
        let approver = TerminalApprover::new(LineReader::spawn(std::io::empty()), Lang::En);
        let rm = request(ApprovalKind::Command, "rm -rf build");
        assert_eq!(approver.reply(&rm, Answer::Yes), ApprovalReply::approve());
        assert_eq!(
            approver.reply(&rm, Answer::No(None)).decision,
            ApprovalDecision::Reject
        );
        let edited = approver.reply(&rm, Answer::Edit("rm -rf build/tmp".to_owned()));
        assert_eq!(edited.decision, ApprovalDecision::Modify);
        assert_eq!(
            edited.modified,
            Some(serde_json::Value::String("rm -rf build/tmp".to_owned()))
        );
        assert!(!approver.remembers(&rm), "yes/no/edit are not remembered");
    }

    #[test]
    fn always_covers_the_same_subject_only() {
        let approver = TerminalApprover::new(LineReader::spawn(std::io::empty()), Lang::En);
        let rm = request(ApprovalKind::Command, "rm -rf build");
        let reply = approver.reply(&rm, Answer::Always);
        assert_eq!(reply.decision, ApprovalDecision::Approve);
        assert!(approver.remembers(&rm));
        assert!(!approver.remembers(&request(ApprovalKind::Command, "rm -rf build ")));
        assert!(!approver.remembers(&request(ApprovalKind::Command, "rm -rf /")));
        assert!(!approver.remembers(&request(ApprovalKind::Plan, "rm -rf build")));

        let plan = request(ApprovalKind::Plan, "Fix mean()");
        approver.reply(&plan, Answer::Always);
        assert!(approver.remembers(&request(ApprovalKind::Plan, "Fix mean() ")));
        assert!(!approver.remembers(&request(ApprovalKind::Plan, "Fix median()")));

        approver.reply(
            &request(ApprovalKind::Tool, "write_file(path=a.txt)"),
            Answer::Always,
        );
        assert!(approver.remembers(&request(ApprovalKind::Tool, "write_file(path=b.txt)")));
        assert!(!approver.remembers(&request(ApprovalKind::Tool, "delete_file(path=a.txt)")));
    }

    #[tokio::test]
    async fn a_remembered_subject_is_not_asked_again() {
        // "a" to the first request; the second is answered from memory, so the "n" that
        // follows is left for the third, different request.
        let approver = TerminalApprover::new(
            LineReader::spawn(std::io::Cursor::new("maybe\na\nn\n")),
            Lang::En,
        );
        let rm = request(ApprovalKind::Command, "rm -rf build");
        assert_eq!(approver.ask(&rm).await.decision, ApprovalDecision::Approve);
        let again = approver.ask(&rm).await;
        assert_eq!(again.decision, ApprovalDecision::Approve);
        assert_eq!(again.reason.as_deref(), Some(REMEMBERED_REASON));
        let other = approver
            .ask(&request(ApprovalKind::Command, "rm -rf dist"))
            .await;
        assert_eq!(other.decision, ApprovalDecision::Reject);
        let closed = approver
            .ask(&request(ApprovalKind::Command, "rm -rf out"))
            .await;
        assert_eq!(closed.reason.as_deref(), Some("no answer (input closed)"));
    }

    #[test]
    fn the_prompt_is_one_line_of_choices_when_the_request_was_shown() {
        let approver = TerminalApprover::new(LineReader::spawn(std::io::empty()), Lang::En)
            .question_shown(true);
        let rm = request(ApprovalKind::Command, "rm -rf build");
        assert_eq!(approver.prompt(&rm), "  [y]es [n]o [a]lways [e]dit › ");
        let edit = request(ApprovalKind::Tool, "write_file a.txt\n@@ -1 +1 @@\n-a\n+b");
        assert_eq!(approver.prompt(&edit), "  [y]es [n]o [a]lways › ");
    }

    #[test]
    fn without_the_renderer_the_prompt_says_it_all() {
        let approver = TerminalApprover::new(LineReader::spawn(std::io::empty()), Lang::En);
        let rm = request(ApprovalKind::Command, "rm -rf build");
        assert_eq!(
            approver.prompt(&rm),
            "\n? Approve command: rm -rf build\n  dangerous\n  [y]es [n]o [a]lways [e]dit › "
        );
        let zh = TerminalApprover::new(LineReader::spawn(std::io::empty()), Lang::ZhCn)
            .question_shown(true);
        assert_eq!(zh.prompt(&rm), "  [y]是 [n]否 [a]总是 [e]编辑 › ");
    }
}
