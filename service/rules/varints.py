"""Unsigned LEB128 varints and zigzag signed numbers: the integers of an archived record (archive.py)."""

from __future__ import annotations


class Truncated(ValueError):
    """The bytes end in the middle of a number or a field."""


def put(out: bytearray, n: int) -> None:
    """Append ``n`` (>= 0) to ``out``: seven bits a byte, low bits first, the high bit set on all but the last."""
    if n < 0:
        raise ValueError("a varint is unsigned")
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return


def zigzag(n: int) -> int:
    """A signed number as an unsigned one: 0, -1, 1, -2, 2 ... become 0, 1, 2, 3, 4 ..."""
    return n * 2 if n >= 0 else -n * 2 - 1


def unzigzag(n: int) -> int:
    """The signed number ``zigzag`` made ``n`` of."""
    return n >> 1 if not n & 1 else -((n + 1) >> 1)


class Reader:
    """Reads varints and fields from bytes, in order; Truncated if they end too soon."""

    def __init__(self, data: bytes):
        self.data = data
        self.at = 0

    def varint(self) -> int:
        n = shift = 0
        while True:
            if self.at >= len(self.data):
                raise Truncated("the bytes end in the middle of a number")
            byte = self.data[self.at]
            self.at += 1
            n |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return n

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes."""
        if self.at + n > len(self.data):
            raise Truncated("the bytes end in the middle of a field")
        chunk = self.data[self.at: self.at + n]
        self.at += n
        return chunk
