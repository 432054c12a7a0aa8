"""Screenshots of an `audit view` page in headless Chromium at the widths the page is checked at,
and one as a deuteranope sees it: the pictures of docs/view.md.

    audit view --run s2-npo --output /tmp/s2-npo.html
    PYTHONPATH=tests .venv/bin/python tests/audit/views/view_screenshots.py /tmp/s2-npo.html docs/images

writes ``view-1024.png``, ``view-1400.png``, ``view-1920.png`` and ``view-1400-deuteranopia.png``
(the 1400 px picture through Machado et al.'s deuteranopia matrix, colour_vision.py).
tests/audit/views/test_view.py uses ``open_at`` and ``WIDTHS`` for its own checks.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from browser import Chromium
from colour_vision import simulate_png

WIDTHS = (1024, 1400, 1920)
HEIGHT = 900
READY = "window.auditView && (window.auditView.ready || window.auditView.error !== null)"


def open_at(page, path: Path, width: int, height: int = HEIGHT, timeout: float = 120) -> dict:
    """Load the page in a ``width`` x ``height`` window and wait for its layout; returns
    window.auditView's state."""
    page.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    page.navigate(Path(path).resolve().as_uri())
    page.wait_for(READY, timeout=timeout)
    page.evaluate("new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))", await_promise=True)
    return page.evaluate("({ready: auditView.ready, error: auditView.error, nodes: auditView.nodes, "
                         "edges: auditView.edges, layout: auditView.layout})")


def screenshots(page, path: Path, folder: Path, show: str | None = None) -> list[Path]:
    """``view-<width>.png`` for each of ``WIDTHS`` and ``view-1400-deuteranopia.png`` in ``folder``;
    ``show``: the key of an edge whose details are pinned first."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for width in WIDTHS:
        state = open_at(page, path, width)
        if state["error"] is not None:
            raise RuntimeError(f"{path}: the page failed at {width} px: {state['error']}")
        if show is not None and not page.evaluate(f"auditView.show({show!r})"):
            raise ValueError(f"{path}: no edge or entity {show!r} on the page")
        out.append(page.screenshot(folder / f"view-{width}.png"))
    out.append(simulate_png(folder / "view-1400.png", folder / "view-1400-deuteranopia.png", "deuteranopia"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="an HTML page written by `audit view`")
    parser.add_argument("folder", type=Path, help="where the PNG files go (docs/images)")
    parser.add_argument("--show", default=None, help="pin the details of this edge key first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as profile, Chromium(Path(profile), width=1400, height=HEIGHT) as chromium:
        page = chromium.page()
        page.send("Page.enable")
        for shot in screenshots(page, args.page, args.folder, args.show):
            print(shot)
        page.close()


if __name__ == "__main__":
    main()
