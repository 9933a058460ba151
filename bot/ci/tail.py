"""A log stream that keeps its last bytes as it is read: what a family answer reads when no failure is
recognised (the log's final error), without reading the log twice or holding all of it."""

from __future__ import annotations

from typing import BinaryIO


class Tail:
    """Reads through ``stream``, keeping the last ``keep`` bytes read."""

    def __init__(self, stream: BinaryIO, keep: int) -> None:
        self.stream = stream
        self.keep = keep
        self._last = bytearray()

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self._last += data[-self.keep :]  # no more of a chunk than is kept (a chunk is megabytes)
        if len(self._last) > 2 * self.keep:  # trimmed now and then, not on every read
            del self._last[: len(self._last) - self.keep]
        return data

    def text(self) -> str:
        """The last ``keep`` bytes read, as text (a character cut in two at the start is replaced)."""
        return bytes(self._last[-self.keep :]).decode("utf-8", "replace")
