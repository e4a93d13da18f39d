//! The names MCP tools are offered under: `mcp__SERVER__TOOL`, sanitised to `[A-Za-z0-9_-]`,
//! at most 64 characters, unique.

/// Longest tool name the model is offered (the OpenAI API's limit).
pub const MAX_NAME_LEN: usize = 64;

/// The prefix of every MCP tool's offered name.
pub const PREFIX: &str = keel_protocol::MCP_TOOL_PREFIX;

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
pub fn sanitise(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The name tool `tool` of server `server` is offered under: `mcp__SERVER__TOOL` sanitised; a
/// longer one is cut to 64 characters ending in a hash of the whole, so that cut names stay
/// apart.
pub fn offered_name(server: &str, tool: &str) -> String {
    let full = format!("{PREFIX}{}__{}", sanitise(server), sanitise(tool));
    if full.len() <= MAX_NAME_LEN {
        return full;
    }
    let hash = format!(
        "_{:08x}",
        fnv1a(format!("{server}\u{0}{tool}").as_bytes()) as u32
    );
    let keep = MAX_NAME_LEN - hash.len();
    format!("{}{hash}", &full[..keep])
}

/// The 64-bit FNV-1a hash.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn plain_names_pass_through() {
        assert_eq!(offered_name("everything", "echo"), "mcp__everything__echo");
        assert_eq!(offered_name("my server", "a.b/c"), "mcp__my_server__a_b_c");
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let a = offered_name("s", &"x".repeat(100));
        let b = offered_name("s", &format!("{}y", "x".repeat(99)));
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert_ne!(a, b);
    }

    proptest! {
        #[test]
        fn offered_names_are_valid(server in "\\PC{0,40}", tool in "\\PC{0,80}") {
            let name = offered_name(&server, &tool);
            prop_assert!(name.len() <= MAX_NAME_LEN);
            prop_assert!(name.starts_with(PREFIX));
            prop_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        }
    }
}
