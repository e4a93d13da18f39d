//! Text ids as the UUIDs the `agent_events` table needs.
//!
//! `agent_events.project_id` and `task_id` are UUIDs (`uuid` columns on PostgreSQL, their text
//! on SQLite), while Keel's project and turn ids
//! are free text. An id that already is a UUID (any form [`Uuid::try_parse`] accepts) is used as
//! is; any other id maps to the UUID v5 of its UTF-8 bytes in a fixed namespace, so the same id
//! always maps to the same UUID, on every machine:
//!
//! - projects: [`PROJECT_ID_NAMESPACE`] = `37f97788-da5a-4b85-b982-7d928e3c847c`
//! - turns (tasks): [`TASK_ID_NAMESPACE`] = `bc3453b6-fa87-441d-8c96-6f6616eec0bc`

use uuid::Uuid;

/// The UUID v5 namespace of project ids that are not UUIDs.
pub const PROJECT_ID_NAMESPACE: Uuid = Uuid::from_u128(0x37f97788_da5a_4b85_b982_7d928e3c847c);

/// The UUID v5 namespace of turn (task) ids that are not UUIDs.
pub const TASK_ID_NAMESPACE: Uuid = Uuid::from_u128(0xbc3453b6_fa87_441d_8c96_6f6616eec0bc);

/// `agent_events.project_id` for a project id: the id itself when it is a UUID, else
/// `uuid_v5(PROJECT_ID_NAMESPACE, project_id)`.
pub fn project_uuid(project_id: &str) -> Uuid {
    id_uuid(PROJECT_ID_NAMESPACE, project_id)
}

/// `agent_events.task_id` for a turn id: the id itself when it is a UUID, else
/// `uuid_v5(TASK_ID_NAMESPACE, turn_id)`.
pub fn task_uuid(turn_id: &str) -> Uuid {
    id_uuid(TASK_ID_NAMESPACE, turn_id)
}

fn id_uuid(namespace: Uuid, id: &str) -> Uuid {
    Uuid::try_parse(id).unwrap_or_else(|_| Uuid::new_v5(&namespace, id.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_pass_through_and_other_ids_map_to_stable_v5() {
        let id = "789e0123-e45b-67d8-a901-234567890abc";
        assert_eq!(project_uuid(id).to_string(), id);
        assert_eq!(task_uuid(id).to_string(), id);
        let mapped = project_uuid("my-project");
        assert_eq!(mapped.get_version_num(), 5);
        assert_eq!(mapped, project_uuid("my-project"));
        assert_eq!(
            mapped,
            Uuid::new_v5(&PROJECT_ID_NAMESPACE, "my-project".as_bytes())
        );
        // The namespaces differ, so a project and a turn of the same name do not collide.
        assert_ne!(mapped, task_uuid("my-project"));
        assert_ne!(project_uuid(""), project_uuid(" "));
    }
}
