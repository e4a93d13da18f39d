//! Whether a turn may, must or must not plan.

use std::str::FromStr;

use keel_events::ModeHint;

/// Whether a turn may, must or must not plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The model decides: `create_plan` is offered alongside the other tools.
    #[default]
    Auto,
    /// Never plan: `create_plan` is not offered.
    Direct,
    /// Plan first: the model is told to call `create_plan` before anything else.
    Plan,
}

impl Mode {
    /// The mode's name (`auto`, `direct`, `plan`).
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Direct => "direct",
            Mode::Plan => "plan",
        }
    }

    /// The `agent.start` mode hint.
    pub fn hint(self) -> ModeHint {
        match self {
            Mode::Auto => ModeHint::Auto,
            Mode::Direct => ModeHint::Direct,
            Mode::Plan => ModeHint::Plan,
        }
    }
}

/// A mode name that is not `auto`, `direct` or `plan`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{0}` (expected auto, direct or plan)")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Mode::Auto),
            "direct" => Ok(Mode::Direct),
            "plan" => Ok(Mode::Plan),
            _ => Err(UnknownMode(s.to_owned())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for mode in [Mode::Auto, Mode::Direct, Mode::Plan] {
            assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
        }
        assert_eq!(" PLAN ".parse::<Mode>(), Ok(Mode::Plan));
        assert_eq!(
            "later".parse::<Mode>(),
            Err(UnknownMode("later".to_owned()))
        );
    }
}
