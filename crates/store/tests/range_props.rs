//! Property: any `EventRange` over a session with gaps in its seqs returns exactly the stored
//! events with `seq > after_seq`, in order, cut at `limit`; and any JSON conversation round-trips.
//! Both on every backend.

use crate::common;

use common::{TestDb, session, status_event};
use keel_store::{EventRange, Store};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::Value;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

#[test]
fn ranges_return_exactly_the_stored_window() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    for db in rt.block_on(TestDb::all()) {
        let store = rt.block_on(db.open());
        ranges_on(&rt, store.as_ref());
        rt.block_on(store.close());
    }
}

fn ranges_on(rt: &tokio::runtime::Runtime, store: &dyn Store) {
    // Seqs 1..=90 except multiples of 7 (as if those were display-only).
    let stored: Vec<u64> = (1..=90).filter(|s| s % 7 != 0).collect();
    rt.block_on(async {
        session(store, "s").await;
        let events: Vec<_> = stored
            .iter()
            .map(|&seq| status_event("s", seq, &format!("m{seq}")))
            .collect();
        store.append_events(&events).await.unwrap();
    });

    let strategy = (
        prop_oneof![0u64..100, Just(u64::MAX), any::<u64>()],
        proptest::option::of(0u32..100),
    );
    let mut runner = TestRunner::new(Config::with_cases(128));
    runner
        .run(&strategy, |(after_seq, limit)| {
            let range = EventRange { after_seq, limit };
            let read = rt.block_on(store.read_events("s", range)).unwrap();
            let expected: Vec<u64> = stored
                .iter()
                .copied()
                .filter(|&seq| seq > after_seq)
                .take(limit.map_or(usize::MAX, |l| l as usize))
                .collect();
            prop_assert_eq!(read.iter().map(|e| e.seq).collect::<Vec<_>>(), expected);
            Ok(())
        })
        .unwrap();
}

#[test]
fn any_conversation_json_round_trips() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    for db in rt.block_on(TestDb::all()) {
        let store = rt.block_on(db.open());
        conversations_on(&rt, store.as_ref());
        rt.block_on(store.close());
    }
}

fn conversations_on(rt: &tokio::runtime::Runtime, store: &dyn Store) {
    rt.block_on(session(store, "s"));
    let mut runner = TestRunner::new(Config::with_cases(64));
    runner
        .run(&json_value(), |conversation| {
            rt.block_on(store.save_conversation("s", &conversation))
                .unwrap();
            let loaded = rt.block_on(store.load_conversation("s")).unwrap();
            prop_assert_eq!(loaded, Some(conversation));
            Ok(())
        })
        .unwrap();
}
