//! The request to `POST {base_url}/images/generations` and reading its answer: the image as
//! `b64_json`, or a `url` fetched in turn.

use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;

/// Why no image came back.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The server could not be reached or the exchange broke off.
    #[error("Cannot reach the image server at {url}: {message}")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The server answered with an error status.
    #[error("The image server at {url} answered {status}: {message}")]
    Status {
        /// The URL asked.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The error message from its body (or the body's start).
        message: String,
    },
    /// The answer is not the images response shape.
    #[error("The image server at {url} sent an answer without an image: {message}")]
    Shape {
        /// The URL asked.
        url: String,
        /// What is missing or wrong.
        message: String,
    },
}

/// One image request.
pub(super) struct ImageRequest<'a> {
    pub(super) base_url: &'a str,
    pub(super) model: &'a str,
    pub(super) api_key: Option<&'a str>,
    pub(super) prompt: &'a str,
    pub(super) size: Option<&'a str>,
}

#[derive(Deserialize)]
struct ImagesResponse {
    data: Vec<ImageData>,
}

#[derive(Deserialize)]
struct ImageData {
    #[serde(default)]
    b64_json: Option<String>,
    #[serde(default)]
    url: Option<String>,
}

/// Most bytes of an error body quoted.
const QUOTED_BODY: usize = 300;

impl ImageRequest<'_> {
    /// Sends the request and returns the image's bytes.
    pub(super) async fn send(&self, timeout: Duration) -> Result<Vec<u8>, ImageError> {
        let url = format!("{}/images/generations", self.base_url.trim_end_matches('/'));
        // reqwest is built without a bundled crypto provider: use ring (an error only means
        // one is already installed).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let unreachable = |url: &str, e: reqwest::Error| ImageError::Unreachable {
            url: url.to_owned(),
            message: error_chain(&e),
        };
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(timeout)
            .build()
            .map_err(|e| unreachable(&url, e))?;
        let mut body = serde_json::json!({
            "model": self.model,
            "prompt": self.prompt,
            "n": 1,
        });
        if let Some(size) = self.size {
            body["size"] = size.into();
        }
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(key) = self.api_key.filter(|k| !k.is_empty()) {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| unreachable(&url, e))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| unreachable(&url, e))?;
        if !status.is_success() {
            return Err(ImageError::Status {
                url,
                status: status.as_u16(),
                message: error_message(&bytes),
            });
        }
        let parsed: ImagesResponse =
            serde_json::from_slice(&bytes).map_err(|e| ImageError::Shape {
                url: url.clone(),
                message: format!("not an images response ({e})"),
            })?;
        let Some(image) = parsed.data.into_iter().next() else {
            return Err(ImageError::Shape {
                url,
                message: "`data` is empty".to_owned(),
            });
        };
        match (image.b64_json, image.url) {
            (Some(b64), _) => base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| ImageError::Shape {
                    url,
                    message: format!("`b64_json` is not base64 ({e})"),
                }),
            (None, Some(image_url)) => {
                let response = client
                    .get(&image_url)
                    .send()
                    .await
                    .map_err(|e| unreachable(&image_url, e))?;
                let status = response.status();
                let bytes = response
                    .bytes()
                    .await
                    .map_err(|e| unreachable(&image_url, e))?;
                if !status.is_success() {
                    return Err(ImageError::Status {
                        url: image_url,
                        status: status.as_u16(),
                        message: error_message(&bytes),
                    });
                }
                Ok(bytes.to_vec())
            }
            (None, None) => Err(ImageError::Shape {
                url,
                message: "the image has neither `b64_json` nor `url`".to_owned(),
            }),
        }
    }
}

/// The `error.message` of an OpenAI-style error body, else the body's start.
fn error_message(body: &[u8]) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    if let Some(message) = parsed.as_ref().and_then(|v| {
        v.get("error")
            .and_then(|e| e.get("message").or(Some(e)))
            .and_then(|m| m.as_str())
    }) {
        return message.to_owned();
    }
    let text = String::from_utf8_lossy(body);
    let text: String = text.chars().take(QUOTED_BODY).collect();
    if text.trim().is_empty() {
        "(empty body)".to_owned()
    } else {
        text.trim().to_owned()
    }
}

/// An error with its sources, outermost first.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
