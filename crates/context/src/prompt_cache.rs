//! [`PromptCache`]: history messages rendered and counted once, reused by later requests.
//!
//! A request shows every message before the current turn in its history form (see
//! [`crate::dedup`] and [`crate::history`]), which depends only on the message, the results
//! that answer it, and whether the files it concerns are focused. Those messages are settled:
//! the cache keeps each one's rendering and token count, so a request only renders and counts
//! the messages added since the last one, the current turn, and messages whose files were
//! focused or unfocused since. Removing messages (eviction, summarising) changes the conversation's
//! [`revision`](crate::Conversation::revision), and a new revision or another encoding empties
//! the cache.
//!
//! A request's messages can also be given back once it is done ([`PromptCache::recycle`]): the
//! next build then keeps the leading history messages that have not changed in that vector
//! instead of copying them again, so a request costs what changed, not the whole history.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use crate::conversation::{Conversation, Message};
use crate::focused_files::FocusedFiles;
use crate::history::{paths_of, render_one, settled_len};
use crate::message::ChatMessage;
use crate::tokens::{Encoding, TokenCounter};

/// One settled message as history shows it.
#[derive(Debug, Clone)]
pub(crate) struct CachedMessage {
    pub(crate) message: ChatMessage,
    pub(crate) tokens: usize,
    /// Files whose focus changes how the message renders.
    pub(crate) paths: Vec<String>,
}

/// Renderings of one conversation's settled history messages, kept between prompt builds
/// (pass the same cache with the same conversation to
/// [`PromptBuilder::build_cached`](crate::PromptBuilder::build_cached)).
#[derive(Debug, Default)]
pub struct PromptCache {
    revision: Option<u64>,
    encoding: Option<Encoding>,
    items: Vec<CachedMessage>,
    /// Focused paths the items were rendered with.
    focused: HashSet<String>,
    /// Item indexes by the paths they depend on.
    by_path: HashMap<String, Vec<usize>>,
    /// The messages of the latest build, once given back, and what they hold.
    spare: Mutex<Spare>,
}

/// A built prompt's message vector, kept for the next build.
#[derive(Debug, Default)]
pub(crate) struct Spare {
    /// The vector (empty until given back).
    messages: Vec<ChatMessage>,
    /// Where the vector handed out lives and how long it is: only that vector is taken back.
    handed_out: Option<(usize, usize)>,
    /// Whether it starts with a system message.
    has_system: bool,
    /// How many history messages after the system message are unchanged cached items
    /// `0..settled`.
    settled: usize,
    /// The first cached item rendered again since the vector was built.
    dirty_from: usize,
}

impl Spare {
    fn drop_all(&mut self) {
        *self = Spare::default();
    }
}

impl PromptCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of messages held.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Gives back the messages of the latest prompt built with this cache, unchanged, once
    /// the request is done: the next build reuses the part that is still the same. Any other
    /// vector is ignored.
    pub fn recycle(&self, messages: Vec<ChatMessage>) {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        let key = (messages.as_ptr() as usize, messages.len());
        if spare.handed_out == Some(key) {
            spare.handed_out = None;
            spare.messages = messages;
        }
    }

    /// A vector to assemble a prompt into: the given-back one cut to its system message (if
    /// `has_system`) and its first `reusable` history messages, when those are still the
    /// cached items `0..n`; returns it with `n`. Otherwise an empty vector and 0.
    pub(crate) fn take_spare(
        &self,
        has_system: bool,
        reusable: usize,
    ) -> (Vec<ChatMessage>, usize) {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        let mut messages = std::mem::take(&mut spare.messages);
        let offset = usize::from(has_system);
        let n = reusable.min(spare.settled).min(spare.dirty_from);
        if messages.is_empty() || spare.has_system != has_system || messages.len() < offset + n {
            return (Vec::new(), 0);
        }
        messages.truncate(offset + n);
        (messages, n)
    }

    /// Records the vector handed out by a build: where it is, whether it starts with a system
    /// message, and how many leading history messages are the cached items.
    pub(crate) fn handed_out(&self, messages: &[ChatMessage], has_system: bool, settled: usize) {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        spare.messages = Vec::new();
        spare.handed_out = Some((messages.as_ptr() as usize, messages.len()));
        spare.has_system = has_system;
        spare.settled = settled;
        spare.dirty_from = usize::MAX;
    }

    /// The settled messages, up to date for `conversation` and `focused`.
    pub(crate) fn settled(&self) -> &[CachedMessage] {
        &self.items
    }

    /// Brings the cache up to date: renders and counts the settled messages added since the
    /// last update and those whose files changed focus. Returns how many messages are settled.
    pub(crate) fn update(
        &mut self,
        counter: TokenCounter,
        conversation: &Conversation,
        focused: &FocusedFiles,
    ) -> usize {
        let messages = conversation.messages();
        self.reset_if_stale(counter, conversation);
        let settled = settled_len(messages);
        if self.items.len() > settled {
            // Appends never unsettle a message; stay correct if that ever changes.
            self.items.clear();
            self.by_path.clear();
            self.spare_mut().drop_all();
        }
        // Settled messages are before the complete part, so they render in history form.
        self.rerender_refocused(counter, messages, focused, settled);
        self.render_new(counter, messages, focused, settled, settled);
        settled
    }

    /// Empties the cache when the conversation's revision or the encoding changed.
    fn reset_if_stale(&mut self, counter: TokenCounter, conversation: &Conversation) {
        if self.revision != Some(conversation.revision())
            || self.encoding != Some(counter.encoding())
        {
            self.clear();
            self.revision = Some(conversation.revision());
            self.encoding = Some(counter.encoding());
        }
    }

    /// Renders again the items whose files were focused or unfocused since they were rendered.
    fn rerender_refocused(
        &mut self,
        counter: TokenCounter,
        messages: &[Message],
        focused: &FocusedFiles,
        whole_from: usize,
    ) {
        let now: HashSet<&str> = focused.iter().map(|f| f.path()).collect();
        let changed: Vec<String> = self
            .focused
            .iter()
            .filter(|p| !now.contains(p.as_str()))
            .cloned()
            .chain(
                now.iter()
                    .filter(|p| !self.focused.contains(**p))
                    .map(|p| (*p).to_owned()),
            )
            .collect();
        for path in &changed {
            let Some(indexes) = self.by_path.get(path) else {
                continue;
            };
            for &index in indexes {
                let spare = self.spare.get_mut().unwrap_or_else(|p| p.into_inner());
                spare.dirty_from = spare.dirty_from.min(index);
                let message = render_one(messages, index, focused, whole_from);
                let item = &mut self.items[index];
                item.tokens = counter.count_message(&message);
                item.message = message;
            }
        }
        if !changed.is_empty() {
            self.focused = now.iter().map(|p| (*p).to_owned()).collect();
        }
    }

    /// Renders and counts the settled messages not yet held.
    fn render_new(
        &mut self,
        counter: TokenCounter,
        messages: &[Message],
        focused: &FocusedFiles,
        whole_from: usize,
        settled: usize,
    ) {
        for index in self.items.len()..settled {
            let message = render_one(messages, index, focused, whole_from);
            let paths = paths_of(messages, index);
            for path in &paths {
                self.by_path.entry(path.clone()).or_default().push(index);
            }
            self.items.push(CachedMessage {
                tokens: counter.count_message(&message),
                message,
                paths,
            });
        }
    }

    fn spare_mut(&mut self) -> &mut Spare {
        self.spare.get_mut().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, NoSummarizer, PromptBuilder, PromptSources};

    #[tokio::test]
    async fn a_given_back_vector_is_reused_and_any_other_ignored() {
        let mut conversation = Conversation::new();
        for i in 0..5 {
            conversation.push_user(format!("question {i}"));
            conversation
                .push_assistant(format!("answer {i}"), Vec::new())
                .unwrap();
        }
        let focused = FocusedFiles::new();
        let sources = PromptSources {
            instructions: "Agent.",
            memory: None,
            repo_map: None,
            libraries: None,
            focused: &focused,
            turn_notes: None,
        };
        let builder = PromptBuilder::new(TokenCounter::default(), Budget::new(100_000));
        let mut cache = PromptCache::new();
        let built = builder
            .build_cached(sources, &mut conversation, &NoSummarizer, &mut cache)
            .await;
        // A copy is not the vector handed out.
        cache.recycle(built.messages.clone());
        assert_eq!(cache.take_spare(true, usize::MAX).1, 0);

        let built = builder
            .build_cached(sources, &mut conversation, &NoSummarizer, &mut cache)
            .await;
        assert_eq!(built.messages.len(), 11);
        cache.recycle(built.messages);
        let (spare, reused) = cache.take_spare(true, usize::MAX);
        assert_eq!(
            reused, 8,
            "every message before the current turn is settled and unchanged"
        );
        assert_eq!(spare.len(), 9);
        assert_eq!(cache.take_spare(true, usize::MAX).1, 0, "taken once");
    }
}
