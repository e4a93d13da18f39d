//! The language Keel speaks to people — the terminal's words, and the texts the seeds fix in
//! Chinese (tool messages, history references, summaries) — chosen by `--lang`, then the
//! locale variables.

use std::fmt;
use std::str::FromStr;

/// A language Keel's terminal speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English (the default, and the fallback for every other locale).
    #[default]
    En,
    /// Simplified Chinese.
    ZhCn,
}

/// The locale variables, most binding first (POSIX: `LC_ALL` overrides `LC_MESSAGES`, which
/// overrides `LANG`).
const LOCALE_VARIABLES: [&str; 3] = ["LC_ALL", "LC_MESSAGES", "LANG"];

impl Lang {
    /// The BCP 47 tag, also the name of the language's folder under `i18n/`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
        }
    }

    /// The language of a locale name or language tag (`zh_CN.UTF-8`, `zh-Hans`, `en_GB`,
    /// `C`); `None` for a language Keel does not speak.
    pub fn from_locale(locale: &str) -> Option<Lang> {
        let name = locale
            .split(['.', '@'])
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
            .replace('_', "-");
        let mut parts = name.split('-');
        match parts.next().unwrap_or("") {
            "en" | "c" | "posix" => Some(Lang::En),
            // Chinese in traditional script (Taiwan, Hong Kong, Macau, `Hant`) is not spoken.
            "zh" => match parts.next() {
                None | Some("cn" | "sg" | "hans" | "my") => Some(Lang::ZhCn),
                Some(_) => None,
            },
            _ => None,
        }
    }

    /// The language to speak: `flag` (`--lang`) when given, else the first locale variable
    /// that is set and not empty (read through `var`), else English. A set variable naming a
    /// language Keel does not speak means English, like an unset one.
    pub fn choose(flag: Option<Lang>, var: impl Fn(&str) -> Option<String>) -> Lang {
        if let Some(lang) = flag {
            return lang;
        }
        LOCALE_VARIABLES
            .iter()
            .filter_map(|name| var(name).filter(|v| !v.trim().is_empty()))
            .map(|value| Lang::from_locale(&value).unwrap_or_default())
            .next()
            .unwrap_or_default()
    }

    /// Whether this is English, the default (for `skip_serializing_if`).
    pub fn is_en(&self) -> bool {
        *self == Lang::En
    }

    /// [`Lang::choose`] with this process's environment.
    pub fn from_env(flag: Option<Lang>) -> Lang {
        Lang::choose(flag, |name| std::env::var(name).ok())
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

/// Written as its tag (`"en"`, `"zh-CN"`).
impl serde::Serialize for Lang {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.tag())
    }
}

/// Read from a tag or locale name ([`Lang::from_locale`]); another language is an error.
impl<'de> serde::Deserialize<'de> for Lang {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A language name Keel does not speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language `{0}` (expected en or zh-CN)")]
pub struct UnknownLang(pub String);

impl FromStr for Lang {
    type Err = UnknownLang;

    /// `en` or `zh-CN` (and the locale spellings [`Lang::from_locale`] accepts).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Lang::from_locale(s).ok_or_else(|| UnknownLang(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn serde_writes_the_tag_and_reads_locales() {
        assert_eq!(serde_json::to_string(&Lang::ZhCn).unwrap(), "\"zh-CN\"");
        assert_eq!(
            serde_json::from_str::<Lang>("\"zh_CN.UTF-8\"").unwrap(),
            Lang::ZhCn
        );
        assert_eq!(serde_json::from_str::<Lang>("\"en\"").unwrap(), Lang::En);
        assert!(serde_json::from_str::<Lang>("\"de\"").is_err());
    }

    #[test]
    fn locales_name_their_language() {
        assert_eq!(Lang::from_locale("zh_CN.UTF-8"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_locale("zh-CN"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_locale("zh_Hans"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_locale("zh"), Some(Lang::ZhCn));
        assert_eq!(Lang::from_locale("zh_TW.UTF-8"), None);
        assert_eq!(Lang::from_locale("en_GB.UTF-8"), Some(Lang::En));
        assert_eq!(Lang::from_locale("C.UTF-8"), Some(Lang::En));
        assert_eq!(Lang::from_locale("POSIX"), Some(Lang::En));
        assert_eq!(Lang::from_locale("de_DE"), None);
        assert_eq!(Lang::from_locale(""), None);
    }

    #[test]
    fn the_flag_wins_then_lc_all_then_lc_messages_then_lang() {
        let all = [
            ("LANG", "en_US.UTF-8"),
            ("LC_MESSAGES", "en_US.UTF-8"),
            ("LC_ALL", "zh_CN.UTF-8"),
        ];
        assert_eq!(Lang::choose(Some(Lang::En), env(&all)), Lang::En);
        assert_eq!(Lang::choose(None, env(&all)), Lang::ZhCn);
        let messages = [("LANG", "en_US.UTF-8"), ("LC_MESSAGES", "zh_CN.UTF-8")];
        assert_eq!(Lang::choose(None, env(&messages)), Lang::ZhCn);
        let empty_all = [("LC_ALL", ""), ("LANG", "zh_CN.UTF-8")];
        assert_eq!(Lang::choose(None, env(&empty_all)), Lang::ZhCn);
        assert_eq!(Lang::choose(None, env(&[("LANG", "fr_FR")])), Lang::En);
        assert_eq!(Lang::choose(None, env(&[])), Lang::En);
    }

    #[test]
    fn bad_flags_say_what_is_expected() {
        assert_eq!("zh-CN".parse::<Lang>(), Ok(Lang::ZhCn));
        assert_eq!("en".parse::<Lang>(), Ok(Lang::En));
        let err = "klingon".parse::<Lang>().unwrap_err().to_string();
        assert!(err.contains("expected en or zh-CN"), "{err}");
    }

    proptest! {
        #[test]
        fn any_locale_string_is_handled(locale in "\\PC{0,40}") {
            // Never panics; a known answer round-trips through its tag.
            if let Some(lang) = Lang::from_locale(&locale) {
                prop_assert_eq!(Lang::from_locale(lang.tag()), Some(lang));
            }
        }

        #[test]
        fn tags_round_trip(lang in prop_oneof![Just(Lang::En), Just(Lang::ZhCn)]) {
            prop_assert_eq!(lang.to_string().parse::<Lang>(), Ok(lang));
        }
    }
}
