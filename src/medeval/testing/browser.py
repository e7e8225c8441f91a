"""A headless Chromium driven over the DevTools protocol on a pipe, for the report's browser tests and
benchmark: no network port, no extra package.

Chromium reads commands from fd 3 and writes replies and events to fd 4 (`--remote-debugging-pipe`),
one JSON message per NUL-terminated chunk. Every page request is recorded from the Network domain, so
a test can assert that an offline page asks for nothing.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
REPLY_SECONDS = 60.0


class BrowserError(RuntimeError):
    pass


class Browser:
    def __init__(self, profile: Path, *, width: int = 1400, height: int = 1000, chromium: Path = CHROMIUM):
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def wire() -> None:  # in the child: the pipes become fds 3 and 4, inheritable
            high_in = fcntl.fcntl(to_child, fcntl.F_DUPFD, 10)
            high_out = fcntl.fcntl(from_child, fcntl.F_DUPFD, 10)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        self.process = subprocess.Popen(
            [
                str(chromium),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session = ""
        self.width, self.height = width, height

    # Protocol ------------------------------------------------------------------------------------
    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._read], [], [], REPLY_SECONDS)
            if not ready:
                raise BrowserError("chromium did not answer")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if self.session and not browser:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._message()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, event: str, **params: Any) -> dict[str, Any]:
        """The first `event` (seen already or next) whose params include `params`."""

        def hit(message: dict[str, Any]) -> bool:
            got = message.get("params", {})
            return message.get("method") == event and all(got.get(k) == v for k, v in params.items())

        for index, seen in enumerate(self.events):
            if hit(seen):
                return self.events.pop(index)
        while True:
            message = self._message()
            if hit(message):
                return message
            if "method" in message:
                self.events.append(message)

    # Page ------------------------------------------------------------------------------------------
    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, browser=True
        )
        self.session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
        )
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise is awaited)."""
        result = self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the first element matching `selector`."""
        # Measured two frames after the scroll: rows drawn on scroll (content-visibility) may resize
        # and move the target first.
        box = self.evaluate(
            f"new Promise(function (done) {{ var e = document.querySelector({json.dumps(selector)}); "
            "e.scrollIntoView({block: 'center'}); requestAnimationFrame(function () { "
            "requestAnimationFrame(function () { var r = e.getBoundingClientRect(); "
            "done([r.x + r.width / 2, r.y + r.height / 2]); }); }); })"
        )
        self.click_at(box[0], box[1])

    def click_at(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}
            )

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code},
            )

    def screenshot(self, path: Path) -> None:
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))

    def requests(self) -> list[str]:
        """Every URL the page asked for so far."""
        while True:
            ready, _, _ = select.select([self._read], [], [], 0)
            if not ready and b"\0" not in self._buffer:
                break
            self.events.append(self._message())
        return [
            e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"
        ]

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close", browser=True)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read)
        os.close(self._write)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
