//! Engine overhead per loop iteration: a scripted model asks for a no-op tool 1,000 times in one
//! turn, so what is measured is the engine itself (prompt building, token counting, streaming,
//! events, tool dispatch, conversation bookkeeping), not a model or a tool. Target: ≤ 1 ms per
//! iteration.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keel_engine::agent::AgentConfig;
use keel_engine::{AgentSession, ModelChain, Script, ScriptedProvider};
use keel_events::{AgentStatus, Bus, Emitter, Sequencer};
use keel_protocol::ToolResult;
use keel_test_support::ScriptBuilder;
use keel_tools::{ToolContext, ToolRegistry, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

/// Loop iterations per turn (`KEEL_BENCH_ITERATIONS` overrides, to see how cost scales).
fn iterations() -> usize {
    std::env::var("KEEL_BENCH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

/// A tool that does nothing, so the loop's own cost is what is timed.
struct NoOp;

#[derive(Deserialize, JsonSchema)]
struct NoOpArgs {
    /// Distinct per call, so the repeated-call anomaly detector stays quiet.
    #[allow(dead_code)]
    i: u64,
}

#[async_trait::async_trait]
impl TypedTool for NoOp {
    type Args = NoOpArgs;

    fn name(&self) -> &'static str {
        "noop"
    }

    fn description(&self) -> &'static str {
        "Does nothing."
    }

    async fn run(&self, _ctx: &ToolContext, _args: NoOpArgs) -> ToolResult {
        ToolResult::ok("ok")
    }
}

fn script() -> Script {
    let turns = (0..iterations()).map(|i| {
        serde_json::json!({
            "text": "next",
            "tool_calls": [{"name": "noop", "arguments": {"i": i}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
        })
    });
    let script = ScriptBuilder::new()
        .chunk_chars(64)
        .turns(turns)
        .text("done");
    Script::from_json(&script.to_string()).expect("script")
}

async fn one_turn(root: &std::path::Path) -> Duration {
    let mut config = AgentConfig::new(root, ModelChain::new(["scripted"]).expect("chain"));
    config.max_iterations = u32::try_from(iterations()).expect("fits") + 5;
    let emitter = Emitter::new(Sequencer::new("bench", "bench"), Bus::default());
    let mut registry = ToolRegistry::new();
    registry.register(NoOp);
    let provider = Arc::new(ScriptedProvider::new(script()));
    let mut session = AgentSession::new(config, provider, emitter)
        .expect("session")
        .with_tools(registry);
    let started = Instant::now();
    let outcome = session.run_turn("loop").await;
    let elapsed = started.elapsed();
    assert_eq!(outcome.status, AgentStatus::Completed, "{}", outcome.result);
    elapsed
}

fn loop_overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let mut group = c.benchmark_group("engine_loop");
    group.sample_size(10);
    group.throughput(Throughput::Elements(iterations() as u64));
    group.bench_function(format!("noop_tool_{}_iterations", iterations()), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                total += runtime.block_on(one_turn(dir.path()));
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, loop_overhead);
criterion_main!(benches);
