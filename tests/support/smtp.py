"""A real SMTP server on loopback for e-mail tests (aiosmtpd), keeping what it received."""
from __future__ import annotations

import socket

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message


class _Keep(Message):
    def __init__(self):
        super().__init__()
        self.received = []

    def handle_message(self, message):
        self.received.append(message)


class SmtpServer:
    """`start()` on a free port; `.port`, `.received` (email.message.Message list); `stop()`."""

    def __init__(self):
        with socket.socket() as s:  # port=0 would leave Controller.port at 0
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.handler = _Keep()
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)

    @property
    def received(self) -> list:
        return self.handler.received

    def start(self) -> SmtpServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()
