//! Tidy rule: the front ends (the CLI, the server, ACP, `keel mcp serve`) do not call the
//! store's turn, lease, writer-claim, session-row or session-status functions; the session
//! lifecycle is the host's (issue 25). Files that still do are listed in [`ALLOWED`] until the
//! host work moves their calls into keel-host; a file not on that list fails, and so does a
//! listed file that no longer calls any or is gone (the list only shrinks).

/// The front ends' source folders.
pub const FRONT_ENDS: &[&str] = &[
    "crates/cli/src",
    "crates/server/src",
    "crates/acp/src",
    "crates/mcp-serve/src",
];

/// The `Store` methods that start, end, lease, hand over or fence turns, or write a session's
/// row or status. Matched as method calls (`.begin_turn(`), so keel-host's free function
/// `finish_turn(…)` is not mistaken for the store's method.
pub const LIFECYCLE_CALLS: &[&str] = &[
    "begin_turn",
    "finish_turn",
    "fail_running_turns",
    "renew_turn_leases",
    "fail_expired_turns",
    "take_over_turns",
    "release_turn_lease",
    "claim_writer",
    "renew_writers",
    "release_writer",
    "end_turn_fenced",
    "append_fenced",
    "create_session",
    "update_session",
    "delete_session",
    "set_session_status",
];

/// Front-end files allowed to call them: none — keel-host owns the session lifecycle
/// (issue 25); do not add to it.
pub const ALLOWED: &[&str] = &[];

/// The lifecycle calls in `source` (a file's text, comments aside), as `line N: .name(`.
pub fn lifecycle_calls(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let code = match line.find("//") {
            Some(comment) => &line[..comment],
            None => line,
        };
        for name in LIFECYCLE_CALLS {
            let call = format!(".{name}(");
            let on_store = code
                .match_indices(&call)
                .any(|(at, _)| !receiver(&code[..at]).eq("host"));
            if on_store {
                found.push(format!("line {}: .{name}(", i + 1));
            }
        }
    }
    found
}

/// The identifier a call is made on (`state.host.begin_turn(` → `host`): keel-host's own
/// `InstanceHost` and `HostedSession` name their methods after the store's, and calling
/// them is the point.
fn receiver(before_dot: &str) -> &str {
    let start = before_dot
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    &before_dot[start..]
}

/// The problems of one front-end file `path` (relative to the repository) with `source`.
pub fn check_file(path: &str, source: &str, allowed: &[&str]) -> Vec<String> {
    let calls = lifecycle_calls(source);
    let listed = allowed.contains(&path);
    match (calls.is_empty(), listed) {
        (false, false) => calls
            .into_iter()
            .map(|call| {
                format!(
                    "{path} {call} calls the store's session lifecycle; front ends go \
                     through keel-host"
                )
            })
            .collect(),
        (true, true) => vec![format!(
            "{path} no longer calls the store's session lifecycle: take it off \
             tidy_frontends::ALLOWED"
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFENDING: &str = "async fn start(store: &dyn Store) {\n\
                             \x20   let turn = store\n\
                             \x20       .begin_turn(new)\n\
                             \x20       .await?;\n\
                             \x20   store.set_session_status(&id, SessionStatus::Running).await?;\n\
                             }\n";

    #[test]
    fn a_front_end_calling_the_store_lifecycle_fails() {
        assert_eq!(
            check_file("crates/server/src/routes/turns.rs", OFFENDING, &[]),
            [
                "crates/server/src/routes/turns.rs line 3: .begin_turn( calls the store's \
                 session lifecycle; front ends go through keel-host",
                "crates/server/src/routes/turns.rs line 5: .set_session_status( calls the \
                 store's session lifecycle; front ends go through keel-host",
            ]
        );
    }

    #[test]
    fn the_hosts_functions_and_comments_pass() {
        let source = "keel_host::finish_turn(&store, end).await?;\n\
                      finish_turn(&store, end).await?;\n\
                      // store.begin_turn(new) is the host's now\n\
                      let start = state.host.begin_turn(&id, request, input).await?;\n\
                      self.host.create_session(new).await?;\n";
        assert_eq!(
            check_file("crates/cli/src/commands/run.rs", source, &[]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn the_allow_list_only_shrinks() {
        let allowed = ["crates/cli/src/host/mod.rs"];
        assert!(check_file("crates/cli/src/host/mod.rs", OFFENDING, &allowed).is_empty());
        assert_eq!(
            check_file("crates/cli/src/host/mod.rs", "fn quiet() {}\n", &allowed),
            [
                "crates/cli/src/host/mod.rs no longer calls the store's session lifecycle: take \
              it off tidy_frontends::ALLOWED"
            ]
        );
    }
}
