"""Pictures with no dice in them, for counting what the reader takes for a die where there is none.

Things that lie on a game table and look a little like dice: printed text and numbers, checkerboards,
a board's round number tokens, coins, wooden cubes and meeples, domino-like pip prints, and stains on
the tray.  Each picture is drawn from a seed on one of the synthetic renderer's table surfaces, under
a random light level, so a set of them is the same on every machine.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synth import BACKGROUNDS, _background

KINDS = ("text", "checkerboard", "number tokens", "coins", "cubes and meeples", "pip prints", "stains")
WORDS = ("harvest", "market", "round", "score", "cheese", "turn", "milk", "colony", "derby", "farm", "bonus")


def render_negative(seed: int, kind: str, size: tuple[int, int] = (960, 720)) -> np.ndarray:
    """A BGR picture of ``kind`` (one of :data:`KINDS`) on a table, without any die."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
    rng = np.random.default_rng(seed)
    w, h = size
    img = _background(rng, w, h, str(rng.choice(list(BACKGROUNDS))))
    {"text": _text, "checkerboard": _checkerboard, "number tokens": _tokens, "coins": _coins,
     "cubes and meeples": _cubes_and_meeples, "pip prints": _pip_prints, "stains": _stains}[kind](rng, img)
    img *= rng.uniform(0.6, 1.15)
    img += rng.standard_normal(img.shape).astype(np.float32) * 2.0
    return np.clip(img, 0, 255).astype(np.uint8)


def negative_set(count: int = 30, seed: int = 0) -> list[tuple[str, np.ndarray]]:
    """``count`` pictures as (kind, image), the kinds taken in turn."""
    return [(KINDS[i % len(KINDS)], render_negative(seed + i, KINDS[i % len(KINDS)])) for i in range(count)]


def _ink(rng) -> tuple[float, float, float]:
    return tuple(float(v) for v in rng.choice([(20, 20, 20), (240, 240, 240), (30, 30, 160), (140, 40, 20)]))


def _text(rng, img) -> None:
    h, w = img.shape[:2]
    cv2.rectangle(img, (int(w * 0.1), int(h * 0.08)), (int(w * 0.9), int(h * 0.92)), (225, 230, 232), -1)
    y = int(h * 0.15)
    while y < h * 0.88:
        scale = float(rng.uniform(0.6, 2.2))
        line = " ".join(str(rng.choice(WORDS)) if rng.random() < 0.7 else str(rng.integers(1, 7))
                        for _ in range(int(rng.integers(2, 6))))
        cv2.putText(img, line, (int(w * 0.13), y), int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX])),
                    scale, (25, 25, 25), max(1, round(scale * 2)), cv2.LINE_AA)
        y += int(40 * scale + 10)


def _checkerboard(rng, img) -> None:
    h, w = img.shape[:2]
    cell = int(rng.integers(20, 70))
    board = np.zeros((cell * 8, cell * 8, 3), np.float32)
    dark, light = (40, 40, 40), tuple(float(v) for v in rng.choice([(230, 230, 230), (80, 160, 220), (60, 60, 180)]))
    for r in range(8):
        for c in range(8):
            board[r * cell:(r + 1) * cell, c * cell:(c + 1) * cell] = light if (r + c) % 2 else dark
    src = np.float32([[0, 0], [cell * 8, 0], [cell * 8, cell * 8], [0, cell * 8]])
    x0, y0 = rng.uniform(0, max(w - cell * 8, 1)), rng.uniform(0, max(h - cell * 8, 1))
    squeeze = rng.uniform(0, 0.25) * cell * 8
    dst = np.float32([[x0 + squeeze, y0], [x0 + cell * 8 - squeeze, y0], [x0 + cell * 8, y0 + cell * 8], [x0, y0 + cell * 8]])
    warped = cv2.warpPerspective(board, cv2.getPerspectiveTransform(src, dst), (w, h))
    mask = cv2.warpPerspective(np.ones(board.shape[:2], np.float32), cv2.getPerspectiveTransform(src, dst), (w, h))[..., None]
    img[:] = img * (1 - mask) + warped * mask


def _tokens(rng, img) -> None:
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(6, 14))):
        r = int(rng.uniform(22, 45))
        x, y = int(rng.uniform(r, w - r)), int(rng.uniform(r, h - r))
        cv2.circle(img, (x, y), r, (200, 225, 235), -1, cv2.LINE_AA)
        number = str(int(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12])))
        scale = r / 28
        (tw, th), _ = cv2.getTextSize(number, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
        cv2.putText(img, number, (x - tw // 2, y + th // 2), cv2.FONT_HERSHEY_DUPLEX, scale,
                    (30, 30, 170) if number in ("6", "8") else (20, 20, 20), 2, cv2.LINE_AA)
        for k in range(int(rng.integers(1, 6))):  # the odds dots under the number
            cv2.circle(img, (x - 12 + 6 * k, y + int(r * 0.6)), 2, (20, 20, 20), -1, cv2.LINE_AA)


def _coins(rng, img) -> None:
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(5, 12))):
        r = int(rng.uniform(15, 40))
        x, y = int(rng.uniform(r, w - r)), int(rng.uniform(r, h - r))
        metal = np.array(rng.choice([(60, 140, 190), (170, 170, 175), (50, 100, 150)]), np.float32)
        for k in range(r, 0, -1):  # a gentle shine towards one side
            shade = metal * (0.75 + 0.45 * (1 - k / r))
            cv2.circle(img, (x - (r - k) // 3, y - (r - k) // 3), k, tuple(float(v) for v in np.clip(shade, 0, 255)), -1)
        cv2.circle(img, (x, y), int(r * 0.8), tuple(float(v) for v in metal * 0.6), 1, cv2.LINE_AA)


def _cubes_and_meeples(rng, img) -> None:
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(6, 14))):
        side = rng.uniform(20, 60)
        colour = tuple(float(v) for v in rng.choice([(30, 30, 200), (40, 160, 40), (200, 80, 30), (30, 200, 230),
                                                     (230, 230, 230), (30, 30, 30)]))
        x, y, angle = rng.uniform(side, w - side), rng.uniform(side, h - side), rng.uniform(0, 90)
        if rng.random() < 0.5:
            box = cv2.boxPoints(((x, y), (side, side), angle)).astype(np.int32)
            cv2.fillConvexPoly(img, box, colour, cv2.LINE_AA)
        else:  # a meeple: head, arms and legs
            s = side / 2
            pts = [(0, -1.0), (0.35, -0.7), (0.3, -0.4), (1.0, -0.2), (0.9, 0.1), (0.45, 0.1), (0.8, 1.0), (0.15, 1.0),
                   (0, 0.6), (-0.15, 1.0), (-0.8, 1.0), (-0.45, 0.1), (-0.9, 0.1), (-1.0, -0.2), (-0.3, -0.4), (-0.35, -0.7)]
            rot = math.radians(angle)
            poly = np.array([(x + s * (px * math.cos(rot) - py * math.sin(rot)), y + s * (px * math.sin(rot) + py * math.cos(rot)))
                             for px, py in pts], np.int32)
            cv2.fillPoly(img, [poly], colour, cv2.LINE_AA)


def _pip_prints(rng, img) -> None:
    """Domino halves and printed pip patterns on cards: dots in dice layouts, but flat and not in a die."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(3, 7))):
        side = rng.uniform(40, 80)
        x, y = rng.uniform(side, w - 2 * side), rng.uniform(side, h - side)
        cv2.rectangle(img, (int(x), int(y)), (int(x + 2 * side), int(y + side)), (235, 235, 235), -1, cv2.LINE_AA)
        cv2.line(img, (int(x + side), int(y + 4)), (int(x + side), int(y + side - 4)), (30, 30, 30), 2)
        for half in range(2):
            for _ in range(int(rng.integers(0, 7))):
                px, py = x + half * side + rng.uniform(0.2, 0.8) * side, y + rng.uniform(0.2, 0.8) * side
                cv2.circle(img, (int(px), int(py)), max(2, int(side / 12)), (20, 20, 20), -1, cv2.LINE_AA)


def _stains(rng, img) -> None:
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(4, 10))):
        r = rng.uniform(10, 60)
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        mask = np.zeros((h, w), np.float32)
        cv2.ellipse(mask, ((x, y), (r * rng.uniform(1, 2.5), r), rng.uniform(0, 180)), 1.0, -1, cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), r / 4)[..., None]
        img *= 1 - mask * rng.uniform(0.2, 0.5) * np.array(rng.choice([(1, 1, 1), (1.0, 0.7, 0.5), (0.6, 0.8, 1.0)]), np.float32)
