"""What the reader returns: one :class:`DieReading` per die found in a frame."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from companion.engine import Die


@dataclass(frozen=True)
class DieReading:
    """One die as read from a frame.

    ``value`` is None when the reader cannot tell the pips at all; ``colour`` is None when
    the die's colour matches no palette colour.  ``center`` and ``bbox`` (x, y, w, h)
    are in the frame's pixels; ``confidence`` is 0..1.  ``value_unsure`` and ``colour_unsure``
    flag a best guess the reader doubts (a player should confirm it before it is used); a die
    without a value is always value-unsure.  ``symbol`` marks a die whose top face shows a maker's
    symbol instead of pips: it has no value unless "learn my dice" learnt which number the player's
    symbol stands for (``ReaderParams.symbol_value``); else the player says.
    """

    value: int | None
    colour: str | None
    center: tuple[float, float]
    bbox: tuple[float, float, float, float]
    confidence: float
    value_unsure: bool = False
    colour_unsure: bool = False
    symbol: bool = False

    def __post_init__(self):
        if self.value is None and not self.value_unsure:
            object.__setattr__(self, "value_unsure", True)

    @property
    def certain(self) -> bool:
        return self.value is not None

    @property
    def value_text(self) -> str:
        """The value as a player reads it: the number, "symbol" for a symbol face not yet given one, else "?"."""
        return str(self.value) if self.value is not None else "symbol" if self.symbol else "?"

    def needs_check(self, colours_matter: bool = True) -> bool:
        """Whether a player should confirm this die before it is used (its colour only when ``colours_matter``)."""
        return self.value_unsure or (colours_matter and self.colour_unsure)

    def confirmed(self, **changes) -> DieReading:
        """The die as a player confirmed (or corrected) it: sure of everything."""
        return replace(self, **changes, confidence=1.0, value_unsure=False, colour_unsure=False)

    def to_die(self) -> Die | None:
        """The die for the rules engine, or None while its value is uncertain."""
        return Die(self.value, self.colour) if self.value is not None else None

    def scaled(self, factor: float) -> DieReading:
        """The same die with its position in a frame ``factor`` times as big."""
        x, y, w, h = self.bbox
        return replace(self, center=(self.center[0] * factor, self.center[1] * factor),
                       bbox=(x * factor, y * factor, w * factor, h * factor))

    def moved(self, dx: float, dy: float) -> DieReading:
        """The same die with its position moved by (dx, dy) pixels (from a part of a frame to the frame)."""
        x, y, w, h = self.bbox
        return replace(self, center=(self.center[0] + dx, self.center[1] + dy), bbox=(x + dx, y + dy, w, h))

    def to_json(self) -> dict:
        return {
            "value": self.value,
            "colour": self.colour,
            "center": [round(float(c), 1) for c in self.center],
            "bbox": [round(float(c), 1) for c in self.bbox],
            "confidence": round(float(self.confidence), 3),
            "unsure": [what for what, flag in (("value", self.value_unsure), ("colour", self.colour_unsure)) if flag],
            "symbol": self.symbol,
        }


@dataclass(frozen=True)
class Reading:
    """Every die read from one frame, and how long the reading took."""

    dice: tuple[DieReading, ...] = ()
    ms: float = 0.0
    image: str | None = None
    error: str | None = field(default=None)
    sure_finds: int = 0  # places the finder took surely for a die, read as dice or not (the reader's own use)

    def to_json(self) -> dict:
        out: dict = {"image": self.image, "dice": [d.to_json() for d in self.dice], "ms": round(self.ms, 2)}
        if self.error:
            out["error"] = self.error
        return out
