//! Importing a legacy log: good lines become a completed session's events, bad ones are
//! reported by number and nothing else is lost.

use crate::common;

use common::store_tests;
use keel_events::projection::to_timeline;
use keel_store::{EventRange, LogImportRequest, SessionFilter, SessionStatus, import_log};

fn request(project: &str) -> LogImportRequest {
    LogImportRequest {
        project_id: project.into(),
        root: "/work/p".into(),
        source: "agent.log".into(),
    }
}

store_tests! {
    #[tokio::test]
    async fn good_lines_are_stored_as_a_completed_session(db, store) {
        let log = b"[SelfRepairLoop] Attempt 1/3: Build failed: x\n\nbad \xfe\n[move] a.ts -> b.ts\nplain\n";
        let report = import_log(&*store, &request("imp"), log).await.unwrap();
        assert_eq!(report.imported, 3);
        assert_eq!(report.blank_lines, 1);
        assert_eq!(report.bad_lines.len(), 1);
        assert_eq!(report.bad_lines[0].line, 3);
        let id = report.session_id.unwrap();
        let session = store.get_session(&id).await.unwrap();
        assert_eq!(session.status, SessionStatus::Completed);
        assert_eq!(session.title, "Imported log: agent.log");
        assert_eq!(session.metadata["imported_from"], "agent.log");
        let events = store.read_events(&id, EventRange::all()).await.unwrap();
        let types: Vec<_> = events
            .iter()
            .map(|e| to_timeline(e).unwrap().payload.type_name())
            .collect();
        assert_eq!(types, ["self_repair", "file_update", "log"]);
        assert!(events.iter().all(|e| e.project_id == "imp"));
    }

    #[tokio::test]
    async fn a_log_without_good_lines_creates_no_session(db, store) {
        let report = import_log(&*store, &request("empty"), b"\n\xff\n").await.unwrap();
        assert_eq!(report.session_id, None);
        assert_eq!(report.imported, 0);
        assert_eq!(report.bad_lines.len(), 1);
        let sessions = store
            .list_sessions(&SessionFilter::project("empty"))
            .await
            .unwrap();
        assert!(sessions.is_empty());
    }
}
