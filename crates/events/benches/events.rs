//! Event throughput: building + stamping + JSONL serialisation, bus dispatch to 1 and 100
//! subscribers (drained), parsing JSONL lines, and the wire formats (`v1`, `paths`, legacy logs). Events are the scripted session's realistic
//! mix (`tests/common/script.rs`), repeated to 1 000 per iteration.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keel_events::projection::{WireFormat, read_log};
use keel_events::{Bus, Delivery, Emitter, EventKind, JsonlHandler, Sequencer, parse_line};

#[allow(dead_code)]
#[path = "../tests/common/script.rs"]
mod script;

const BATCH: usize = 1_000;

fn kinds() -> Vec<EventKind> {
    script::scripted_run()
        .into_iter()
        .map(|e| e.kind)
        .cycle()
        .take(BATCH)
        .collect()
}

fn serialise(c: &mut Criterion) {
    let kinds = kinds();
    let mut group = c.benchmark_group("serialise");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function("build_stamp_jsonl_sink", |b| {
        let sequencer = Sequencer::new("bench-session", "bench-project");
        let mut out = JsonlHandler::new(std::io::sink());
        b.iter(|| {
            for kind in &kinds {
                let event = sequencer.stamp(Some("turn"), kind.clone());
                // Writing to io::sink cannot fail.
                let _ = out.write_event(black_box(&event));
            }
        });
    });
    group.finish();
}

fn dispatch(c: &mut Criterion) {
    let kinds = kinds();
    let mut group = c.benchmark_group("dispatch");
    group.throughput(Throughput::Elements(BATCH as u64));
    for subscribers in [1usize, 100] {
        group.bench_function(format!("{subscribers}_subscribers"), |b| {
            let emitter = Emitter::new(Sequencer::new("s", "p"), Bus::new(BATCH));
            let mut subs: Vec<_> = (0..subscribers)
                .map(|_| emitter.bus().subscribe())
                .collect();
            b.iter(|| {
                for kind in &kinds {
                    emitter.emit(kind.clone());
                }
                let mut received = 0usize;
                for sub in &mut subs {
                    while let Some(delivery) = sub.try_recv() {
                        if let Delivery::Event(event) = delivery {
                            received += black_box(event.seq) as usize & 1;
                        }
                    }
                }
                black_box(received)
            });
        });
    }
    group.finish();
}

fn deserialise(c: &mut Criterion) {
    let sequencer = Sequencer::new("bench-session", "bench-project");
    let lines: Vec<String> = kinds()
        .into_iter()
        .map(|kind| sequencer.stamp(Some("turn"), kind).to_json())
        .collect();
    let bytes: usize = lines.iter().map(String::len).sum();
    let mut group = c.benchmark_group("deserialise");
    group.throughput(Throughput::Elements(BATCH as u64));
    group.bench_function(format!("parse_line_{}B_avg", bytes / BATCH), |b| {
        b.iter(|| {
            for (i, line) in lines.iter().enumerate() {
                let _ = black_box(parse_line(i + 1, line));
            }
        });
    });
    group.finish();
}

/// The wire formats: encoding a stamped event in each, what a `?format=` stream client costs
/// the server (its shared frame's JSON read back, then encoded), and reading a legacy log.
fn wire_formats(c: &mut Criterion) {
    let sequencer = Sequencer::new("bench-session", "bench-project");
    let events: Vec<_> = kinds()
        .into_iter()
        .map(|kind| sequencer.stamp(Some("turn"), kind))
        .collect();
    let lines: Vec<String> = events.iter().map(|e| e.to_json()).collect();
    let mut group = c.benchmark_group("wire_formats");
    group.throughput(Throughput::Elements(BATCH as u64));
    for format in WireFormat::ALL {
        group.bench_function(format!("encode_{format}"), |b| {
            b.iter(|| {
                for event in &events {
                    black_box(format.encode(black_box(event)));
                }
            });
        });
    }
    for format in [WireFormat::V1, WireFormat::Paths] {
        group.bench_function(format!("reencode_frame_{format}"), |b| {
            b.iter(|| {
                for line in &lines {
                    if let Ok(event) = parse_line(0, black_box(line)) {
                        black_box(format.encode(&event));
                    }
                }
            });
        });
    }
    let log: String = (0..BATCH)
        .map(|i| match i % 3 {
            0 => format!(
                "[SelfRepairLoop] Attempt {}/3: Build failed: error {i}\n",
                i % 3 + 1
            ),
            1 => format!("[move] src/a{i}.ts → src/b{i}.ts\n"),
            _ => format!("npm run build: compiled {i} modules\n"),
        })
        .collect();
    group.bench_function("read_legacy_log_lines", |b| {
        b.iter(|| black_box(read_log(black_box(log.as_bytes()))));
    });
    group.finish();
}

criterion_group!(benches, serialise, dispatch, deserialise, wire_formats);
criterion_main!(benches);
