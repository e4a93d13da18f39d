//! The server's errors: [`ApiError`], answered to clients as `{"error": {"code", "message"}}`
//! with a fitting status (extractor rejections such as bad JSON, wrong types or huge bodies are
//! mapped to it), and [`ServerError`], why the server could not start or stopped.

use std::net::SocketAddr;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use keel_store::StoreError;
use serde::Serialize;
use utoipa::ToSchema;

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The store could not be opened or read.
    #[error("store: {0}")]
    Store(#[from] StoreError),
    /// Recovering the turns of a stopped instance failed.
    #[error(transparent)]
    Host(#[from] keel_host::HostError),
    /// The data folder could not be created.
    #[error("cannot create the data folder `{path}`: {source}")]
    DataDir {
        /// The folder.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The address could not be bound, or serving failed.
    #[error("{what} {addr}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// The machine-readable error codes of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// 401: no or bad credentials.
    Unauthorized,
    /// 403: credentials fine, action not allowed.
    Forbidden,
    /// 404: no such thing (or not visible to this token).
    NotFound,
    /// 405: the route exists but not with this method.
    MethodNotAllowed,
    /// 409: a turn is already running in the session.
    TurnRunning,
    /// 409: the request contradicts an earlier one.
    Conflict,
    /// 400: the request is malformed (bad query, bad path, wrong content type).
    BadRequest,
    /// 400: the body is not JSON.
    InvalidJson,
    /// 422: the JSON does not have the expected shape or values.
    Unprocessable,
    /// 413: the body is larger than the server accepts.
    PayloadTooLarge,
    /// 415: the body is not of the media type the operation takes.
    UnsupportedMediaType,
    /// 500: the server failed.
    Internal,
    /// 503: this instance is draining (shutting down) and takes no new work.
    Unavailable,
}

impl ErrorCode {
    /// The code's wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unauthorized => "unauthorized",
            Self::Forbidden => "forbidden",
            Self::NotFound => "not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::TurnRunning => "turn_running",
            Self::Conflict => "conflict",
            Self::BadRequest => "bad_request",
            Self::InvalidJson => "invalid_json",
            Self::Unprocessable => "unprocessable",
            Self::PayloadTooLarge => "payload_too_large",
            Self::UnsupportedMediaType => "unsupported_media_type",
            Self::Internal => "internal",
            Self::Unavailable => "unavailable",
        }
    }

    /// The HTTP status the code is sent with.
    pub fn status(self) -> StatusCode {
        match self {
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Forbidden => StatusCode::FORBIDDEN,
            Self::NotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::TurnRunning | Self::Conflict => StatusCode::CONFLICT,
            Self::BadRequest | Self::InvalidJson => StatusCode::BAD_REQUEST,
            Self::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// An error answered to a client.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct ApiError {
    /// What kind of error.
    pub code: ErrorCode,
    /// What went wrong, for a person.
    pub message: String,
}

impl ApiError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// 401.
    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unauthorized, message)
    }

    /// 403.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Forbidden, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// 409 `conflict`.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, message)
    }

    /// 400 `bad_request`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::BadRequest, message)
    }

    /// 422.
    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unprocessable, message)
    }

    /// 500.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    /// A session id that does not exist or is not visible.
    pub fn no_session(id: &str) -> Self {
        Self::not_found(format!("no session `{id}`"))
    }
}

/// The JSON body of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// Code and message of an error.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Machine-readable code (`not_found`, `turn_running`, …).
    pub code: String,
    /// What went wrong.
    pub message: String,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.code == ErrorCode::Internal {
            tracing::error!(message = %self.message, "request failed");
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code.as_str().to_owned(),
                message: self.message,
            },
        };
        (self.code.status(), axum::Json(body)).into_response()
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match &error {
            StoreError::NotFound { .. } => Self::not_found(error.to_string()),
            StoreError::RequestConflict { .. }
            | StoreError::TurnNotRunning { .. }
            | StoreError::DuplicateSession(_)
            | StoreError::DuplicateTurn(_)
            | StoreError::WriterHeld { .. } => Self::conflict(error.to_string()),
            StoreError::InvalidInput { .. } => Self::unprocessable(error.to_string()),
            _ => Self::internal(format!("store: {error}")),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        match &rejection {
            JsonRejection::JsonDataError(e) => Self::unprocessable(e.body_text()),
            JsonRejection::JsonSyntaxError(e) => Self::new(ErrorCode::InvalidJson, e.body_text()),
            JsonRejection::MissingJsonContentType(_) => {
                Self::bad_request("expected `Content-Type: application/json`")
            }
            JsonRejection::BytesRejection(e) => {
                if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                    Self::new(ErrorCode::PayloadTooLarge, "request body too large")
                } else {
                    Self::bad_request(e.body_text())
                }
            }
            _ => Self::bad_request(rejection.body_text()),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        Self::bad_request(rejection.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        Self::bad_request(rejection.body_text())
    }
}

/// `Result` of a handler.
pub type ApiResult<T> = Result<T, ApiError>;
