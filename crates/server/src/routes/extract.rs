//! Extractors whose rejections are answered in the contract's error shape.

use axum::extract::{FromRequest, FromRequestParts, Request};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON object body; malformed JSON is 400 `invalid_json`, a wrong shape (another JSON value
/// than an object included: serde would read an array as a struct) 422, a huge body 413.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let axum::Json(value) = axum::Json::<serde_json::Value>::from_request(req, state).await?;
        if !value.is_object() {
            return Err(ApiError::unprocessable("the body must be a JSON object"));
        }
        T::deserialize(value)
            .map(ApiJson)
            .map_err(|e| ApiError::unprocessable(format!("invalid body: {e}")))
    }
}

/// Path parameters; bad ones are 400.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct ApiPath<T>(pub T);

/// Query parameters; bad ones are 400.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);
