"""schemathesis hooks for `cargo xtask api-test` (xtask/src/api_test.rs).

`GET /v1/sessions/{id}/ws` answers a schema-valid request with 101 Switching Protocols, after
which the connection speaks WebSocket: the server pushes the session's events as frames.
`requests` treats a 1xx answer as a finished response with no body and puts its connection
back in the pool, so the next generated request would be sent on a WebSocket and read a frame
as its status line ("Connection aborted"). A connection that switched protocols is closed
here instead, as a WebSocket client would own it, and the next request opens a fresh one.
"""

import schemathesis


def _close_switched_connection(response, *args, **kwargs):
    if response.status_code == 101:
        response.raw.close()
    return response


@schemathesis.hook
def before_call(context, case, kwargs):
    hooks = kwargs.setdefault("hooks", {})
    hooks.setdefault("response", []).append(_close_switched_connection)
