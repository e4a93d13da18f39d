//! A real terminal for tests: `keel` in a tmux pane of a server of its own, typed into with
//! `send-keys` and read with `capture-pane`.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Pane size: wide enough for every line, so nothing wraps.
pub const WIDTH: u32 = 110;
/// Pane height.
pub const HEIGHT: u32 = 40;
/// How long a screen may take to show what a test waits for (debug builds on a busy machine).
pub const WAIT: Duration = Duration::from_secs(60);

/// True when tmux can be used; without it the tests are skipped with a notice, except in CI,
/// where a missing tmux fails them.
pub fn tmux_available() -> bool {
    keel_test_support::peers::program_available("tmux", "-V", "apt-get install tmux")
}

/// A tmux server of its own (`-L`) running one pane.
pub struct Pane {
    socket: String,
}

impl Pane {
    /// Starts `argv` in a fresh pane of a server of its own.
    pub fn start(argv: &[String]) -> Self {
        let socket = format!(
            "keel-test-{}-{}",
            std::process::id(),
            uuid::Uuid::now_v7().simple()
        );
        let pane = Self { socket };
        let mut args: Vec<String> = [
            "new-session",
            "-d",
            "-x",
            &WIDTH.to_string(),
            "-y",
            &HEIGHT.to_string(),
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        args.extend(argv.iter().cloned());
        pane.tmux(&args);
        pane.tmux(&["set-option".into(), "remain-on-exit".into(), "on".into()]);
        pane
    }

    pub fn tmux(&self, args: &[String]) -> String {
        let output = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Types `text` and presses Enter.
    pub fn type_line(&self, text: &str) {
        self.tmux(&["send-keys".into(), "-l".into(), text.into()]);
        self.tmux(&["send-keys".into(), "Enter".into()]);
    }

    /// The screen as text, lines the terminal wrapped joined again (where a long line wraps
    /// depends on timings in it), trailing blank lines dropped.
    pub fn screen(&self) -> String {
        let text = self.tmux(&["capture-pane".into(), "-p".into(), "-J".into()]);
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let end = lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |i| i + 1);
        lines[..end].join("\n")
    }

    /// The cursor's column and the text of its line.
    pub fn cursor(&self) -> (usize, String) {
        let at = self.tmux(&[
            "display-message".into(),
            "-p".into(),
            "#{cursor_x} #{cursor_y}".into(),
        ]);
        let mut parts = at.split_whitespace().map(|n| n.parse::<usize>().unwrap());
        let (x, y) = (parts.next().unwrap(), parts.next().unwrap());
        let text = self.tmux(&["capture-pane".into(), "-p".into()]);
        let line = text.lines().nth(y).unwrap_or("").to_owned();
        (x, line)
    }

    /// Waits until the screen contains `needle` and stays the same for a moment (a spinner
    /// would change it); returns it.
    pub fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                std::thread::sleep(Duration::from_millis(700));
                let again = self.screen();
                if again == screen {
                    return screen;
                }
            }
            assert!(
                Instant::now() < deadline,
                "`{needle}` never appeared:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

/// `keel chat` on `script` in `root`, in a pane, with a clean environment and `lang`.
pub fn chat(config_dir: &Path, root: &Path, script: &Path, lang: &str, extra: &[&str]) -> Pane {
    let provider = format!("scripted:{}", script.display());
    let mut args = vec!["--provider", provider.as_str()];
    args.extend_from_slice(extra);
    chat_with(config_dir, root, lang, &[], &args)
}

/// `keel chat ARGS… --root ROOT` in a pane, with a clean environment plus `env`, and `lang`.
pub fn chat_with(
    config_dir: &Path,
    root: &Path,
    lang: &str,
    env: &[(&str, &str)],
    args: &[&str],
) -> Pane {
    let mut argv: Vec<String> = [
        "env",
        "-u",
        "KEEL_MODEL",
        "-u",
        "KEEL_BASE_URL",
        "-u",
        "OPENAI_API_KEY",
        "-u",
        "LC_ALL",
        "-u",
        "LC_MESSAGES",
        "-u",
        "NO_COLOR",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    argv.push(format!("KEEL_CONFIG_DIR={}", config_dir.display()));
    argv.push(format!("LANG={lang}"));
    argv.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
    argv.push(env!("CARGO_BIN_EXE_keel").to_owned());
    argv.extend([
        "chat".to_owned(),
        "--root".to_owned(),
        root.display().to_string(),
    ]);
    argv.extend(args.iter().map(|s| (*s).to_owned()));
    Pane::start(&argv)
}
