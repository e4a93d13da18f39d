//! `approval_edits = "ask"`: every file edit is shown with its diff and waits for a person;
//! a rejection leaves the file as it was.

use crate::common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::Harness;
use keel_protocol::{ApprovalReply, ApprovalRequest, Approver, EditApproval};
use serde_json::json;

/// Answers with `approve`, recording every request.
#[derive(Debug)]
struct Recorder {
    approve: bool,
    seen: Mutex<Vec<ApprovalRequest>>,
}

#[async_trait]
impl Approver for Recorder {
    async fn approve(&self, request: &ApprovalRequest) -> ApprovalReply {
        self.seen.lock().unwrap().push(request.clone());
        if self.approve {
            ApprovalReply::approve()
        } else {
            ApprovalReply::reject("not like this")
        }
    }
}

fn harness(approve: bool) -> (Harness, Arc<Recorder>) {
    let mut h = Harness::new();
    let recorder = Arc::new(Recorder {
        approve,
        seen: Mutex::new(Vec::new()),
    });
    h.ctx = h
        .ctx
        .clone()
        .with_approval(h.ctx.approval, recorder.clone())
        .with_edit_approval(EditApproval::Ask);
    (h, recorder)
}

#[tokio::test]
async fn rejected_edits_change_nothing_and_show_the_diff() {
    let (h, recorder) = harness(false);
    h.write("a.txt", "one\ntwo\n");
    let calls = [
        (
            "write_file",
            json!({"path": "a.txt", "content": "one\nTWO\n"}),
        ),
        (
            "replace_in_file",
            json!({"path": "a.txt", "diff": "<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n"}),
        ),
        ("delete_file", json!({"path": "a.txt"})),
        ("move_file", json!({"fromPath": "a.txt", "toPath": "b.txt"})),
        (
            "write_file",
            json!({"path": "new.txt", "content": "hello\n"}),
        ),
    ];
    for (tool, args) in calls {
        let r = h.call(tool, args).await;
        assert!(!r.success, "{tool}: {r:?}");
        assert!(r.message.contains("not like this"), "{tool}: {}", r.message);
    }
    assert_eq!(h.read("a.txt"), "one\ntwo\n");
    assert!(!h.exists("b.txt") && !h.exists("new.txt"));
    let seen = recorder.seen.lock().unwrap();
    assert_eq!(seen.len(), 5);
    assert!(
        seen[0].subject.starts_with("write_file a.txt\n"),
        "{}",
        seen[0].subject
    );
    assert!(
        seen[0].subject.contains("-two\n+TWO"),
        "{}",
        seen[0].subject
    );
    assert!(seen[1].subject.contains("+2"), "{}", seen[1].subject);
    assert!(seen[2].subject.contains("-one"), "{}", seen[2].subject);
    assert!(seen[3].subject.starts_with("move_file a.txt -> b.txt"));
    assert!(seen[4].subject.contains("+hello"), "{}", seen[4].subject);
}

#[tokio::test]
async fn approved_edits_apply() {
    let (h, recorder) = harness(true);
    let r = h
        .call("write_file", json!({"path": "a.txt", "content": "x\n"}))
        .await;
    assert!(r.success, "{r:?}");
    assert_eq!(h.read("a.txt"), "x\n");
    assert_eq!(recorder.seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn without_the_setting_nothing_is_asked() {
    let mut h = Harness::new();
    let recorder = Arc::new(Recorder {
        approve: false,
        seen: Mutex::new(Vec::new()),
    });
    h.ctx = h
        .ctx
        .clone()
        .with_approval(h.ctx.approval, recorder.clone());
    let r = h
        .call("write_file", json!({"path": "a.txt", "content": "x\n"}))
        .await;
    assert!(r.success, "{r:?}");
    assert!(recorder.seen.lock().unwrap().is_empty());
}
