"""Serve this folder (the Browser stylesheet and guide) to Neo4j Browser, with the CORS header
Browser needs to fetch a guide from another origin. Standard library only; run by compose's
`browser-files` service, or by hand: python docker/neo4j/serve.py --port 8001."""

import argparse
import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class CORSHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".grass": "text/plain", ".html": "text/html"}

    def do_OPTIONS(self):
        """The CORS preflight Browser sends before it fetches a guide (`:guide URL`, `:play URL`):
        without an answer (the standard handler has none: 501) the guide never loads."""
        self.send_response(204)
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", self.headers.get("Access-Control-Request-Headers", "*"))
        self.send_header("Access-Control-Max-Age", "600")
        self.end_headers()

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args()
    handler = functools.partial(CORSHandler, directory=str(Path(__file__).resolve().parent))
    ThreadingHTTPServer((args.host, args.port), handler).serve_forever()


if __name__ == "__main__":
    main()
