//! `read_file`: a text file's content, whole or a range of lines; an image (PNG, JPEG, GIF,
//! WebP, by its bytes) attached for a model that accepts images, described for one that does
//! not.

use async_trait::async_trait;
use keel_events::Lang;
use keel_protocol::{Image, ImageType, image_dimensions};
use schemars::JsonSchema;
use serde::Deserialize;

use super::{thousands, workspace};
use crate::file_text::{FileText, decode};
use crate::tool::{ToolContext, ToolResult, TypedTool};

/// Files with more lines than this are previewed unless a range is asked for (seed 002).
pub const LARGE_FILE_LINES: usize = 2000;
/// Lines shown in a large file's preview.
pub const PREVIEW_LINES: usize = 100;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// Path of the file, relative to the workspace root.
    pub path: String,
    /// First line to read (1-based, inclusive). Defaults to 1.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// Last line to read (1-based, inclusive). Defaults to the last line.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
}

/// Reads a text file.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadFile;

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;

    fn name(&self) -> &'static str {
        "read_file"
    }

    fn description(&self) -> &'static str {
        "Read a text file in the workspace. Returns the whole file, or only lines start_line..end_line (1-based, inclusive) when given. Files over 2,000 lines return the first 100 lines and the total line count: read the rest in ranges. Images (PNG, JPEG, GIF, WebP) are shown to you when you can see images. Other binary files are refused."
    }

    fn brief(&self) -> Option<&'static str> {
        Some("Read a file (whole, or lines start_line..end_line).")
    }

    async fn run(&self, ctx: &ToolContext, args: ReadFileArgs) -> ToolResult {
        let ws = match workspace(ctx) {
            Ok(ws) => ws,
            Err(result) => return result,
        };
        let path = match ws.resolve(&args.path) {
            Ok(path) => path,
            Err(e) => return ToolResult::error(format!("Cannot read `{}`: {e}", args.path)),
        };
        let rel = ws.relative(&path);
        if path.is_dir() {
            return ToolResult::error(format!(
                "`{rel}` is a folder, not a file; use list_files to see what it holds."
            ));
        }
        let bytes = match tokio::fs::read(&path).await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return ToolResult::error(format!(
                    "File does not exist: {rel}. Check the path with list_files or search_files."
                ));
            }
            Err(e) => return ToolResult::error(format!("Cannot read `{rel}`: {e}")),
        };
        let size = bytes.len();
        if let Some(kind) = ImageType::sniff(&bytes) {
            return image_result(ctx, &rel, kind, &bytes);
        }
        let (text, lossy) = match decode(bytes) {
            FileText::Binary => {
                let kind = crate::file_change::mime_type(&rel)
                    .map(|m| format!(", {m}"))
                    .unwrap_or_default();
                return ToolResult::error(format!(
                    "`{rel}` is a binary file ({} bytes{kind}); read_file only reads text.",
                    thousands(size)
                ));
            }
            FileText::Text { text, lossy } => (text, lossy),
        };
        let lossy_note = if lossy {
            " The file is not valid UTF-8: it was decoded lossily (invalid bytes shown as U+FFFD \u{FFFD}); do not edit it with replace_in_file."
        } else {
            ""
        };
        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len();

        if args.start_line.is_some() || args.end_line.is_some() {
            let start = args.start_line.unwrap_or(1);
            let end = args.end_line.unwrap_or(total).min(total);
            if start == 0 {
                return ToolResult::error("start_line is 1-based: the first line is 1.");
            }
            if let Some(end_line) = args.end_line
                && end_line < start
            {
                return ToolResult::error(format!(
                    "end_line ({end_line}) is before start_line ({start})."
                ));
            }
            if start > total {
                return ToolResult::error(format!(
                    "start_line {start} is past the end of `{rel}`, which has {} lines.",
                    thousands(total)
                ));
            }
            let mut content = lines[start - 1..end].join("\n");
            content.push('\n');
            return ToolResult::ok_with(
                format!(
                    "Read `{rel}` lines {start}-{end} of {}.{lossy_note}",
                    thousands(total)
                ),
                content,
            );
        }

        if total > LARGE_FILE_LINES {
            return large_file_preview(&rel, &lines, ctx.lang, lossy_note);
        }

        ToolResult::ok_with(
            format!("Read `{rel}` ({} lines).{lossy_note}", thousands(total)),
            text,
        )
    }
}

/// An image file: attached for a model that accepts images (the result says so; the engine
/// sends the image after the tool results), else described (format, dimensions, size) with
/// why the model cannot see it.
fn image_result(ctx: &ToolContext, rel: &str, kind: ImageType, bytes: &[u8]) -> ToolResult {
    let dimensions = image_dimensions(bytes)
        .map(|(w, h)| format!("{w}x{h}, "))
        .unwrap_or_default();
    let what = format!(
        "`{rel}` is a {} image ({dimensions}{} bytes)",
        kind.name(),
        thousands(bytes.len())
    );
    if !ctx.vision {
        return ToolResult::error(format!(
            "{what}; this model does not accept images, so read_file cannot show it."
        ));
    }
    match Image::from_bytes(rel, bytes) {
        Ok(image) => ToolResult::ok(format!(
            "{what}: attached, it follows the tool results as an image for you to see."
        ))
        .with_images(vec![image]),
        Err(e) => ToolResult::error(format!("{what}; it cannot be attached: {e}.")),
    }
}

/// The first [`PREVIEW_LINES`] lines of a file over [`LARGE_FILE_LINES`] lines, with how to
/// read the rest; under the Chinese locale in seed 002's words.
fn large_file_preview(rel: &str, lines: &[&str], lang: Lang, lossy_note: &str) -> ToolResult {
    let total = lines.len();
    let preview = lines[..PREVIEW_LINES.min(total)].join("\n");
    match lang {
        Lang::ZhCn => ToolResult::ok_with(
            format!("文件较大（{total} 行），以下是前 {PREVIEW_LINES} 行预览：{lossy_note}"),
            format!(
                "{preview}\n\n... [文件共 {total} 行]\n\n提示：请使用 read_file(path, start_line=X, end_line=Y) 分段读取特定部分。\n"
            ),
        ),
        Lang::En => ToolResult::ok_with(
            format!(
                "`{rel}` is large ({} lines): showing the first {PREVIEW_LINES} lines. Read other parts with start_line and end_line, e.g. {{\"path\": \"{rel}\", \"start_line\": {}, \"end_line\": {}}}.{lossy_note}",
                thousands(total),
                PREVIEW_LINES + 1,
                (PREVIEW_LINES + 500).min(total)
            ),
            format!(
                "{preview}\n\n... [{} lines in total; lines {}-{} not shown]\n",
                thousands(total),
                PREVIEW_LINES + 1,
                total
            ),
        ),
    }
}
