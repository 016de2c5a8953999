"""Tiny real media files made in code: a PNG image and a WAV sound (standard library only)."""

from __future__ import annotations

import base64
import math
import struct
import zlib
from functools import cache


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


@cache
def png_bytes(size: int = 32) -> bytes:
    """A ``size`` x ``size`` RGBA PNG: a diagonal gradient with a white ring."""
    rows = bytearray()
    centre = (size - 1) / 2
    for y in range(size):
        rows.append(0)  # filter type "none" for this scanline
        for x in range(size):
            dist = math.hypot(x - centre, y - centre)
            if abs(dist - size * 0.35) < 1.2:
                rows += bytes((255, 255, 255, 255))
            else:
                rows += bytes((x * 255 // size, y * 255 // size, 160, 255))
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + _chunk(b"IEND", b"")
    )


@cache
def wav_bytes(seconds: float = 0.25, freq: float = 440.0, rate: int = 8000) -> bytes:
    """A mono 16-bit PCM WAV with a sine tone."""
    count = int(seconds * rate)
    frames = b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * freq * i / rate)))
        for i in range(count)
    )
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(frames)) + frames
    return b"RIFF" + struct.pack("<I", len(body)) + body


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def png_b64() -> str:
    return b64(png_bytes())


def wav_b64() -> str:
    return b64(wav_bytes())


def png_data_uri() -> str:
    return "data:image/png;base64," + png_b64()
