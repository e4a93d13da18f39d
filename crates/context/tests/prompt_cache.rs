//! A [`PromptCache`] never changes what is built: after any sequence of appends, focus
//! changes, summaries and evictions, a cached build (reusing the previous request's given-back
//! messages, or not) equals a build from scratch.

use keel_context::{
    Budget, Conversation, EvictionLimits, ExtractiveSummarizer, FocusedFiles, PromptBuilder,
    PromptCache, PromptSources, RetentionPolicy, TokenCounter, ToolCallRequest,
};
use proptest::prelude::*;

const PATHS: [&str; 3] = ["a.py", "b.rs", "c.md"];

#[derive(Debug, Clone)]
enum Op {
    User(String),
    Read(usize),
    Write(usize, String),
    Command(usize),
    Answer(String),
    Unfocus(usize),
    Rename(usize, usize),
    Release,
    Evict,
    Summarize,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => "[a-z ]{1,40}".prop_map(Op::User),
        4 => (0..3usize).prop_map(Op::Read),
        3 => (0..3usize, "[a-z\n]{0,120}").prop_map(|(p, c)| Op::Write(p, c)),
        2 => (1..3000usize).prop_map(Op::Command),
        2 => "[a-z ]{1,40}".prop_map(Op::Answer),
        1 => (0..3usize).prop_map(Op::Unfocus),
        1 => (0..3usize, 0..3usize).prop_map(|(a, b)| Op::Rename(a, b)),
        1 => Just(Op::Release),
        1 => Just(Op::Evict),
        1 => Just(Op::Summarize),
    ]
}

struct World {
    conversation: Conversation,
    focused: FocusedFiles,
    files: [String; 3],
    calls: usize,
}

impl World {
    fn call(&mut self, name: &str, args: serde_json::Value, result: &str, success: bool) {
        self.calls += 1;
        let id = format!("call_{}", self.calls);
        self.conversation
            .push_assistant("", vec![ToolCallRequest::new(&id, name, args.to_string())])
            .unwrap();
        self.conversation
            .add_tool_result(&id, result, success, &RetentionPolicy::default())
            .unwrap();
    }

    fn apply(&mut self, op: &Op, builder: &PromptBuilder) {
        match op {
            Op::User(text) => self.conversation.push_user(text.clone()),
            Op::Read(p) => {
                let content = self.files[*p].clone();
                self.call(
                    "read_file",
                    serde_json::json!({"path": PATHS[*p]}),
                    &content,
                    true,
                );
                self.focused.upsert(PATHS[*p], content, false);
            }
            Op::Write(p, content) => {
                self.files[*p] = format!("{content}{}", "x".repeat(250));
                let args = serde_json::json!({"path": PATHS[*p], "content": self.files[*p]});
                self.call("write_file", args, "Wrote the file.", true);
                self.focused.upsert(PATHS[*p], self.files[*p].clone(), true);
            }
            Op::Command(n) => {
                let output = "o".repeat(*n);
                self.call(
                    "execute_command",
                    serde_json::json!({"command": "make"}),
                    &output,
                    n % 2 == 0,
                );
            }
            Op::Answer(text) => self
                .conversation
                .push_assistant(text.clone(), Vec::new())
                .unwrap(),
            Op::Unfocus(p) => {
                self.focused.remove(PATHS[*p]);
            }
            Op::Rename(a, b) => {
                self.focused.rename(PATHS[*a], PATHS[*b]);
            }
            Op::Release => {
                self.focused.release_all();
            }
            Op::Evict => {
                let limits = EvictionLimits {
                    max_tokens: Some(400),
                    ..EvictionLimits::default()
                };
                builder.evict(&mut self.conversation, &self.focused, &limits);
            }
            Op::Summarize => {
                // A tight budget makes the builder summarise older turns.
                let tight = builder.with_budget(Budget::new(900));
                let sources = sources(&self.focused);
                futures_lite_block_on(tight.build(
                    sources,
                    &mut self.conversation,
                    &ExtractiveSummarizer,
                ));
            }
        }
    }
}

fn sources(focused: &FocusedFiles) -> PromptSources<'_> {
    PromptSources {
        instructions: "You are a coding agent.",
        memory: None,
        repo_map: Some("src/lib.rs:\n  fn main()"),
        libraries: None,
        focused,
        turn_notes: None,
    }
}

fn futures_lite_block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn check(ops: &[Op], window: u64) {
    let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(window));
    let mut world = World {
        conversation: Conversation::new(),
        focused: FocusedFiles::new(),
        files: [
            "print(1)\n".into(),
            "fn main() {}\n".into(),
            "# Title\n".into(),
        ],
        calls: 0,
    };
    let mut cache = PromptCache::new();
    for (step, op) in ops.iter().enumerate() {
        world.apply(op, &builder);
        // Without a summarizer nothing changes the conversation, so both builds see the same.
        let fresh = futures_lite_block_on(builder.build(
            sources(&world.focused),
            &mut world.conversation,
            &keel_context::NoSummarizer,
        ));
        let cached = futures_lite_block_on(builder.build_cached(
            sources(&world.focused),
            &mut world.conversation,
            &keel_context::NoSummarizer,
            &mut cache,
        ));
        assert_eq!(cached, fresh, "step {step} {op:?}");
        assert_eq!(
            cached.tokens,
            builder.counter().count_messages(&cached.messages),
            "step {step}: the reported tokens are exact"
        );
        // Given back, the vector is reused by the next build (which must still be the same
        // as a build from scratch).
        if step % 3 != 2 {
            cache.recycle(cached.messages);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn cached_builds_equal_fresh_builds(ops in prop::collection::vec(op(), 1..40)) {
        check(&ops, 128_000);
    }

    #[test]
    fn cached_builds_equal_fresh_builds_under_pressure(ops in prop::collection::vec(op(), 1..40)) {
        check(&ops, 2_500);
    }
}

#[test]
fn a_cache_follows_focus_changes_of_old_messages() {
    let ops = [
        Op::User("fix a".into()),
        Op::Read(0),
        Op::Answer("ok".into()),
        Op::User("again".into()),
        Op::Unfocus(0),
        Op::Read(1),
        Op::Rename(1, 0),
        Op::Write(2, "new".into()),
        Op::Release,
        Op::Summarize,
        Op::Read(0),
    ];
    check(&ops, 128_000);
}
