//! A session's events: a JSON page, Server-Sent Events, or a WebSocket.

use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::extract::ws::{
    Message, WebSocket, WebSocketUpgrade, rejection::WebSocketUpgradeRejection,
};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use keel_store::EventRange;
use serde_json::json;

use super::extract::{ApiPath, ApiQuery};
use crate::api::{EventPage, EventsQuery, WsQuery};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::sse_body::SseBody;
use crate::state::{SharedState, StreamCaller};
use crate::stream::{StreamItem, session_stream};
use crate::wire::in_format;

/// Most messages written to a WebSocket client before one flush.
const WS_BATCH: usize = 256;

/// Events of a session: SSE with `Accept: text/event-stream` or `?stream=sse`, else a page; in
/// the wire format `format` asks for.
#[utoipa::path(get, path = "/v1/sessions/{id}/events", operation_id = "sessionEvents", tag = "events",
    params(("id" = String, Path, description = "Session id"), EventsQuery,
        ("Last-Event-ID" = Option<u64>, Header, description = "SSE resume cursor (a seq number)", maximum = 18446744073709551615_u64)),
    security(("bearer" = []), ("stream_token" = [])),
    responses(
        (status = 200, description = "A page of events (JSON) or an SSE stream", body = EventPage),
        (status = 400, description = "Bad query (an unknown `format` names the allowed ones) or Last-Event-ID", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn events(
    State(state): State<SharedState>,
    caller: StreamCaller,
    ApiPath(id): ApiPath<String>,
    ApiQuery(query): ApiQuery<EventsQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let wants_sse = query.stream.as_deref() == Some("sse")
        || headers
            .get(axum::http::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("text/event-stream"));
    if !wants_sse && matches!(caller, StreamCaller::StreamToken(_)) {
        return Err(ApiError::unauthorized(
            "stream tokens are accepted only for SSE and WebSocket streams",
        ));
    }
    let scope = caller.session_scope(&state, &id)?;
    state.visible_session(&scope, &id).await?;
    // Checked for pages too, so a bad cursor is refused whichever way the events are read.
    let resume = match headers.get("last-event-id") {
        Some(value) => Some(
            value
                .to_str()
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| ApiError::bad_request("`Last-Event-ID` must be a seq number"))?,
        ),
        None => None,
    };
    let after = seq_after(query.after)?;
    if !wants_sse {
        let limit = query.limit.unwrap_or(100).clamp(1, 1000);
        let mut events = state
            .store
            .read_events(&id, EventRange::after(after).with_limit(limit + 1))
            .await?;
        let has_more = events.len() > limit as usize;
        events.truncate(limit as usize);
        let next_after = events.last().map_or(after, |e| e.seq);
        let format = query.format.unwrap_or_default();
        let events = events
            .iter()
            .filter_map(|event| format.to_value(event))
            .collect();
        return Ok(Json(EventPage {
            events,
            next_after,
            has_more,
        })
        .into_response());
    }
    let after = resume.unwrap_or(after);
    let rx = state.hub.subscribe(&id).await;
    let stream = in_format(
        session_stream(std::sync::Arc::clone(&state.store), id, rx, after),
        query.format.unwrap_or_default(),
    );
    Ok(sse_response(
        stream,
        state.config.keep_alive,
        state.config.stream_coalesce,
    ))
}

/// An SSE response: messages that are ready together go out in one chunk; a `: keep-alive`
/// comment goes out whenever nothing was sent for `keep_alive`; after each write, what arrives
/// within `coalesce` goes out together.
fn sse_response(
    stream: impl futures::Stream<Item = StreamItem> + Send + 'static,
    keep_alive: Duration,
    coalesce: Duration,
) -> Response {
    (
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
            (
                axum::http::HeaderName::from_static("x-accel-buffering"),
                "no",
            ),
        ],
        Body::from_stream(SseBody::new(stream, keep_alive, coalesce)),
    )
        .into_response()
}

/// The session's events over a WebSocket: one text frame per event, control frames for
/// `reload` and `lagged`.
///
/// The request must be a WebSocket handshake (RFC 6455 §4.1): the `Upgrade`, `Connection`,
/// `Sec-WebSocket-Version` and `Sec-WebSocket-Key` headers are required, and a plain `GET`
/// without them is answered `400`.
#[utoipa::path(get, path = "/v1/sessions/{id}/ws", operation_id = "sessionWebSocket", tag = "events",
    params(("id" = String, Path, description = "Session id"), WsQuery,
        ("Upgrade" = String, Header, description = "`websocket` (a WebSocket handshake); without it the answer is 400", pattern = "^[Ww][Ee][Bb][Ss][Oo][Cc][Kk][Ee][Tt]$"),
        ("Connection" = String, Header, description = "A list holding the `Upgrade` token", pattern = "^(?:[^,]*,)*[ \\t]*[Uu][Pp][Gg][Rr][Aa][Dd][Ee][ \\t]*(?:,[^,]*)*$"),
        ("Sec-WebSocket-Version" = String, Header, description = "`13`", pattern = "^13$"),
        ("Sec-WebSocket-Key" = String, Header, description = "16 random bytes in base64", pattern = "^[A-Za-z0-9+/]{21}[AQgw]==$")),
    security(("bearer" = []), ("stream_token" = [])),
    responses(
        (status = 101, description = "Switching to WebSocket"),
        (status = 400, description = "Not a WebSocket handshake (no `Upgrade: websocket`, `Connection: Upgrade`, `Sec-WebSocket-Version: 13` or `Sec-WebSocket-Key`), or a bad query (an unknown `format`)", body = ErrorBody),
        (status = 401, description = "No or bad token", body = ErrorBody),
        (status = 404, description = "Unknown session", body = ErrorBody)))]
pub async fn ws(
    State(state): State<SharedState>,
    caller: StreamCaller,
    ApiPath(id): ApiPath<String>,
    ApiQuery(query): ApiQuery<WsQuery>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let scope = caller.session_scope(&state, &id)?;
    state.visible_session(&scope, &id).await?;
    let after = seq_after(query.after)?;
    let upgrade = upgrade.map_err(|e| ApiError::bad_request(e.body_text()))?;
    check_websocket_key(&headers)?;
    let rx = state.hub.subscribe(&id).await;
    let store = std::sync::Arc::clone(&state.store);
    let keep_alive = state.config.keep_alive;
    let format = query.format.unwrap_or_default();
    Ok(upgrade.on_upgrade(move |socket| {
        serve_ws(
            socket,
            in_format(session_stream(store, id, rx, after), format),
            keep_alive,
        )
    }))
}

/// RFC 6455 §4.1: `Sec-WebSocket-Key` is 16 bytes in base64 (the extractor only checks that
/// it is there), as the API document says.
fn check_websocket_key(headers: &HeaderMap) -> ApiResult<()> {
    use base64::Engine as _;
    let key = headers
        .get("sec-websocket-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let decoded = base64::engine::general_purpose::STANDARD.decode(key.trim());
    match decoded {
        Ok(bytes) if bytes.len() == 16 => Ok(()),
        _ => Err(ApiError::bad_request(
            "`Sec-WebSocket-Key` must be 16 bytes in base64 (RFC 6455 §4.1)",
        )),
    }
}

async fn serve_ws(
    socket: WebSocket,
    stream: impl futures::Stream<Item = StreamItem> + Send,
    keep_alive: Duration,
) {
    let (mut sink, mut incoming) = socket.split();
    let mut stream = std::pin::pin!(stream.ready_chunks(WS_BATCH));
    let mut ping = tokio::time::interval(keep_alive);
    ping.tick().await;
    'serve: loop {
        tokio::select! {
            items = stream.next() => {
                let Some(items) = items else { break };
                let mut last = false;
                for item in items {
                    let texts: Vec<String> = match item {
                        StreamItem::Event(frame) => vec![frame.json.to_string()],
                        StreamItem::Batch(batch) => batch
                            .frames
                            .iter()
                            .filter(|f| !f.display_only)
                            .map(|f| f.json.to_string())
                            .collect(),
                        StreamItem::Reload { oldest_seq } => vec![json!({
                            "control": "reload", "reason": "retention", "oldest_seq": oldest_seq
                        })
                        .to_string()],
                        StreamItem::Lagged { after_seq } => {
                            last = true;
                            vec![json!({"control": "lagged", "after_seq": after_seq}).to_string()]
                        }
                        StreamItem::Failed { message } => {
                            last = true;
                            vec![json!({"control": "error", "message": message}).to_string()]
                        }
                    };
                    for text in texts {
                        if sink.feed(Message::Text(text.into())).await.is_err() {
                            return;
                        }
                    }
                }
                if sink.flush().await.is_err() {
                    return;
                }
                if last {
                    break 'serve;
                }
            }
            message = incoming.next() => match message {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
            _ = ping.tick() => {
                if sink.send(Message::Ping(Vec::new().into())).await.is_err() {
                    return;
                }
            }
        }
    }
    let _ = sink.send(Message::Close(None)).await;
}

/// The `after` query parameter (0 when absent); past the largest seq a store can hold is a
/// bad request, as the API document says.
fn seq_after(after: Option<u64>) -> ApiResult<u64> {
    let after = after.unwrap_or(0);
    if after > i64::MAX as u64 {
        return Err(ApiError::bad_request(
            "`after` must be at most 9223372036854775807",
        ));
    }
    Ok(after)
}
