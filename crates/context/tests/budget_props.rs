//! Property tests for budgets: over random sessions and windows, a built prompt is well formed,
//! its reported token count is exact, it stays within 80 % of the window whenever that is
//! possible (the instructions, the user's current request and the latest round fit), and
//! summarising keeps all of that true.

use keel_context::dedup::cap;
use keel_context::{
    Budget, ChatMessage, Conversation, ExtractiveSummarizer, FitStep, FocusedFiles, Memory,
    MemoryKind, MemoryLimits, Message, NewEntry, PromptBuilder, PromptSources, RetentionPolicy,
    Role, TokenCounter, ToolCallRequest,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Call {
    Read(usize),
    Write(usize, usize),
    Shell(usize),
    Search(usize),
}

#[derive(Debug, Clone)]
struct Turn {
    request: usize,
    rounds: Vec<Vec<Call>>,
    answer: bool,
}

#[derive(Debug, Clone)]
struct Case {
    instructions: usize,
    files: Vec<usize>,
    turns: Vec<Turn>,
    window: u64,
    focus_budget: usize,
    conventions: usize,
    repo_map: usize,
}

fn call() -> impl Strategy<Value = Call> {
    prop_oneof![
        (0usize..5).prop_map(Call::Read),
        ((0usize..5), (0usize..4_000)).prop_map(|(f, n)| Call::Write(f, n)),
        (0usize..6_000).prop_map(Call::Shell),
        (0usize..3_000).prop_map(Call::Search),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    (
        1usize..400,
        prop::collection::vec(prop::collection::vec(call(), 1..3), 0..4),
        any::<bool>(),
    )
        .prop_map(|(request, rounds, answer)| Turn {
            request,
            rounds,
            answer,
        })
}

fn case() -> impl Strategy<Value = Case> {
    (
        0usize..600,
        prop::collection::vec(0usize..6_000, 5),
        prop::collection::vec(turn(), 1..6),
        500u64..12_000,
        1_000usize..30_000,
        0usize..4,
        0usize..3_000,
    )
        .prop_map(
            |(instructions, files, turns, window, focus_budget, conventions, repo_map)| Case {
                instructions,
                files,
                turns,
                window,
                focus_budget,
                conventions,
                repo_map,
            },
        )
}

/// Source-like text of about `chars` characters.
fn text(seed: usize, chars: usize) -> String {
    let mut out = String::with_capacity(chars + 40);
    let mut i = seed;
    while out.len() < chars {
        i += 1;
        out.push_str(&format!(
            "    value_{i} = compute({i}, \"item {}\")\n",
            i * 7 % 13
        ));
    }
    out.truncate(chars);
    out
}

struct World {
    conversation: Conversation,
    focused: FocusedFiles,
    memory: Memory,
    instructions: String,
    repo_map: String,
}

fn play(case: &Case) -> World {
    let policy = RetentionPolicy::default();
    let mut conversation = Conversation::new();
    let mut focused = FocusedFiles::with_budget(case.focus_budget);
    let mut disk: Vec<String> = case
        .files
        .iter()
        .enumerate()
        .map(|(i, n)| text(i, *n))
        .collect();
    let mut next = 0;
    for (t, turn) in case.turns.iter().enumerate() {
        conversation.push_user(format!(
            "request {t}: {}",
            "please ".repeat(turn.request / 7)
        ));
        for round in &turn.rounds {
            let mut calls = Vec::new();
            for c in round {
                next += 1;
                let id = format!("call_{next}");
                let (name, args) = match c {
                    Call::Read(f) => ("read_file", serde_json::json!({"path": format!("f{f}.py")})),
                    Call::Write(f, n) => (
                        "write_file",
                        serde_json::json!({"path": format!("f{f}.py"), "content": text(next, *n)}),
                    ),
                    Call::Shell(_) => ("execute_command", serde_json::json!({"command": "make"})),
                    Call::Search(_) => ("search_files", serde_json::json!({"regex": "x"})),
                };
                calls.push(ToolCallRequest::new(id, name, args.to_string()));
            }
            conversation.push_assistant("", calls.clone()).unwrap();
            for (c, request) in round.iter().zip(&calls) {
                let result = match c {
                    Call::Read(f) => {
                        focused.upsert(format!("f{f}.py"), disk[*f].clone(), false);
                        disk[*f].clone()
                    }
                    Call::Write(f, n) => {
                        disk[*f] = text(request.id.len() + n, *n);
                        let args = request.arguments_json().unwrap();
                        let content = args["content"].as_str().unwrap().to_owned();
                        disk[*f] = content.clone();
                        focused.upsert(format!("f{f}.py"), content, true);
                        format!("Wrote f{f}.py.")
                    }
                    Call::Shell(n) | Call::Search(n) => text(*n, *n),
                };
                conversation
                    .add_tool_result(&request.id, result, true, &policy)
                    .unwrap();
            }
        }
        if turn.answer {
            conversation
                .push_assistant(format!("done {t}"), Vec::new())
                .unwrap();
        }
    }
    let mut memory = Memory::new();
    memory.record(
        (0..case.conventions)
            .map(|i| NewEntry::new(MemoryKind::Convention, format!("convention {i}"))),
        &MemoryLimits::default(),
    );
    World {
        conversation,
        focused,
        memory,
        instructions: "Follow the rules. ".repeat(case.instructions / 18),
        repo_map: text(99, case.repo_map),
    }
}

fn sources(world: &World) -> PromptSources<'_> {
    PromptSources {
        instructions: &world.instructions,
        memory: Some(&world.memory),
        repo_map: Some(&world.repo_map),
        libraries: None,
        focused: &world.focused,
        turn_notes: None,
    }
}

/// The smallest prompt the builder can reach: the instructions, the user's current request and
/// the latest round (its tool results capped), nothing else.
fn minimal_prompt(world: &World) -> Vec<ChatMessage> {
    let messages = world.conversation.messages();
    let mut out = Vec::new();
    if !world.instructions.trim().is_empty() {
        out.push(ChatMessage::system(world.instructions.trim_end()));
    }
    let last_user = messages.iter().rposition(Message::is_user);
    let last_segment = messages.iter().rposition(|m| !m.is_tool()).unwrap_or(0);
    if let Some(u) = last_user
        && u < last_segment
    {
        out.push(ChatMessage::user(messages[u].content()));
    }
    for message in &messages[last_segment..] {
        out.push(match message {
            Message::User { content, .. } => ChatMessage::user(content.clone()),
            Message::Assistant {
                content,
                tool_calls,
                ..
            } => ChatMessage::assistant(content.clone(), tool_calls.clone()),
            Message::Tool(tool) => ChatMessage::tool(
                &tool.tool_call_id,
                &tool.tool_name,
                cap(&tool.content, 2_000).into_owned(),
            ),
        });
    }
    out
}

fn assert_well_formed(messages: &[ChatMessage]) {
    let history: Vec<&ChatMessage> = messages.iter().filter(|m| m.role != Role::System).collect();
    assert!(messages.iter().skip(1).all(|m| m.role != Role::System));
    assert!(
        history.first().is_none_or(|m| m.role != Role::Tool),
        "history starts with a tool result"
    );
    for (i, m) in history.iter().enumerate() {
        if m.role == Role::Tool {
            let caller = history[..i]
                .iter()
                .rposition(|m| m.role != Role::Tool)
                .unwrap();
            let id = m.tool_call_id.as_deref().unwrap();
            assert!(
                history[caller].tool_calls.iter().any(|c| c.id == id),
                "orphan result {id}"
            );
        }
        for call in &m.tool_calls {
            let answered = history[i + 1..]
                .iter()
                .take_while(|m| m.role == Role::Tool)
                .any(|m| m.tool_call_id.as_deref() == Some(call.id.as_str()));
            assert!(answered, "call {} unanswered", call.id);
        }
    }
}

fn check(world: &World, builder: &PromptBuilder, built: &keel_context::BuiltPrompt) {
    let counter = builder.counter();
    let exact = counter.count_messages(&built.messages);
    assert_eq!(built.tokens, exact);
    assert_eq!(built.fits, exact <= built.limit);
    assert_eq!(built.window.tokens_used, exact as u64);
    assert_eq!(built.window.limit, builder.budget().window);
    assert!(built.limit as u64 <= builder.budget().window * 4 / 5);
    assert_well_formed(&built.messages);
    let minimal = counter.count_messages(&minimal_prompt(world));
    if minimal + 16 <= built.limit {
        assert!(
            built.fits,
            "possible ({minimal} <= {}) but built {exact}; steps {:?}",
            built.limit, built.steps
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn built_prompts_fit_whenever_possible(case in case()) {
        let world = play(&case);
        let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(case.window));
        let built = builder.build_without_summary(sources(&world), &world.conversation);
        check(&world, &builder, &built);
    }

    #[test]
    fn summarising_keeps_prompts_within_budget(case in case()) {
        let mut world = play(&case);
        let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(case.window));
        let before = world.conversation.len();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut conversation = world.conversation.clone();
        let built = runtime.block_on(builder.build(sources(&world), &mut conversation, &ExtractiveSummarizer));
        if let Some(compression) = &built.compression {
            let summarized_first = matches!(built.steps.first(), Some(FitStep::Summarized { .. }));
            prop_assert!(summarized_first);
            prop_assert!(conversation.len() < before);
            prop_assert_eq!(conversation.summary(), Some(compression.summary.as_str()));
        } else {
            prop_assert_eq!(conversation.len(), before);
        }
        world.conversation = conversation;
        check(&world, &builder, &built);
    }
}
