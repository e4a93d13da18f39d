//! Standard input and output as an MCP transport: one JSON-RPC message per line. Unlike a plain
//! line codec, a line that is not a message is answered rather than dropped: not JSON is a
//! parse error (-32700), not a JSON-RPC message an invalid request (-32600), a known MCP
//! request with parameters of the wrong shape an invalid-params error (-32602) naming what is
//! wrong. Broken notifications get no answer (JSON-RPC forbids one). The server keeps serving.

use std::pin::Pin;

use futures::{Sink, Stream};
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, ErrorCode, ErrorData, JsonRpcError, JsonRpcMessage,
    RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::mpsc;

/// Requests of the MCP client side whose parameters rmcp types: when one fails to parse, rmcp
/// would see an unknown custom method.
const MCP_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// What one input line is.
#[derive(Debug)]
pub(crate) enum Line {
    /// A message for the server.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not a message: the error to answer with (`None`: nothing to answer, e.g. a blank line
    /// or a broken notification).
    Rejected(Option<JsonRpcError>),
}

/// Reads `line` (without its line ending).
pub(crate) fn classify(line: &str) -> Line {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.is_empty() {
        return Line::Rejected(None);
    }
    let value: Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => {
            return Line::Rejected(Some(error(
                None,
                ErrorCode::PARSE_ERROR,
                format!(
                    "parse error: the line is not JSON ({e}); send one JSON-RPC message per line"
                ),
            )));
        }
    };
    let id: Option<RequestId> = value
        .get("id")
        .and_then(|id| serde_json::from_value(id.clone()).ok());
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) {
        Ok(JsonRpcMessage::Request(request)) => {
            if let ClientRequest::CustomRequest(custom) = &request.request
                && MCP_METHODS.contains(&custom.method.as_str())
            {
                let detail = match custom.method.as_str() {
                    "tools/call" => serde_json::from_value::<CallToolRequestParams>(
                        value.get("params").cloned().unwrap_or(Value::Null),
                    )
                    .err()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default(),
                    _ => String::new(),
                };
                return Line::Rejected(Some(error(
                    Some(request.id.clone()),
                    ErrorCode::INVALID_PARAMS,
                    format!("invalid params for `{}`{detail}", custom.method),
                )));
            }
            Line::Message(Box::new(JsonRpcMessage::Request(request)))
        }
        Ok(message) => Line::Message(Box::new(message)),
        Err(e) => match (id, method) {
            // A notification: nobody waits for an answer.
            (None, Some(_)) => Line::Rejected(None),
            (id, _) => Line::Rejected(Some(error(
                id,
                ErrorCode::INVALID_REQUEST,
                format!("invalid request: not a JSON-RPC 2.0 message MCP knows ({e})"),
            ))),
        },
    }
}

fn error(id: Option<RequestId>, code: ErrorCode, message: String) -> JsonRpcError {
    JsonRpcError::new(id, ErrorData::new(code, message, None))
}

/// The sink the server writes messages into.
pub(crate) type MessageSink =
    Pin<Box<dyn Sink<TxJsonRpcMessage<RoleServer>, Error = std::io::Error> + Send>>;
/// The stream of messages the server reads.
pub(crate) type MessageStream = Pin<Box<dyn Stream<Item = RxJsonRpcMessage<RoleServer>> + Send>>;

/// A transport over `input` and `output` (standard input and output for `keel mcp serve`).
pub(crate) fn line_transport(
    input: impl AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> (MessageSink, MessageStream) {
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = rx.recv().await {
            let written = async {
                output.write_all(line.as_bytes()).await?;
                output.write_all(b"\n").await?;
                output.flush().await
            };
            if written.await.is_err() {
                break;
            }
        }
    });
    let out = tx.clone();
    let sink = futures::sink::unfold(
        out,
        |out, message: TxJsonRpcMessage<RoleServer>| async move {
            let line = serde_json::to_string(&message).map_err(std::io::Error::other)?;
            out.send(line).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "output closed")
            })?;
            Ok::<_, std::io::Error>(out)
        },
    );
    let lines = BufReader::new(input).lines();
    let stream = futures::stream::unfold((lines, tx), |(mut lines, tx)| async move {
        loop {
            match lines.next_line().await {
                Ok(Some(line)) => match classify(&line) {
                    Line::Message(message) => return Some((*message, (lines, tx))),
                    Line::Rejected(Some(reply)) => {
                        if let Ok(text) = serde_json::to_string(&reply) {
                            let _ = tx.send(text);
                        }
                    }
                    Line::Rejected(None) => {}
                },
                // End of input, or input that is not UTF-8 text: the client is gone or broken.
                Ok(None) | Err(_) => return None,
            }
        }
    });
    (Box::pin(sink), Box::pin(stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(line: &str) -> Value {
        match classify(line) {
            Line::Rejected(Some(reply)) => serde_json::to_value(reply).unwrap_or_default(),
            other => panic!("expected an error reply, got {other:?}"),
        }
    }

    #[test]
    fn garbage_is_a_parse_error() {
        let reply = rejected("this is not json");
        assert_eq!(reply["error"]["code"], -32700);
        assert!(reply.get("id").is_none());
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request() {
        let reply = rejected(r#"{"id": 7, "hello": "there"}"#);
        assert_eq!(reply["error"]["code"], -32600);
        assert_eq!(reply["id"], 7);
    }

    #[test]
    fn a_tool_call_with_arguments_of_the_wrong_shape_is_invalid_params() {
        let reply = rejected(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":"x"}}"#,
        );
        assert_eq!(reply["error"]["code"], -32602);
        assert_eq!(reply["id"], 3);
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("tools/call"), "{message}");
    }

    #[test]
    fn blank_lines_and_broken_notifications_get_no_answer() {
        assert!(matches!(classify("   "), Line::Rejected(None)));
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":7}"#),
            Line::Rejected(None) | Line::Message(_)
        ));
    }

    #[test]
    fn messages_pass() {
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            Line::Message(_)
        ));
    }
}
