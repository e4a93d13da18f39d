//! The style table: every colour the renderer uses, and when colour is on at all.

use std::borrow::Cow;
use std::io::IsTerminal as _;

use anstyle::{AnsiColor, Style};

/// The role a piece of text plays; the style table maps each to an ANSI style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    /// Unstyled.
    Plain,
    /// Secondary information: prepare lines, usage, thinking.
    Dim,
    /// Headings: the task, plan goal, step titles.
    Bold,
    /// Success marks, added lines.
    Success,
    /// Failures, removed lines, stderr.
    Error,
    /// Failures that stop the run.
    ErrorBold,
    /// Warnings: anomalies, replans, denied tools, repairs.
    Warning,
    /// Approvals and questions that wait for the user.
    Attention,
    /// Hunk headers, moves.
    Accent,
}

impl Tone {
    fn style(self) -> Style {
        let fg = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
        match self {
            Tone::Plain => Style::new(),
            Tone::Dim => Style::new().dimmed(),
            Tone::Bold => Style::new().bold(),
            Tone::Success => fg(AnsiColor::Green),
            Tone::Error => fg(AnsiColor::Red),
            Tone::ErrorBold => fg(AnsiColor::Red).bold(),
            Tone::Warning => fg(AnsiColor::Yellow),
            Tone::Attention => fg(AnsiColor::Yellow).bold(),
            Tone::Accent => fg(AnsiColor::Cyan),
        }
    }
}

/// Paints text in a [`Tone`], or leaves it bare when colour is off.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Painter {
    color: bool,
}

impl Painter {
    /// A painter that emits ANSI escapes only when `color` is true.
    pub(crate) fn new(color: bool) -> Self {
        Self { color }
    }

    /// `text` wrapped in the escapes of `tone` (or as is).
    pub(crate) fn paint<'a>(&self, tone: Tone, text: &'a str) -> Cow<'a, str> {
        let style = tone.style();
        if !self.color || style == Style::new() || text.is_empty() {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(format!("{style}{text}{style:#}"))
        }
    }
}

/// When to colour the output (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorWhen {
    /// When standard output is a terminal and `NO_COLOR` is unset (also honours
    /// `CLICOLOR`/`CLICOLOR_FORCE` and `TERM=dumb`).
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl From<keel_config::Color> for ColorWhen {
    fn from(color: keel_config::Color) -> Self {
        match color {
            keel_config::Color::Auto => ColorWhen::Auto,
            keel_config::Color::Always => ColorWhen::Always,
            keel_config::Color::Never => ColorWhen::Never,
        }
    }
}

impl From<ColorWhen> for keel_config::Color {
    fn from(color: ColorWhen) -> Self {
        match color {
            ColorWhen::Auto => keel_config::Color::Auto,
            ColorWhen::Always => keel_config::Color::Always,
            ColorWhen::Never => keel_config::Color::Never,
        }
    }
}

impl ColorWhen {
    /// Whether output written to standard output should be coloured.
    pub fn for_stdout(self) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                let stdout = std::io::stdout();
                stdout.is_terminal()
                    && !matches!(
                        anstream::AutoStream::choice(&stdout),
                        anstream::ColorChoice::Never
                    )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_is_a_no_op_without_colour() {
        let painter = Painter::new(false);
        assert_eq!(painter.paint(Tone::Error, "boom"), "boom");
    }

    #[test]
    fn painting_wraps_text_in_escapes_and_resets() {
        let painter = Painter::new(true);
        assert_eq!(
            painter.paint(Tone::Error, "boom"),
            "\u{1b}[31mboom\u{1b}[0m"
        );
        assert_eq!(painter.paint(Tone::Plain, "calm"), "calm");
        assert_eq!(painter.paint(Tone::Success, ""), "");
    }
}
