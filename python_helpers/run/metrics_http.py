"""A watch's ``/metrics``: the Prometheus text of its state folder
(``prometheus``), served over HTTP from a thread of the watch.

On 127.0.0.1 by default, like the watch's Thrift endpoint. Another address
only when given (``--metrics-host``): the text names the topics and their
counts, never a row, and HTTP here has no authentication — the watch says
so when it starts. A port already taken leaves the watch running without
``/metrics`` (said once). A scrape is answered from the textfile the last
cycle wrote; a client's error is the client's (nothing in the watch's
output).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from python_helpers.run import prometheus


def _handler(state: Path) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server protocol
            if self.path.split("?", 1)[0] != "/metrics":
                self.send_error(404, "only /metrics is served here")
                return
            body = prometheus.current_text(state).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", prometheus.CONTENT_TYPE)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return  # scrapes are not the watch's news

    return Handler


def serve(state: Path, host: str, port: int) -> ThreadingHTTPServer | None:
    """Serve ``/metrics`` on ``host:port`` from a daemon thread; None (and
    a line saying why) when the port cannot be bound."""
    try:
        server = ThreadingHTTPServer((host, port), _handler(state))
    except OSError as error:
        print(f"not serving /metrics on {host}:{port}: {error}", flush=True)
        return None
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="metrics-http", daemon=True).start()
    return server
