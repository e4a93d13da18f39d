//! Test output in the Test Anything Protocol (`node --test`, `tsc && node --test`) as the
//! model reads it: what failed, and the counts. TAP spends six lines on every passing test
//! (a `# Subtest:` line, `ok N - name` and a YAML block of its duration), so a suite of thirty
//! tests with one failure was 1,500 tokens a small model prefilled at 20 a second, every time
//! the tests ran. Passing tests keep their `ok` line; failing ones keep everything but the
//! stack frames inside Node itself.

/// `output` condensed when it is TAP (it has a `TAP version` line); as it is otherwise.
pub(crate) fn condensed(output: &str) -> String {
    if !output
        .lines()
        .any(|l| l.trim_start().starts_with("TAP version"))
    {
        return output.to_owned();
    }
    let mut kept: Vec<&str> = Vec::new();
    // The indentation of the passing test whose YAML block may follow.
    let mut passed_at: Option<usize> = None;
    // Inside a passing test's YAML block, at this indentation.
    let mut skipping: Option<usize> = None;
    for line in output.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(at) = skipping {
            if trimmed == "..." && indent == at {
                skipping = None;
            }
            continue;
        }
        if trimmed == "---"
            && let Some(at) = passed_at.take()
            && indent >= at
        {
            skipping = Some(indent);
            continue;
        }
        passed_at = None;
        if trimmed.starts_with("# Subtest:") || is_zero_count(trimmed) || is_node_frame(trimmed) {
            continue;
        }
        if trimmed.starts_with("ok ") {
            passed_at = Some(indent);
        }
        kept.push(line);
    }
    kept.join("\n")
}

/// A summary count that says nothing: `# skipped 0`, `# todo 0`, `# cancelled 0`, `# suites 0`.
fn is_zero_count(line: &str) -> bool {
    line.strip_prefix("# ")
        .and_then(|rest| rest.split_once(' '))
        .is_some_and(|(word, n)| {
            n == "0" && matches!(word, "skipped" | "todo" | "cancelled" | "suites")
        })
}

/// A stack frame inside Node itself (`at … (node:internal/…)`).
fn is_node_frame(line: &str) -> bool {
    line.starts_with("at ") && (line.contains("(node:") || line.starts_with("at node:"))
}

#[cfg(test)]
mod tests {
    use super::condensed;

    #[test]
    fn passing_tests_keep_one_line_and_failures_keep_their_details() {
        let tap = "TAP version 13
# Subtest: parsePort
ok 1 - parsePort
  ---
  duration_ms: 7.51
  ...
# Subtest: loadConfig
not ok 2 - loadConfig
  ---
  duration_ms: 1.18
  location: 'test/config.test.js:6:1'
  failureType: 'testCodeFailure'
  error: 'loadConfig is not a function'
  stack: |-
    TestContext.<anonymous> (test/config.test.js:7:3)
    at Test.runInAsyncScope (node:async_hooks:206:9)
    at async Test.run (node:internal/test_runner/test:797:9)
  ...
1..2
# tests 2
# suites 0
# pass 1
# fail 1
# cancelled 0
# skipped 0
# todo 0";
        insta::assert_snapshot!(condensed(tap), @r"
        TAP version 13
        ok 1 - parsePort
        not ok 2 - loadConfig
          ---
          duration_ms: 1.18
          location: 'test/config.test.js:6:1'
          failureType: 'testCodeFailure'
          error: 'loadConfig is not a function'
          stack: |-
            TestContext.<anonymous> (test/config.test.js:7:3)
          ...
        1..2
        # tests 2
        # pass 1
        # fail 1
        ");
    }

    #[test]
    fn nested_subtests_and_other_output_are_kept_as_they_are() {
        let nested = "TAP version 13
# Subtest: suite
    # Subtest: inner
    ok 1 - inner
      ---
      duration_ms: 0.2
      ...
    1..1
ok 1 - suite
  ---
  duration_ms: 1.0
  type: 'suite'
  ...
1..1";
        assert_eq!(
            condensed(nested),
            "TAP version 13\n    ok 1 - inner\n    1..1\nok 1 - suite\n1..1"
        );
        let pytest = "..F\n1 failed, 2 passed";
        assert_eq!(condensed(pytest), pytest);
    }
}
