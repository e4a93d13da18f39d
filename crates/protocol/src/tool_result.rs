//! What a tool call returns.

use serde::{Deserialize, Serialize};

/// What a tool call returns to the model (and to `keel tool call`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Whether the tool did what was asked.
    pub success: bool,
    /// One or two sentences on what happened, written for the model.
    pub message: String,
    /// The tool's output (file text, listing, matches, command output), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A few words on the outcome for people (`run.tool.end.result_summary`), when the tool
    /// has its own (seed 003 §6.1: `文件已移动`); absent, the message's first line stands in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Images for the model to see with the result (`read_file` on an image, for a model that
    /// accepts images). Never serialised: events and JSON carry the message saying they are
    /// attached, and the engine sends them as a user message after the tool results, since
    /// tool messages cannot hold images in the chat-completions format.
    #[serde(skip)]
    pub images: Vec<crate::Image>,
}

impl ToolResult {
    /// The same result with a summary of its own for people.
    pub fn with_summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// The same result with `images` for the model.
    pub fn with_images(mut self, images: Vec<crate::Image>) -> Self {
        self.images = images;
        self
    }

    /// A success with a message and no content.
    pub fn ok(message: impl Into<String>) -> Self {
        Self {
            success: true,
            message: message.into(),
            content: None,
            summary: None,
            images: Vec::new(),
        }
    }

    /// A success with content.
    pub fn ok_with(message: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            success: true,
            message: message.into(),
            content: Some(content.into()),
            summary: None,
            images: Vec::new(),
        }
    }

    /// A failure the model can act on.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            success: false,
            message: message.into(),
            content: None,
            summary: None,
            images: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_left_out_of_json_when_absent() {
        let json = serde_json::to_value(ToolResult::error("no")).unwrap_or_default();
        assert_eq!(json, serde_json::json!({"success": false, "message": "no"}));
        let back: Result<ToolResult, _> = serde_json::from_value(json);
        assert_eq!(back.ok(), Some(ToolResult::error("no")));
    }
}
