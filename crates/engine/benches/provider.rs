//! Provider overhead: assembling a 10,000-delta response from the scripted provider (in
//! memory) and from the OpenAI provider reading the mock server over loopback (real HTTP, SSE
//! framing, chunk decoding). Throughput is reported in deltas per second.

// criterion_group! generates an undocumented public function; the mock server unwraps.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keel_engine::{
    ChatMessage, ChatRequest, OpenAiConfig, OpenAiProvider, Provider, Script, ScriptedProvider,
    assemble,
};
use keel_test_support::ScriptBuilder;

use keel_test_support::mock_openai as support;

const DELTAS: usize = 10_000;

fn scripted(c: &mut Criterion, rt: &tokio::runtime::Runtime) {
    // One character per delta: 10,000 text deltas (plus usage and finish).
    let text: String = (0..DELTAS)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let script = ScriptBuilder::new().chunk_chars(1).text(text).to_string();
    let script = Script::from_json(&script).unwrap();
    let request = ChatRequest::new("m", vec![ChatMessage::user("go")]);
    let mut group = c.benchmark_group("provider");
    group.throughput(Throughput::Elements(DELTAS as u64));
    group.bench_function("scripted_10k_deltas", |b| {
        b.iter(|| {
            rt.block_on(async {
                let p = ScriptedProvider::new(script.clone());
                let stream = p.stream(&request).await.unwrap();
                let r = assemble(stream, |_| {}).await.unwrap();
                assert_eq!(r.text.len(), DELTAS);
                black_box(r)
            })
        })
    });
    group.finish();
}

fn loopback(c: &mut Criterion, rt: &tokio::runtime::Runtime) {
    let mut frames = vec![support::role()];
    frames.extend((0..DELTAS).map(|i| support::content(if i % 2 == 0 { "ab" } else { "c" })));
    frames.extend([
        support::finish("stop"),
        support::usage(10, DELTAS as u64),
        support::done(),
    ]);
    let server = rt.block_on(support::MockServer::start(move |_, _| {
        support::Reply::Sse(frames.clone())
    }));
    let provider = rt.block_on(async {
        OpenAiProvider::new(OpenAiConfig::new(&server.base_url, "k", "m")).unwrap()
    });
    let request = ChatRequest::new("m", vec![ChatMessage::user("go")]);
    let mut group = c.benchmark_group("provider");
    group.throughput(Throughput::Elements(DELTAS as u64));
    group.measurement_time(Duration::from_secs(10));
    group.sample_size(20);
    group.bench_function("openai_mock_loopback_10k_deltas", |b| {
        b.iter(|| {
            rt.block_on(async {
                let stream = provider.stream(&request).await.unwrap();
                let r = assemble(stream, |_| {}).await.unwrap();
                assert_eq!(r.text.len(), DELTAS / 2 * 3);
                black_box(r)
            })
        })
    });
    group.finish();
    drop(server);
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    scripted(c, &rt);
    loopback(c, &rt);
}

criterion_group!(provider, benches);
criterion_main!(provider);
