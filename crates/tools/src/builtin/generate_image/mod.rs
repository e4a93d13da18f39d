//! `generate_image`: asks an OpenAI-compatible `/v1/images/generations` endpoint for an image
//! and writes the PNG into the workspace through the same confinement, checkpoint and
//! `run.file.change` (with `mime_type: image/png` and the size) as any file write. The HTTP
//! exchange is in `request.rs`, the PNG check in `png.rs`.

mod png;
mod request;

use std::time::Duration;

use async_trait::async_trait;
use keel_events::FileOp;
use schemars::JsonSchema;
use serde::Deserialize;

pub use png::{PngInfo, png_info};
pub use request::ImageError;

use super::{thousands, workspace};
use crate::file_change::{checkpoint_before, emit_binary};
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// How long one image request may take.
pub const IMAGE_TIMEOUT: Duration = Duration::from_secs(180);

/// Where images are generated: `[images] base_url` and `model` in `keel.toml`, the API key
/// from the environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageSettings {
    /// Base URL of the OpenAI-compatible API (e.g. `http://localhost:8000/v1`); the front end
    /// defaults it to the chat provider's.
    pub base_url: Option<String>,
    /// The image model.
    pub model: Option<String>,
    /// Bearer token sent with the request, if any.
    pub api_key: Option<String>,
}

/// Arguments of `generate_image`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateImageArgs {
    /// What the image should show.
    pub prompt: String,
    /// Where to write the PNG, relative to the workspace root; must end in `.png`.
    pub path: String,
    /// `WIDTHxHEIGHT`, e.g. `1024x1024` (default: the server's).
    #[serde(default)]
    pub size: Option<String>,
}

/// Generates a PNG image from a prompt.
#[derive(Debug, Clone, Default)]
pub struct GenerateImage {
    settings: ImageSettings,
}

impl GenerateImage {
    /// The tool with these settings.
    pub fn new(settings: ImageSettings) -> Self {
        Self { settings }
    }

    /// The settings it calls the image server with.
    pub fn settings(&self) -> &ImageSettings {
        &self.settings
    }
}

/// `size` when it is `WIDTHxHEIGHT` with both in 1..=8192.
fn valid_size(size: &str) -> bool {
    let Some((w, h)) = size.split_once('x') else {
        return false;
    };
    let ok = |n: &str| n.parse::<u32>().is_ok_and(|n| (1..=8192).contains(&n));
    ok(w) && ok(h)
}

#[async_trait]
impl TypedTool for GenerateImage {
    type Args = GenerateImageArgs;

    fn name(&self) -> &'static str {
        "generate_image"
    }

    fn description(&self) -> &'static str {
        "Generate an image from a text prompt with the configured image model and save it as a PNG file in the workspace. Returns the path. Use for icons, illustrations and mock-ups the task asks for."
    }

    fn usable(&self) -> bool {
        self.settings.base_url.is_some() && self.settings.model.is_some()
    }

    async fn run(&self, ctx: &ToolContext, args: GenerateImageArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        if args.prompt.trim().is_empty() {
            return ToolResult::error("The prompt is empty; say what the image should show.");
        }
        if !args.path.to_ascii_lowercase().ends_with(".png") {
            return ToolResult::error(format!(
                "`{}` does not end in .png; generate_image writes PNG files.",
                args.path
            ));
        }
        if let Some(size) = args.size.as_deref()
            && !valid_size(size)
        {
            return ToolResult::error(format!(
                "size `{size}` is not WIDTHxHEIGHT (e.g. 1024x1024)."
            ));
        }
        let path = match ws.resolve_for_write(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot write `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&path);
        if path.is_dir() {
            return ToolResult::error(format!("`{rel}` is a folder; give a file path."));
        }
        let (Some(base_url), Some(model)) = (&self.settings.base_url, &self.settings.model) else {
            return ToolResult::error(
                "generate_image is not configured: set `model` under `[images]` in keel.toml (and `base_url` there when the images come from another server than the chat model's `base_url`).",
            );
        };
        let request = request::ImageRequest {
            base_url,
            model,
            api_key: self.settings.api_key.as_deref(),
            prompt: &args.prompt,
            size: args.size.as_deref(),
        };
        let bytes = tokio::select! {
            bytes = request.send(IMAGE_TIMEOUT) => bytes,
            () = ctx.cancel.cancelled() => {
                return ToolResult::error("Cancelled before the image arrived; nothing was written.");
            }
        };
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => return ToolResult::error(format!("{e}; nothing was written.")),
        };
        let info = match png_info(&bytes) {
            Ok(info) => info,
            Err(why) => {
                return ToolResult::error(format!(
                    "The image server at {base_url} did not return a PNG ({why}); nothing was written."
                ));
            }
        };
        let existed = path.exists();
        if let Err(message) = checkpoint_before(ctx, &path) {
            return ToolResult::error(message);
        }
        if let Some(parent) = path.parent()
            && let Err(e) = tokio::fs::create_dir_all(parent).await
        {
            return ToolResult::error(format!("Cannot create the folders for `{rel}`: {e}"));
        }
        if let Err(e) = tokio::fs::write(&path, &bytes).await {
            return ToolResult::error(format!("Cannot write `{rel}`: {e}"));
        }
        let op = if existed {
            FileOp::Update
        } else {
            FileOp::Create
        };
        let size = bytes.len() as u64;
        emit_binary(ctx, &rel, op, size, "image/png");
        ToolResult::ok_with(
            format!(
                "Wrote `{rel}`: a {}x{} PNG, {} bytes.",
                info.width,
                info.height,
                thousands(bytes.len())
            ),
            rel,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_width_by_height() {
        assert!(valid_size("1024x1024"));
        assert!(valid_size("256x512"));
        assert!(!valid_size("big"));
        assert!(!valid_size("0x10"));
        assert!(!valid_size("1024x"));
        assert!(!valid_size("99999x1"));
    }
}
