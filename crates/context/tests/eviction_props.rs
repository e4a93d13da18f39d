//! Property tests for eviction: over random conversations and limits, the kept history is a
//! suffix that respects the limits, never separates a tool result from its call, never leaves
//! a call without its results, never starts with a tool message, and drops as little as it can.

use keel_context::{
    Conversation, EvictionLimits, Message, RetentionPolicy, ToolCallRequest, eviction_point,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    User(usize),
    Assistant { text: usize, calls: usize },
    Answer { which: usize, len: usize },
    Close,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0usize..40).prop_map(Op::User),
        3 => ((0usize..40), (0usize..4)).prop_map(|(text, calls)| Op::Assistant { text, calls }),
        4 => ((0usize..4), (0usize..200)).prop_map(|(which, len)| Op::Answer { which, len }),
        1 => Just(Op::Close),
    ]
}

fn build(ops: &[Op]) -> Conversation {
    let policy = RetentionPolicy::default();
    let mut c = Conversation::new();
    let mut next = 0;
    for op in ops {
        match op {
            Op::User(len) => c.push_user("u".repeat(*len)),
            Op::Assistant { text, calls } => {
                let calls = (0..*calls)
                    .map(|_| {
                        next += 1;
                        ToolCallRequest::new(format!("c{next}"), "execute_command", "{}")
                    })
                    .collect();
                c.push_assistant("a".repeat(*text), calls).unwrap();
            }
            Op::Answer { which, len } => {
                let pending: Vec<String> = c
                    .pending_calls()
                    .iter()
                    .map(|call| call.id.clone())
                    .collect();
                if !pending.is_empty() {
                    let id = &pending[which % pending.len()];
                    c.add_tool_result(id, "t".repeat(*len), true, &policy)
                        .unwrap();
                }
            }
            Op::Close => c.close_pending(),
        }
    }
    c
}

fn cost(message: &Message) -> usize {
    1 + message.content().len() / 10
}

/// Every tool message answers a call of the nearest non-tool message before it, and every
/// call of an assistant message that is not the last non-tool message has a result.
fn assert_well_formed(messages: &[Message]) {
    assert!(
        !messages.first().is_some_and(Message::is_tool),
        "starts with a tool message"
    );
    let last_non_tool = messages.iter().rposition(|m| !m.is_tool());
    for (i, message) in messages.iter().enumerate() {
        match message {
            Message::Tool(tool) => {
                let caller = messages[..i].iter().rposition(|m| !m.is_tool()).unwrap();
                assert!(
                    messages[caller]
                        .tool_calls()
                        .iter()
                        .any(|call| call.id == tool.tool_call_id),
                    "result {} without its call",
                    tool.tool_call_id
                );
            }
            Message::Assistant { tool_calls, .. } if Some(i) != last_non_tool => {
                for call in tool_calls {
                    let answered = messages[i + 1..]
                        .iter()
                        .take_while(|m| m.is_tool())
                        .any(|m| matches!(m, Message::Tool(t) if t.tool_call_id == call.id));
                    assert!(answered, "call {} without its result", call.id);
                }
            }
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn eviction_keeps_pairs_and_respects_limits(
        ops in prop::collection::vec(op(), 0..60),
        max_messages in prop::option::of(0usize..25),
        max_tokens in prop::option::of(0usize..60),
    ) {
        let original = build(&ops);
        assert_well_formed(original.messages());
        let limits = EvictionLimits { max_messages, max_tokens };
        let mut evicted = original.clone();
        let dropped = evicted.evict(&limits, cost);
        let kept = evicted.messages();

        // A suffix of the original.
        prop_assert_eq!(kept, &original.messages()[dropped..]);
        // Limits hold.
        if let Some(max) = max_messages {
            prop_assert!(kept.len() <= max);
        }
        if let Some(max) = max_tokens {
            prop_assert!(kept.iter().map(cost).sum::<usize>() <= max);
        }
        // Pairs are intact, history does not start with a tool result.
        assert_well_formed(kept);
        // Minimal: every smaller cut at a boundary breaks a limit.
        let costs: Vec<usize> = original.messages().iter().map(cost).collect();
        for cut in 0..dropped {
            if original.messages()[cut].is_tool() {
                continue;
            }
            let rest = &original.messages()[cut..];
            let fits_count = max_messages.is_none_or(|max| rest.len() <= max);
            let fits_tokens = max_tokens.is_none_or(|max| costs[cut..].iter().sum::<usize>() <= max);
            prop_assert!(!(fits_count && fits_tokens), "cut {} would have fitted", cut);
        }
        prop_assert_eq!(eviction_point(original.messages(), &costs, &limits), dropped);
    }

    #[test]
    fn stored_conversations_round_trip(ops in prop::collection::vec(op(), 0..40)) {
        let c = build(&ops);
        let json = serde_json::to_string(&c).unwrap();
        let back: Conversation = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(back, c);
    }
}
