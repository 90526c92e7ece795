"""Image files -> pixels, within the machine's means.

A photo's size is read from its header before any decoding: one over
:data:`companion.limits.MAX_IMAGE_PIXELS` is refused in one line, and a JPEG over
:data:`companion.limits.READ_FULL_PIXELS` is decoded at 1/2, 1/4 or 1/8 of its size, which
libjpeg does without ever holding the whole picture.  Only regular files are opened (a named
pipe would block forever).  Formats whose header is not read here are still capped by
OpenCV's own limit, which :mod:`companion` sets to the same figure.
"""
from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np

from companion.errors import UserError
from companion.limits import MAX_IMAGE_PIXELS, READ_FULL_PIXELS, regular_file

HEADER_BYTES = 1 << 16
"""Bytes read to find a JPEG's frame header (it follows the metadata, which may be long)."""
_REDUCED = ((2, cv2.IMREAD_REDUCED_COLOR_2), (4, cv2.IMREAD_REDUCED_COLOR_4), (8, cv2.IMREAD_REDUCED_COLOR_8))


def image_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from the first bytes of a PNG, JPEG, GIF, BMP or WebP file; None for another format."""
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return struct.unpack("<HH", head[6:10])
    if head.startswith(b"BM") and len(head) >= 26:
        width, height = struct.unpack("<ii", head[18:26])
        return abs(width), abs(height)
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP" and len(head) >= 30:
        return _webp_size(head)
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(head)
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    kind = head[12:16]
    if kind == b"VP8X":
        return 1 + int.from_bytes(head[24:27], "little"), 1 + int.from_bytes(head[27:30], "little")
    if kind == b"VP8L":
        bits = int.from_bytes(head[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if kind == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    """The size in a JPEG's start-of-frame marker (any of SOF0-SOF15 but DHT, JPG and DAC)."""
    at = 2
    while at + 9 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            at += 2
            continue
        length = struct.unpack(">H", head[at + 2:at + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", head[at + 5:at + 9])
            return width, height
        at += 2 + length
    return None


def load_scaled_image(path, full_pixels: int = READ_FULL_PIXELS) -> tuple[np.ndarray, float]:
    """(pixels, scale): the image file decoded (BGR, 8 or 16 bit), reduced when it has over
    ``full_pixels`` pixels; ``scale`` is the decoded size over the file's size (1.0 when whole).

    UserError in one line for a missing, empty, non-regular, too big or undecodable file.
    """
    path = Path(path)
    regular_file(path, "image")
    try:
        with open(path, "rb") as file:
            head = file.read(HEADER_BYTES)
            data = np.frombuffer(head + file.read(), dtype=np.uint8)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data.size == 0:
        raise UserError(f"cannot read {path}: the file is empty")
    size = image_size(head)
    if size is not None and size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise UserError(f"cannot read {path}: it is {size[0]}x{size[1]} pixels, over the reader's limit of "
                        f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels")
    flags, scale = cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH, 1.0
    if size is not None and head.startswith(b"\xff\xd8") and size[0] * size[1] > full_pixels:
        factor, flags = next(((f, flag) for f, flag in _REDUCED if size[0] * size[1] <= full_pixels * f * f),
                             _REDUCED[-1])
        scale = 1.0 / factor
    try:
        image = cv2.imdecode(data, flags)
    except cv2.error:
        image = None
    if image is None:
        raise UserError(f"cannot read {path}: not an image file OpenCV can decode (or over "
                        f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels)")
    if scale == 1.0 and image.shape[0] * image.shape[1] > full_pixels:
        scale = (full_pixels / (image.shape[0] * image.shape[1])) ** 0.5
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    elif size is not None and scale != 1.0:
        scale = image.shape[1] / size[0]
    return image, scale


def load_image(path) -> np.ndarray:
    """The image file's pixels at their full size (see :func:`load_scaled_image` for the checks)."""
    return load_scaled_image(path, full_pixels=MAX_IMAGE_PIXELS)[0]
