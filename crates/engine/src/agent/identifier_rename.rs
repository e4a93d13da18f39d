//! Renaming an identifier in a text the way a rename across a project means it: every use of
//! the name as a whole word, and the names built from it — a test named after it
//! (`test_parse_cfg_sections`, `TestPutFetch`), a variant (`FetchAll`) — where the old name
//! is a whole part of a longer identifier (split at `_` or at a lower-to-upper case change).
//! A longer word that merely starts with it (`Fetcher`, `parse_cfgs`) is left alone, and so
//! is a name that is also an everyday word (`mean`: lower case, one part) where it reads as
//! one, between two lower-case words ("the arithmetic mean of").

use std::collections::{BTreeMap, BTreeSet};

/// What renaming did to one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Renamed {
    /// The text after the rename.
    pub(crate) text: String,
    /// Places renamed.
    pub(crate) places: usize,
    /// Longer identifiers renamed with it: old → new.
    pub(crate) derived: BTreeMap<String, String>,
}

/// Whether `c` can be part of an identifier.
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `name` is one identifier.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') && chars.all(is_word)
}

/// Whether `from` starts a part of an identifier after `prev`.
fn starts_part(prev: Option<char>, from: &str) -> bool {
    match prev {
        None => true,
        Some(p) if !is_word(p) || p == '_' => true,
        Some(p) => {
            from.starts_with(|c: char| c.is_uppercase()) && (p.is_lowercase() || p.is_numeric())
        }
    }
}

/// Whether a part of an identifier that is `from` ends before `next`.
fn ends_part(next: Option<char>, from: &str) -> bool {
    match next {
        None => true,
        Some(n) if !is_word(n) || n == '_' => true,
        Some(n) => n.is_uppercase() && from.ends_with(|c: char| c.is_lowercase() || c.is_numeric()),
    }
}

/// Whether the use of `from` at `text[start..end]` reads as an everyday word: `from` is
/// one lower-case part, with a lower-case word a space away on each side.
fn reads_as_word(text: &str, start: usize, end: usize, from: &str) -> bool {
    if !from.chars().all(|c| c.is_lowercase() || c.is_numeric()) {
        return false;
    }
    let mut before = text[..start].chars().rev();
    let mut after = text[end..].chars();
    before.next() == Some(' ')
        && before.next().is_some_and(char::is_lowercase)
        && after.next() == Some(' ')
        && after.next().is_some_and(char::is_lowercase)
}

/// The whole identifier around `text[start..end]`.
fn identifier_around(text: &str, start: usize, end: usize) -> &str {
    let begin = text[..start]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(start, |(i, _)| i);
    let finish = text[end..]
        .char_indices()
        .find(|(_, c)| !is_word(*c))
        .map_or(text.len(), |(i, _)| end + i);
    &text[begin..finish]
}

/// Every identifier in `text`.
pub(crate) fn identifiers(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !is_word(c))
        .filter(|word| is_identifier(word))
        .collect()
}

/// `text` with `from` renamed to `to` (both identifiers); `None` when nothing is renamed. A
/// longer identifier is renamed only when its new name is not one of `taken` (a name the
/// project already uses), which would merge two things into one.
pub(crate) fn rename_in(
    text: &str,
    from: &str,
    to: &str,
    taken: &BTreeSet<&str>,
) -> Option<Renamed> {
    if from.is_empty() || from == to {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut places = 0;
    let mut derived = BTreeMap::new();
    let mut copied = 0;
    for (start, _) in text.match_indices(from) {
        if start < copied {
            continue;
        }
        let end = start + from.len();
        let prev = text[..start].chars().next_back();
        let next = text[end..].chars().next();
        if !starts_part(prev, from)
            || !ends_part(next, from)
            || reads_as_word(text, start, end, from)
        {
            continue;
        }
        let whole = identifier_around(text, start, end);
        if whole != from {
            let offset = start - (whole.as_ptr() as usize - text.as_ptr() as usize);
            let renamed = format!("{}{to}{}", &whole[..offset], &whole[offset + from.len()..]);
            if taken.contains(renamed.as_str()) {
                continue;
            }
            derived.insert(whole.to_owned(), renamed);
        }
        out.push_str(&text[copied..start]);
        out.push_str(to);
        copied = end;
        places += 1;
    }
    if places == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(Renamed {
        text: out,
        places,
        derived,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rename(text: &str, from: &str, to: &str) -> Option<String> {
        rename_in(text, from, to, &BTreeSet::new()).map(|r| r.text)
    }

    #[test]
    fn whole_words_are_renamed() {
        assert_eq!(
            rename(
                "from .config import parse_cfg\ncfg = parse_cfg(text)\n",
                "parse_cfg",
                "parse_config"
            )
            .as_deref(),
            Some("from .config import parse_config\ncfg = parse_config(text)\n")
        );
        assert_eq!(
            rename("n, err := s.Fetch(id)", "Fetch", "Get").as_deref(),
            Some("n, err := s.Get(id)")
        );
    }

    #[test]
    fn names_built_from_it_are_renamed() {
        let renamed = rename_in(
            "def test_parse_cfg_sections():\nfunc TestPutFetch(t *testing.T) {\nconst x = getUserNameFor(u)\n",
            "parse_cfg",
            "parse_config",
            &BTreeSet::new(),
        )
        .unwrap();
        assert_eq!(renamed.places, 1);
        assert_eq!(
            renamed
                .derived
                .get("test_parse_cfg_sections")
                .map(String::as_str),
            Some("test_parse_config_sections")
        );
        assert_eq!(
            rename("func TestPutFetch(t *testing.T) {", "Fetch", "Get").as_deref(),
            Some("func TestPutGet(t *testing.T) {")
        );
        assert_eq!(
            rename("getUserNameFor(u)", "getUserName", "getDisplayName").as_deref(),
            Some("getDisplayNameFor(u)")
        );
    }

    #[test]
    fn longer_words_are_left_alone() {
        assert_eq!(rename("a Fetcher fetches", "Fetch", "Get"), None);
        assert_eq!(rename("parse_cfgs(x)", "parse_cfg", "parse_config"), None);
        assert_eq!(
            rename("xgetUserName()", "getUserName", "getDisplayName"),
            None
        );
        assert_eq!(rename("HTTPServer", "HTTP", "Http"), None);
    }

    #[test]
    fn an_everyday_word_in_prose_is_left_alone() {
        assert_eq!(
            rename(
                "def mean(values):\n    \"\"\"The arithmetic mean of values.\"\"\"\n    return mean + 1\nimport mean\n",
                "mean",
                "average"
            )
            .as_deref(),
            Some(
                "def average(values):\n    \"\"\"The arithmetic mean of values.\"\"\"\n    return average + 1\nimport average\n"
            )
        );
        assert_eq!(
            rename("// Fetch returns the note", "Fetch", "Get").as_deref(),
            Some("// Get returns the note")
        );
    }

    #[test]
    fn a_derived_name_already_taken_is_left_alone() {
        let taken = BTreeSet::from(["TemperatureUnit"]);
        let renamed = rename_in("Temp TempUnit", "Temp", "Temperature", &taken).unwrap();
        assert_eq!(renamed.text, "Temperature TempUnit");
        assert!(renamed.derived.is_empty());
    }

    #[test]
    fn identifiers_are_words() {
        assert!(is_identifier("parse_cfg"));
        assert!(is_identifier("_x1"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("store.Store"));
        assert!(!is_identifier(""));
        assert_eq!(
            identifiers("a.b(c_d, 1e3)").into_iter().collect::<Vec<_>>(),
            ["a", "b", "c_d"]
        );
    }

    proptest! {
        /// Renaming there and back gives the text again when neither name was in it.
        #[test]
        fn renaming_back_restores(words in proptest::collection::vec("[a-z ().]{0,6}", 0..8)) {
            let text = words.join("old_name");
            if let Some(renamed) = rename_in(&text, "old_name", "NEW_NAME", &BTreeSet::new()) {
                let back = rename_in(&renamed.text, "NEW_NAME", "old_name", &BTreeSet::new());
                prop_assert_eq!(back.map(|r| r.text), Some(text.clone()));
            }
        }
    }
}
