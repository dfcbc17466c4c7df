"""`wikimem serve`: the wiki in a browser, on 127.0.0.1 only, read-only."""

from __future__ import annotations

import click

from wikimem.cli.context import Ctx, cli, pass_ctx, workspace_option


@cli.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
@workspace_option
@pass_ctx
def serve(ctx: Ctx, port: int) -> None:
    """Browse the wiki in a web browser: PROFILE, topics and leaves with working links, search,
    each entry's provenance and history, and the timeline as a picture. Local only
    (127.0.0.1) and read-only; Ctrl-C stops it."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from wikimem.errors import NotFound
    from wikimem.recall.site import Site

    places = ctx.found
    if not places.wiki.is_dir():
        raise NotFound(f"no wiki in {places.workspace}: run `wikimem init` first")
    site = Site(places, ctx.settings)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (the name http.server calls)
            answer = site.respond(self.path)
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.kind)
            self.send_header("Content-Length", str(len(answer.body)))
            # the view runs no script and loads nothing from elsewhere
            self.send_header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'",
            )
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(answer.body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass  # quiet: a person reads the page, not the access log

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    bound = server.server_address[1]
    click.echo(
        f"wikimem: serving {places.wiki} at http://127.0.0.1:{bound}/ (Ctrl-C stops)", err=False
    )
    import sys

    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
