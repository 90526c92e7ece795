"""Widgets shared by the screens: the live dice view and the score chart."""
from __future__ import annotations

import functools

import numpy as np
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.metrics import dp, sp
from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from vision.synth import DIE_COLOURS

UNCERTAIN_RGBA = (1.0, 0.3, 0.1, 1.0)
CHART_RGBA = [(0.95, 0.75, 0.2, 1), (0.3, 0.65, 0.95, 1), (0.45, 0.85, 0.45, 1), (0.9, 0.45, 0.75, 1),
              (0.95, 0.5, 0.25, 1), (0.6, 0.55, 0.95, 1), (0.75, 0.75, 0.75, 1), (0.3, 0.85, 0.8, 1)]


def colour_rgba(name: str | None) -> tuple[float, float, float, float]:
    """Display colour of a die colour name (grey for an unknown or unread colour)."""
    if name in DIE_COLOURS:
        b, g, r = DIE_COLOURS[name]
        return (r / 255, g / 255, b / 255, 1.0)
    return (0.6, 0.6, 0.6, 1.0)


@functools.cache
def label_texture(text: str):
    """The rendered text of a die label; cached, since text rendering is slow with software GL."""
    label = CoreLabel(text=text, font_size=sp(18), bold=True)
    label.refresh()
    return label.texture


class DiceView(Widget):
    """The live camera picture with each read die outlined and labelled.

    ``dice`` holds :class:`vision.types.DieReading` objects in frame pixels; tapping
    inside a die's outline dispatches ``on_die_tap(index)``, tapping elsewhere on the picture
    ``on_picture_tap(x, y)`` with the place in frame pixels (where a missed die lies).
    ``message`` (what is wrong with the camera) is written across the foot of the picture, or in its place
    while there is none.
    """

    dice = ListProperty([])
    frames_shown = NumericProperty(0)
    frame_size = ListProperty([640, 480])
    texture = ObjectProperty(None, allownone=True)
    message = StringProperty("")

    __events__ = ("on_die_tap", "on_picture_tap")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.canvas.before:
            Color(0.08, 0.08, 0.08, 1)
            self._background = Rectangle(pos=self.pos, size=self.size)
            Color(1, 1, 1, 1)
            self._picture = Rectangle(pos=self.pos, size=(0, 0))
        self._message = Label(font_size=sp(18), color=(1, 0.55, 0.35, 1), halign="center", valign="middle")
        with self._message.canvas.before:
            Color(0, 0, 0, 0.75)
            self._message_ground = Rectangle()
        self.add_widget(self._message)
        self.bind(pos=self._redraw, size=self._redraw, dice=self._redraw, message=self._redraw)

    def show_frame(self, frame: np.ndarray) -> None:
        """Upload an RGB frame to the picture (called on the UI thread).

        Two textures take turns: writing into the one the last frame did not draw lets
        software GL skip waiting for that drawing to finish.
        """
        height, width = frame.shape[:2]
        if self.texture is None or tuple(self.texture.size) != (width, height):
            self._textures = [Texture.create(size=(width, height), colorfmt="rgb") for _ in range(2)]
            for texture in self._textures:
                texture.flip_vertical()
            self.texture = self._textures[0]
            self.frame_size = [width, height]
            self._redraw()
        self.texture = self._textures[1] if self.texture is self._textures[0] else self._textures[0]
        self.texture.blit_buffer(np.ascontiguousarray(frame).tobytes(), colorfmt="rgb", bufferfmt="ubyte")
        self._picture.texture = self.texture
        self.frames_shown += 1

    def _fit(self) -> tuple[float, float, float]:
        """Scale and offset that fit the frame inside the widget, keeping its shape."""
        width, height = self.frame_size
        scale = min(self.width / width, self.height / height) if width and height else 1.0
        return scale, self.x + (self.width - width * scale) / 2, self.y + (self.height - height * scale) / 2

    def frame_to_widget(self, x: float, y: float) -> tuple[float, float]:
        scale, left, bottom = self._fit()
        return left + x * scale, bottom + (self.frame_size[1] - y) * scale

    def widget_to_frame(self, x: float, y: float) -> tuple[float, float] | None:
        """The frame pixel under a point (as a touch gives it), or None when the point is beside the picture."""
        scale, left, bottom = self._fit()
        fx, fy = (x - left) / scale, self.frame_size[1] - (y - bottom) / scale
        return (fx, fy) if 0 <= fx < self.frame_size[0] and 0 <= fy < self.frame_size[1] else None

    def die_rect(self, index: int) -> tuple[float, float, float, float]:
        """A die's outline in window pixels: x, y (bottom-left), width, height."""
        x, y, w, h = self.dice[index].bbox
        scale, _, _ = self._fit()
        left, top = self.frame_to_widget(x, y)
        return left, top - h * scale, w * scale, h * scale

    def _redraw(self, *_args) -> None:
        self._background.pos, self._background.size = self.pos, self.size
        scale, left, bottom = self._fit()
        self._picture.pos = (left, bottom)
        self._picture.size = (self.frame_size[0] * scale, self.frame_size[1] * scale) if self.texture else (0, 0)
        self._place_message()
        self.canvas.after.clear()
        for index, die in enumerate(self.dice):
            x, y, w, h = self.die_rect(index)
            rgba = colour_rgba(die.colour) if die.certain else UNCERTAIN_RGBA
            doubted = die.value_unsure or die.colour_unsure   # what the reader doubts carries a "?"
            value = f"{die.value_text}{'?' if die.value_unsure and die.certain else ''}"
            colour = f"{die.colour}{'?' if die.colour_unsure else ''}" if die.colour else "?"
            text = label_texture(f"{value} {colour}")
            if text.width > w + dp(12):   # a small die in the picture: its value only ("?" for a die without one)
                short = value if die.certain else "?"
                text = label_texture(f"{short}?" if die.colour_unsure and not die.value_unsure else short)
            tx, ty = x + w / 2 - text.width / 2, y + h + dp(1)
            with self.canvas.after:
                Color(0, 0, 0, 0.8)
                Line(rectangle=(x - 1, y - 1, w + 2, h + 2), width=dp(3.5))
                Rectangle(pos=(tx - dp(2), ty), size=(text.width + dp(4), text.height))
                Color(*rgba)
                Line(rectangle=(x, y, w, h), width=dp(2), dash_length=6 if doubted else 1,
                     dash_offset=4 if doubted else 0)
                Color(*(UNCERTAIN_RGBA if doubted else (1, 1, 1, 1)))
                Rectangle(texture=text, pos=(tx, ty), size=text.size)

    def _place_message(self) -> None:
        """The message on a dark band across the foot of the view (all of it while there is no picture)."""
        label = self._message
        label.text, label.pos, label.text_size = self.message, self.pos, (self.width - dp(16), None)
        if not self.message:
            label.size = (0, 0)
        elif self.texture is None:
            label.size = self.size
        else:
            label.texture_update()
            label.size = (self.width, min(self.height, label.texture_size[1] + dp(8)))
        self._message_ground.pos, self._message_ground.size = label.pos, label.size

    def die_at(self, x: float, y: float) -> int | None:
        """The die under a touch: the nearest centre among the outlines it falls in."""
        hits = []
        for index in range(len(self.dice)):
            left, bottom, w, h = self.die_rect(index)
            pad = max(0.0, (dp(48) - min(w, h)) / 2)  # small dice still get a 48 px target
            if left - pad <= x <= left + w + pad and bottom - pad <= y <= bottom + h + pad:
                hits.append(((left + w / 2 - x) ** 2 + (bottom + h / 2 - y) ** 2, index))
        return min(hits)[1] if hits else None

    def on_touch_down(self, touch):
        if self.collide_point(*touch.pos):
            index = self.die_at(*touch.pos)
            if index is not None:
                self.dispatch("on_die_tap", index)
                return True
            place = self.widget_to_frame(*touch.pos)
            if place is not None and self.texture is not None:
                self.dispatch("on_picture_tap", *place)
                return True
        return super().on_touch_down(touch)

    def on_die_tap(self, index: int) -> None:
        pass

    def on_picture_tap(self, x: float, y: float) -> None:
        pass


class ScoreChart(Widget):
    """Horizontal stacked bars: one per player, one segment per score source."""

    breakdown = ObjectProperty({}, rebind=True)
    sources = ListProperty([])

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bind(pos=self._redraw, size=self._redraw, breakdown=self._redraw)

    def _redraw(self, *_args) -> None:
        self.canvas.clear()
        self.clear_widgets()
        breakdown: dict[str, dict[str, int]] = self.breakdown or {}
        self.sources = sorted({s for parts in breakdown.values() for s in parts})
        if not breakdown:
            return
        name_width, legend_height = dp(180), dp(34)
        if self.width < name_width + dp(160):
            return                             # not laid out yet: drawn again once it has its width
        legend = self._legend(name_width, legend_height)
        legend_rows = 1 + max((y for _x, y, _label in legend), default=0)
        needed = legend_rows * legend_height + len(breakdown) * dp(40)
        if self.size_hint_y is None and self.height < needed:
            self.height = needed               # a long legend: the chart grows (and is drawn again)
            return
        bottom = self.y + legend_rows * legend_height
        positive = [sum(v for v in parts.values() if v > 0) for parts in breakdown.values()]
        negative = [sum(-v for v in parts.values() if v < 0) for parts in breakdown.values()]
        span = max(1, max(positive) + max(negative))
        unit = (self.width - name_width - dp(60)) / span
        zero = self.x + name_width + max(negative) * unit
        row = (self.top - bottom) / len(breakdown)
        for i, (player, parts) in enumerate(breakdown.items()):
            y = self.top - (i + 1) * row
            self.add_widget(Label(text=player, pos=(self.x, y), size=(name_width, row), font_size=sp(18),
                                  halign="right", valign="middle", text_size=(name_width - dp(8), row),
                                  shorten=True, shorten_from="right"))
            right, left = zero, zero
            for source in self.sources:
                value = parts.get(source, 0)
                with self.canvas:
                    Color(*CHART_RGBA[self.sources.index(source) % len(CHART_RGBA)])
                    if value >= 0:
                        Rectangle(pos=(right, y + row * 0.15), size=(value * unit, row * 0.7))
                        right += value * unit
                    else:
                        left += value * unit
                        Rectangle(pos=(left, y + row * 0.15), size=(-value * unit, row * 0.7))
            self.add_widget(Label(text=str(sum(parts.values())), pos=(right + dp(4), y), size=(dp(56), row),
                                  font_size=sp(20), bold=True))
        with self.canvas:
            Color(1, 1, 1, 0.8)
            Line(points=[zero, bottom, zero, self.top], width=dp(1.5))   # the zero line
        for index, (x, legend_row, label) in enumerate(legend):
            y = self.y + (legend_rows - 1 - legend_row) * legend_height
            with self.canvas:
                Color(*CHART_RGBA[index % len(CHART_RGBA)])
                Rectangle(pos=(x, y + dp(9)), size=(dp(16), dp(16)))
            label.pos = (x + dp(20), y)
            self.add_widget(label)

    def _legend(self, indent: float, height: float) -> list[tuple[float, int, Label]]:
        """(x, row, label) per source: the legend runs on to a new row where the width ends."""
        placed, x, row = [], self.x + indent, 0
        for source in self.sources:
            label = Label(text=source.replace("_", " "), font_size=sp(18), size_hint=(None, None))
            label.texture_update()
            label.size = (label.texture_size[0], height)
            if x + dp(20) + label.width > self.right and x > self.x + indent:
                x, row = self.x + indent, row + 1
            placed.append((x, row, label))
            x += label.width + dp(32)
        return placed


class ScoreLines(Widget):
    """Every player's score after each step of the game: one line per player in their colour."""

    history = ListProperty([])
    colours = ListProperty([])

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bind(pos=self._redraw, size=self._redraw, history=self._redraw, colours=self._redraw)

    def _redraw(self, *_args) -> None:
        self.canvas.clear()
        self.clear_widgets()
        if len(self.history) < 2:
            self.add_widget(Label(text="the chart starts after the first step", font_size=sp(18),
                                  pos=self.pos, size=self.size))
            return
        players = list(self.history[0])
        values = [scores.get(p, 0) for scores in self.history for p in players]
        low, high = min(0, *values), max(1, *values)
        left, bottom = self.x + dp(48), self.y + dp(6)
        width, height = self.width - dp(56), self.height - dp(12)

        def point(step: int, value: float) -> tuple[float, float]:
            return (left + width * step / (len(self.history) - 1), bottom + height * (value - low) / (high - low))

        with self.canvas:
            Color(1, 1, 1, 0.5)
            Line(points=[left, bottom, left + width, bottom], width=dp(1))
            Line(points=[*point(0, 0), *point(len(self.history) - 1, 0)], width=dp(1), dash_length=4, dash_offset=4)
            for seat, player in enumerate(players):
                Color(*self.colours[seat % len(self.colours)] if self.colours else (1, 1, 1, 1))
                Line(points=[c for step, scores in enumerate(self.history)
                             for c in point(step, scores.get(player, 0))], width=dp(2))
        for value in (low, high):
            self.add_widget(Label(text=str(value), font_size=sp(18), size=(dp(44), dp(24)),
                                  pos=(self.x, point(0, value)[1] - dp(12))))
