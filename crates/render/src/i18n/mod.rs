//! The terminal's words in the person's language: English and Simplified Chinese message
//! catalogues (Fluent, `i18n/{en,zh-CN}/cli.ftl` and `tools.ftl`, embedded at compile time),
//! the language chosen by `--lang`, then `LC_ALL`, `LC_MESSAGES` and `LANG`.

mod messages;

pub use messages::{Arg, Messages};
