//! Extractors whose rejections are answered in the contract's error shape.

use axum::extract::{FromRequest, FromRequestParts};

use crate::error::ApiError;

/// A JSON body; malformed JSON is 400 `invalid_json`, a wrong shape 422, a huge body 413.
#[derive(Debug, FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

/// Path parameters; bad ones are 400.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct ApiPath<T>(pub T);

/// Query parameters; bad ones are 400.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);
