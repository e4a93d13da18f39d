//! `keel replay`: render a recorded JSONL event log the way the terminal shows a live run.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, IsTerminal as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use keel_events::{EventHandler as _, ParseError, read_jsonl};

use super::EXIT_USAGE;
use keel_render::{ColorWhen, ConsoleRenderer, NoSpinner, RenderOptions, Spinner, TerminalSpinner};

/// Longest pause between two replayed events, after scaling: idle waits (an approval left
/// open for minutes) do not stall a replay.
const MAX_GAP: Duration = Duration::from_secs(5);

/// Arguments of `keel replay`.
///
/// Exit status: 0 when every line was an event, 1 when some line was not (each is reported on
/// standard error with its line number, and the replay goes on), 2 for usage errors.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The JSONL event log, or `-` to read standard input.
    pub file: PathBuf,
    /// Replay with the recorded timing, sped up by this factor (2 = twice as fast); pauses are
    /// capped at 5 s.
    #[arg(long, value_parser = parse_speed, conflicts_with = "no_delay")]
    pub speed: Option<f64>,
    /// Render everything at once, without the recorded pauses (the default).
    #[arg(long)]
    pub no_delay: bool,
    /// Show detail: thinking, tool output, model calls, debug logs, whole diffs, error stacks.
    #[arg(long, short)]
    pub verbose: bool,
    /// When to colour the output.
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
    /// Language of the terminal's words: en or zh-CN [default: from LC_ALL, LC_MESSAGES or
    /// LANG, else en].
    #[arg(long, value_name = "en|zh-CN")]
    pub lang: Option<keel_events::Lang>,
}

fn parse_speed(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(speed) if speed.is_finite() && speed > 0.0 => Ok(speed),
        Ok(_) => Err("the speed must be a number above 0".to_owned()),
        Err(e) => Err(format!("not a number: {e}")),
    }
}

/// Runs `keel replay`.
pub fn run(args: ReplayArgs) -> ExitCode {
    let (name, input): (String, Box<dyn BufRead>) = if args.file.as_os_str() == "-" {
        ("<stdin>".to_owned(), Box::new(std::io::stdin().lock()))
    } else {
        match File::open(&args.file) {
            Ok(file) => (
                args.file.display().to_string(),
                Box::new(BufReader::new(file)),
            ),
            Err(e) => {
                eprintln!("keel replay: cannot open {}: {e}", args.file.display());
                return ExitCode::from(EXIT_USAGE);
            }
        }
    };

    let stdout = std::io::stdout();
    let options = RenderOptions {
        color: args.color.for_stdout(),
        verbose: args.verbose,
        lang: keel_events::Lang::from_env(args.lang),
    };
    let speed = if args.no_delay { None } else { args.speed };
    // A spinner only makes sense when there is something to wait for.
    let spinner: Box<dyn Spinner> = if speed.is_some() && stdout.is_terminal() {
        Box::new(TerminalSpinner::stdout())
    } else {
        Box::new(NoSpinner)
    };
    let rewrite = stdout.is_terminal() && options.color;
    let mut renderer = ConsoleRenderer::new(stdout, options).with_spinner(spinner);
    if rewrite {
        renderer = renderer.with_rewrite(keel_render::stdout_width());
    }

    let mut bad_lines = 0usize;
    let mut previous_ts: Option<i64> = None;
    for item in read_jsonl(input) {
        match item {
            Ok(event) => {
                if let Some(speed) = speed {
                    if let Some(previous) = previous_ts {
                        let gap_ms = event.ts.timestamp_millis() - previous;
                        std::thread::sleep(scaled_gap(gap_ms, speed));
                    }
                    previous_ts = Some(event.ts.timestamp_millis());
                }
                renderer.handle(&event);
                if renderer.error().is_some() {
                    break;
                }
            }
            Err(e) => {
                bad_lines += 1;
                eprintln!("keel replay: {name}: {e}");
                if let ParseError::Io { source, .. } = &e
                    && source.kind() != ErrorKind::InvalidData
                {
                    break;
                }
            }
        }
    }

    match renderer.finish() {
        Ok(()) => {}
        // The reader went away (`keel replay log.jsonl | head`): nothing more to show.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("keel replay: cannot write the output: {e}");
            return ExitCode::FAILURE;
        }
    }
    if bad_lines > 0 {
        eprintln!(
            "keel replay: {name}: {bad_lines} malformed line{} skipped",
            if bad_lines == 1 { "" } else { "s" }
        );
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// A recorded pause of `gap_ms` divided by `speed`, capped at [`MAX_GAP`].
fn scaled_gap(gap_ms: i64, speed: f64) -> Duration {
    let secs = gap_ms.max(0) as f64 / 1_000.0 / speed;
    Duration::from_secs_f64(secs).min(MAX_GAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_scaled_and_capped() {
        assert_eq!(scaled_gap(1_000, 2.0), Duration::from_millis(500));
        assert_eq!(scaled_gap(-40, 1.0), Duration::ZERO);
        assert_eq!(scaled_gap(600_000, 1.0), MAX_GAP);
    }

    #[test]
    fn speed_must_be_a_positive_number() {
        assert_eq!(parse_speed("2.5"), Ok(2.5));
        assert!(parse_speed("0").is_err());
        assert!(parse_speed("-1").is_err());
        assert!(parse_speed("NaN").is_err());
        assert!(parse_speed("fast").is_err());
    }
}
