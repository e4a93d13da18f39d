//! The command safety check and approval-rule evaluation per command, over the safety
//! tables (keel-safety's `tests/safety_cases.rs`): dangerous lines, ordinary development lines, and the
//! rules' verdict on the ordinary lines with a 12-rule file.
#![allow(missing_docs, clippy::unwrap_used, dead_code)]

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use keel_safety::{Category, Category::*, classify};
use keel_tools::approval_rules::{RuleScope, RuleSet};

include!("../../safety/tests/safety_cases.rs");

const RULES: &str = r#"
[[rule]]
match = ["git", "push"]
decision = "ask"
[[rule]]
match = ["rm"]
decision = "deny"
[[rule]]
match = ["cargo"]
decision = "allow"
[[rule]]
match = ["cargo", "publish"]
decision = "deny"
[[rule]]
match = ["npm"]
decision = "allow"
[[rule]]
match = ["git", "status"]
decision = "allow"
[[rule]]
match = ["git", "diff"]
decision = "allow"
[[rule]]
match = ["make"]
decision = "allow"
[[rule]]
match = ["docker", "push"]
decision = "ask"
[[rule]]
match = ["curl"]
decision = "ask"
[[rule]]
tool = "write_file"
paths = ["migrations/**"]
decision = "deny"
[[rule]]
match = ["git", "reset", "--hard"]
decision = "allow"
override_safety = true
"#;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("safety");
    group.throughput(Throughput::Elements(DANGEROUS.len() as u64));
    group.bench_function("classify_dangerous_table", |b| {
        b.iter(|| {
            for (command, _) in DANGEROUS {
                black_box(classify(black_box(command)));
            }
        });
    });
    group.throughput(Throughput::Elements(BENIGN.len() as u64));
    group.bench_function("classify_benign_table", |b| {
        b.iter(|| {
            for command in BENIGN {
                black_box(classify(black_box(command)));
            }
        });
    });
    let rules = RuleSet::parse(RULES, Path::new("rules.toml"), RuleScope::Project).unwrap();
    group.bench_function("rules_benign_table", |b| {
        b.iter(|| {
            for command in BENIGN {
                black_box(rules.check_command(black_box(command)));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
