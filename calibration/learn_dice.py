"""Learn my dice: a few rolls of the player's own dice, confirmed die by die, tune the reader to that set.

The player rolls their dice (about five times), the reader reads each roll and the player confirms
or corrects every die (value and colour; a find that is no die is struck out, a missed die is
added).  From those confirmed rolls :func:`learn_my_dice` learns

- the **palette**: each confirmed colour's shades, measured the way the reader measures colour, if it names
  each roll's colours better when learnt from the other rolls than the palette in use (a colour the rolls
  never showed keeps the palette's shades, moved as the confirmed colours moved from theirs);
- the **size** of the set's dice in this camera's picture: finds far smaller or larger are dropped
  (side faces, tokens, text);
- the camera's **slant**: a camera looking at the tray from an angle squashes the faces; of
  :data:`VIEWS`, the stretch that reads the confirmed rolls best undoes it (:mod:`vision.view`);
- the **finder's thresholds**: the pair of :data:`FIND_SETTINGS` that reads the confirmed rolls best;
- where the camera shows a die's **side faces**: finds the player struck out lying beside a confirmed die,
  :data:`MIN_SIDE_FACES` of them at least and the same way from their dice, give the way and distance (a camera's
  mount is fixed); finds lying so from a die are dropped from then on (:class:`vision.top_face.SideFaceParams`);
- the **number of the set's symbol face**: a set whose 6 (say) bears the maker's symbol is read with that
  symbol as a 6 from then on, once the player gave every die read as that symbol one number
  (:data:`MIN_SYMBOL_DICE` of them at least; a set with symbols on two faces keeps asking);
- the **faces** of the set: the face reader network's last layer is refitted to the confirmed dice's crops (and the
  finds struck out as no die), starting from the shipped layer and pulled towards it (:data:`FACE_PULL`); kept only
  when, each roll left out of the fit in turn, it reads the left-out rolls better (as below).

A slant, thresholds, side faces or palette other than the reader's own are kept only when they read :data:`MIN_GAIN`
more of the confirmed dice right (the palette: name more of their colours right, each roll judged by what
the others taught); a slant, thresholds or side faces must also read :data:`MIN_GAIN_ROLLS` rolls better.

It is kept in the profile (:class:`calibration.profile.MyDice` and the palette) and undone by
:func:`forget_my_dice`.  :func:`leave_one_roll_out` measures the gain on rolls the learning did
not see.  A refitted last layer belongs to the reader model it was fitted on: with another model the
shipped layer reads (docs/benchmarks.md, "Learn my dice teaches the face reader").
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from calibration.palette import learn_palette
from calibration.profile import MyDice, Profile
from companion.errors import UserError
from vision import dice_net
from vision.colour import Palette, default_palette
from vision.reader import (
    DEFAULT_PARAMS,
    FaceHead,
    as_bgr8,
    colour_features,
    prepared_frame,
    read_through_slant,
    reader_features,
    shipped_face_head,
)
from vision.remember import remembering
from vision.top_face import SideFaceParams
from vision.types import Reading
from vision.view import Stretch

#: (find_threshold, not_a_die_threshold) pairs tried; the reader's own defaults come first and win ties.
FIND_SETTINGS: tuple[tuple[float, float], ...] = (
    (DEFAULT_PARAMS.find_threshold, DEFAULT_PARAMS.not_a_die_threshold),
    (0.2, 0.5), (0.4, 0.5), (0.5, 0.5), (0.3, 0.3), (0.4, 0.3), (0.5, 0.3), (0.3, 0.7), (0.2, 0.7))
#: Slants tried: (direction in degrees, stretch); straight down first.  A camera tilted t from
#: straight down squashes the faces by about cos(t): 1.15 to 1.75 undo tilts of about 30 to 55 degrees.
VIEWS: tuple[tuple[float, float], ...] = ((0.0, 1.0),) + tuple(
    (angle, stretch) for angle in (0.0, 45.0, 90.0, 135.0) for stretch in (1.15, 1.3, 1.5, 1.75))
#: The learnt size range is the confirmed dice's sides, the smallest times SIZE_MARGIN[0] to the
#: largest times SIZE_MARGIN[1] (a die near the tray's edge or tilted reads a little smaller or larger).
SIZE_MARGIN = (0.7, 1.4)
#: A find counts as a confirmed die when its centre lies within this share of the die's side.
MATCH_SHARE = 0.5
#: A slant, threshold or palette other than the reader's own is taken only when it reads this share more of
#: the confirmed dice right (a gain of one die in a few rolls may be luck that does not carry to the next roll).
MIN_GAIN = 0.04
#: ... and on at least this many of the rolls: one roll read better may be that roll's luck.
MIN_GAIN_ROLLS = 2
#: The number of a symbol face is learnt from at least this many dice read as a symbol, all given that number.
MIN_SYMBOL_DICE = 2
#: Side faces are learnt from at least this many struck-out finds that lie beside a confirmed die ...
MIN_SIDE_FACES = 3
#: ... this many of the die's sides from its centre (a side face shows from half a side out to a side and more) ...
SIDE_FACE_DISTANCE = (0.4, 1.3)
#: ... and as many of them within this many of the die's sides of the way they lie taken together (their median).
SIDE_FACE_AGREE = SideFaceParams.reach
#: The face reader's last layer learns each confirmed die (and each find struck out) from the crop turned by each
#: quarter turn, and mirrored: eight views.
FACE_VIEWS = 8
#: How strongly the refitted last layer is pulled back to the shipped one (weight of their squared difference) ...
FACE_PULL = 0.01
#: ... in this many gradient steps of this size (a softmax regression on the network's pooled features).
FACE_STEPS = 300
FACE_STEP_SIZE = 0.5
MIN_ROLLS = 2
"""Fewer confirmed rolls than this are refused: one roll cannot be checked against another."""
LESSON_ROLLS = 5
"""Rolls the app asks for when a player teaches the reader their dice (learning may start after MIN_ROLLS)."""


@dataclass(frozen=True)
class ConfirmedDie:
    """One die as the player confirmed it: where it lies (frame pixels), its side, value and colour."""

    center: tuple[float, float]
    side: float
    value: int
    colour: str | None = None


@dataclass(frozen=True)
class ConfirmedRoll:
    """A frame and every die on it, as the player confirmed them."""

    image: np.ndarray
    dice: tuple[ConfirmedDie, ...]


def confirmed_from_reading(image: np.ndarray, reading: Reading,
                           corrections: dict[int, tuple[int | None, str | None] | None],
                           added: Sequence[ConfirmedDie] = ()) -> ConfirmedRoll:
    """The roll as the player confirmed ``reading``: die ``i`` is kept as read, or changed by
    ``corrections[i]`` = (value, colour) (None keeps what was read), or struck out by
    ``corrections[i] = None``; ``added`` are dice the reader missed.  UserError if a die is left
    without a value."""
    dice = []
    for i, die in enumerate(reading.dice):
        if i in corrections and corrections[i] is None:
            continue
        value, colour = corrections.get(i) or (None, None)
        value, colour = value or die.value, colour or die.colour
        if value is None:
            raise UserError(f"die {i + 1} needs its value from 1 to 6 (e.g. {i + 1}=4), or {i + 1}=x if it is no die")
        dice.append(ConfirmedDie(die.center, die.bbox[2], int(value), colour))
    return ConfirmedRoll(image, tuple(dice) + tuple(added))


STRIKE_WORDS = ("x", "no", "none")
"""What a player types for a find that is no die."""


def parse_corrections(text: str, count: int) -> dict[int, tuple[int | None, str | None] | None]:
    """A player's corrections of a reading of ``count`` dice, typed as comma-separated items: ``2=4``
    (die 2 shows four), ``3=blue``, ``2=4 blue``, ``5=x`` (die 5 is no die); empty: all right.

    Returns {die index from 0: (value or None to keep, colour or None to keep), or None to strike it};
    UserError, in one line, for an item that cannot be meant."""
    corrections: dict[int, tuple[int | None, str | None] | None] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item or item.startswith(ADD_MARK):    # a missed die: parse_added_dice
            continue
        number, sep, change = item.partition("=")
        if not sep or not number.strip().isdigit():
            raise UserError(f"{item!r}: write the die's number, '=' and its value or colour, e.g. 2=4 or 3=blue")
        index = int(number) - 1
        if not 0 <= index < count:
            raise UserError(f"{item!r}: there are dice 1 to {count} only")
        words = change.lower().split()
        if len(words) == 1 and words[0] in STRIKE_WORDS:
            corrections[index] = None
            continue
        values = [w for w in words if w.isdigit()]
        colour = " ".join(w for w in words if not w.isdigit()) or None
        if len(values) > 1 or (values and not 1 <= int(values[0]) <= 6) or not words:
            raise UserError(f"{item!r}: a die's value is one number from 1 to 6")
        corrections[index] = (int(values[0]) if values else None, colour)
    return corrections


ADD_MARK = "+"
"""What starts a missed die the player adds by its place: ``+4 red at 310 220``."""
ADDED_SIDE_SHARE = 0.1
"""A die added by its place in a picture where no die was read is taken to be this share of the picture's
short side across (a tray filling the picture holds dice about that big)."""


def parse_added_dice(text: str, frame_shape: tuple[int, ...]) -> list[tuple[int, str | None, tuple[float, float]]]:
    """The missed dice a player adds among their corrections (:func:`parse_corrections`), typed as
    ``+VALUE [COLOUR] at X Y`` with X, Y the die's centre in the picture's pixels (as the read dice are
    listed): [(value, colour or None, (x, y))]; UserError, in one line, for one that cannot be meant."""
    rows, cols = frame_shape[:2]
    added = []
    for item in (part.strip() for part in text.split(",")):
        if not item.startswith(ADD_MARK):
            continue
        die, sep, place = item[len(ADD_MARK):].partition(" at ")
        words, numbers = die.lower().split(), place.split()
        if not sep or len(numbers) != 2 or not all(n.replace(".", "", 1).isdigit() for n in numbers):
            raise UserError(f"{item!r}: add a missed die as +VALUE at X Y, e.g. +4 at 310 220 or +4 red at 310 220")
        if not words or not words[0].isdigit() or not 1 <= int(words[0]) <= 6 or any(w.isdigit() for w in words[1:]):
            raise UserError(f"{item!r}: a die's value is one number from 1 to 6")
        x, y = (float(n) for n in numbers)
        if not (0 <= x < cols and 0 <= y < rows):
            raise UserError(f"{item!r}: the picture is {cols} x {rows} px")
        added.append((int(words[0]), " ".join(words[1:]) or None, (x, y)))
    return added


def added_die_side(sides: Sequence[float], frame_shape: tuple[int, ...]) -> float:
    """The side (px) of a die added by its place: the median of the ``sides`` of the dice read in the same
    picture, or :data:`ADDED_SIDE_SHARE` of the picture's short side when none was read."""
    return float(np.median(sides)) if len(sides) else ADDED_SIDE_SHARE * min(frame_shape[:2])


class Lesson:
    """The rolls a player has confirmed so far while teaching the reader their dice in the app."""

    def __init__(self, wanted: int = LESSON_ROLLS):
        self.wanted = wanted
        self.rolls: list[ConfirmedRoll] = []

    def keep(self, frame: np.ndarray | None, dice: Sequence) -> int:
        """Keep the roll in ``frame`` with its read dice (``DieReading``s) as the player left them after
        their corrections, dice added where they lie included; dice added without a place (the "+" button)
        cannot be learnt from and are left out: how many.
        UserError, and nothing kept, when there is nothing to keep or a die has no value."""
        if frame is None or not dice:
            raise UserError("read the dice first, then tap any die read wrong to correct it")
        unknown = [str(i + 1) for i, die in enumerate(dice) if die.value is None]
        if unknown:
            raise UserError(f"die {', '.join(unknown)} has no value yet: tap it to set it")
        placed = [die for die in dice if die.bbox[2] > 0]
        if not placed:
            raise UserError("only dice the camera saw can be learnt from: read the dice again")
        self.rolls.append(ConfirmedRoll(frame, tuple(ConfirmedDie(d.center, d.bbox[2], d.value, d.colour)
                                                     for d in placed)))
        return len(dice) - len(placed)

    @property
    def ready(self) -> bool:
        """Enough rolls to learn from."""
        return len(self.rolls) >= MIN_ROLLS

    @property
    def done(self) -> bool:
        return len(self.rolls) >= self.wanted


@dataclass(frozen=True)
class RollScore:
    """How a reading of a confirmed roll went: dice read with the right value (and colour), dice
    missed, and finds that are no confirmed die."""

    dice: int
    right_values: int
    right_colours: int
    missed: int
    extra: int

    def __add__(self, other: RollScore) -> RollScore:
        return RollScore(*(a + b for a, b in zip(self._fields(), other._fields())))

    def _fields(self) -> tuple[int, ...]:
        return self.dice, self.right_values, self.right_colours, self.missed, self.extra

    @property
    def die_acc(self) -> float:
        """Share of the confirmed dice found and read with the right value (``score_dice.py``'s die_acc)."""
        return self.right_values / max(self.dice, 1)

    @property
    def colour_acc(self) -> float:
        return self.right_colours / max(self.dice, 1)


def paired(reading: Reading, roll: ConfirmedRoll) -> list[tuple[int, int]]:
    """(confirmed die, reading's die) index pairs, nearest centres first, each die in one pair at most."""
    gaps = []
    for i, die in enumerate(roll.dice):
        for j, found in enumerate(reading.dice):
            gap = float(np.hypot(found.center[0] - die.center[0], found.center[1] - die.center[1]))
            if gap <= MATCH_SHARE * die.side:
                gaps.append((gap, i, j))
    pairs: list[tuple[int, int]] = []
    for _, i, j in sorted(gaps):
        if all(i != a and j != b for a, b in pairs):
            pairs.append((i, j))
    return pairs


def score_reading(reading: Reading, roll: ConfirmedRoll) -> RollScore:
    """Pair ``reading``'s dice with the confirmed ones (:func:`paired`) and count."""
    pairs = paired(reading, roll)
    values = sum(reading.dice[j].value == roll.dice[i].value for i, j in pairs)
    colours = sum(roll.dice[i].colour is not None and reading.dice[j].colour == roll.dice[i].colour for i, j in pairs)
    return RollScore(len(roll.dice), values, colours, len(roll.dice) - len(pairs), len(reading.dice) - len(pairs))


def _check(rolls: Sequence[ConfirmedRoll]) -> None:
    if len(rolls) < MIN_ROLLS:
        raise UserError(f"learning your dice needs at least {MIN_ROLLS} confirmed rolls, not {len(rolls)}")
    if not any(roll.dice for roll in rolls):
        raise UserError("the confirmed rolls hold no dice to learn from")


def _frame(profile: Profile, roll: ConfirmedRoll) -> np.ndarray:
    """``roll``'s frame as the reader sees it: white-balanced by ``profile``, brought up when underexposed."""
    return prepared_frame(profile.white_balance.correct(as_bgr8(roll.image)))


def _colour_samples(profile: Profile, rolls: Sequence[ConfirmedRoll]) -> list[list[tuple[str, np.ndarray]]]:
    """Per roll, (confirmed colour, colour features as the reader measures them) of each coloured die."""
    per_roll = []
    for roll in rolls:
        coloured = [d for d in roll.dice if d.colour]
        samples = []
        if coloured:
            image = _frame(profile, roll)
            boxes = [(d.center[0] - d.side / 2, d.center[1] - d.side / 2, d.side, d.side) for d in coloured]
            samples = [(d.colour, f) for d, f in zip(coloured, colour_features(image, boxes, profile.palette))]
        per_roll.append(samples)
    return per_roll


def _palette_from(samples: list[tuple[str, np.ndarray]], base: Palette) -> Palette:
    """The palette learnt from ``samples`` for the colours they name, with ``base``'s shades of every other
    colour moved as the confirmed colours moved from ``base``'s (the light and camera the rolls were seen in,
    :func:`_shift_from`): a colour the lesson's rolls never showed keeps its name."""
    grouped: dict[str, list[np.ndarray]] = {}
    for name, features in samples:
        grouped.setdefault(name, []).append(np.asarray(features, np.float64))
    learnt = learn_palette({name: np.array(points) for name, points in sorted(grouped.items())})
    shift = _shift_from(grouped, base)
    unseen = tuple(replace(colour, centre_lab=tuple(round(float(v), 3) for v in np.asarray(colour.centre_lab) + shift))
                   for colour in base.colours if colour.name not in grouped)
    return replace(learnt, colours=learnt.colours + unseen, max_distance=max(learnt.max_distance, base.max_distance))


def _shift_from(grouped: dict[str, list[np.ndarray]], base: Palette) -> np.ndarray:
    """The median Lab difference between each confirmed die's colour and the nearest ``base`` shade of its
    name (zero when ``base`` has none of the confirmed names)."""
    offsets = []
    for name, points in grouped.items():
        shades = [np.asarray(colour.centre_lab, np.float64) for colour in base.colours if colour.name == name]
        offsets += [point - min(shades, key=lambda shade: float(np.linalg.norm(point - shade)))
                    for point in points if shades]
    return np.median(offsets, axis=0) if offsets else np.zeros(3)


def _learn_palette(profile: Profile, rolls: Sequence[ConfirmedRoll]):
    """The palette of the confirmed colours, measured as the reader measures colour, if it names the
    colours of each roll, learnt from the other rolls, :data:`MIN_GAIN` of the dice better than the profile's
    palette does (at least one die); else the profile's own palette."""
    per_roll = _colour_samples(profile, rolls)
    if sum(bool(samples) for samples in per_roll) < MIN_ROLLS:
        return profile.palette
    kept = learnt = 0
    for i, samples in enumerate(per_roll):
        others = [s for j, roll in enumerate(per_roll) if j != i for s in roll]
        if not samples or not others:
            continue
        palette = _palette_from(others, profile.palette)
        learnt += sum(palette.classify(f)[0] == name for name, f in samples)
        kept += sum(profile.palette.classify(f)[0] == name for name, f in samples)
    needed = max(1, math.ceil(MIN_GAIN * sum(len(samples) for samples in per_roll)))
    return _palette_from([s for roll in per_roll for s in roll], profile.palette) if learnt - kept >= needed \
        else profile.palette


def learn_my_dice(rolls: Sequence[ConfirmedRoll], profile: Profile | None = None) -> Profile:
    """``profile`` (default: an empty one) with the palette, size range and finder thresholds
    learnt from the confirmed ``rolls``; UserError if there are too few.  The rolls are read under many settings,
    most of which hand the networks and the pip count the same pixels again: those are worked out once
    (:func:`vision.remember.remembering`)."""
    _check(rolls)
    with remembering():
        return _learnt(rolls, forget_my_dice(profile or Profile()))


def _learnt(rolls: Sequence[ConfirmedRoll], base: Profile) -> Profile:
    """:func:`learn_my_dice` from a profile without learnt dice."""
    sides = [d.side for roll in rolls for d in roll.dice]
    palette = _learn_palette(base, rolls)
    learnt = MyDice(len(rolls), len(sides), round(min(sides) * SIZE_MARGIN[0], 1),
                    round(max(sides) * SIZE_MARGIN[1], 1), *FIND_SETTINGS[0])
    # The side faces first (where they lie in the frame, as the reader finds them), then the slant (with the
    # reader's own thresholds), then the thresholds through that slant; the stretches the reader's own search
    # picks on the rolls come right after straight down (and win ties).
    offset = _side_face_offset(base, palette, learnt, rolls)
    if offset is not None:
        learnt = _best(base, palette, rolls, [learnt, replace(learnt, side_face_offset=offset)])
    searched = _searched_views(base, palette, rolls)
    views = VIEWS[:1] + tuple(searched) + tuple(view for view in VIEWS[1:] if view not in searched)
    learnt = _best(base, palette, rolls, [replace(learnt, view_angle_deg=a, view_stretch=s) for a, s in views])
    learnt = _best(base, palette, rolls, [replace(learnt, find_threshold=f, not_a_die_threshold=n)
                                          for f, n in FIND_SETTINGS])
    # the wider look (dice the finder sees too small, as it sees symbol faces) each with the symbol number it reads
    learnt = _best(base, palette, rolls, [_with_symbol_value(base, palette, candidate, rolls)
                                          for candidate in (learnt, replace(learnt, wider_look=True))])
    return replace(base, palette=palette, my_dice=replace(learnt, faces=_learn_faces(base, palette, learnt, rolls)))


def _face_samples(frame: np.ndarray, reading: Reading, roll: ConfirmedRoll, learnt: MyDice) -> tuple[np.ndarray, np.ndarray]:
    """The reader network's pooled features of each confirmed die of ``roll`` and each find of ``reading`` (the roll
    read with ``learnt``) the player struck out, :data:`FACE_VIEWS` views each, cropped as the reader crops them
    (through the learnt slant); and their classes (value - 1, or not a die)."""
    stretch = Stretch(learnt.view_angle_deg, learnt.view_stretch)
    seen, matrix = stretch.apply(frame) if not stretch.is_identity else (frame, np.eye(2, 3))
    confirmed = {j for _, j in paired(reading, roll)}
    places = [(d.center, d.side, d.value - 1) for d in roll.dice]
    places += [(f.center, f.bbox[2], dice_net.NOT_A_DIE) for j, f in enumerate(reading.dice) if j not in confirmed]
    crops, labels = [], []
    for (x, y), side, label in places:
        crop = dice_net.crop_die(seen, tuple(matrix @ np.array([x, y, 1.0])), side * math.sqrt(stretch.factor))
        for turns in range(FACE_VIEWS):
            view = np.rot90(crop, turns % 4)
            crops.append(np.ascontiguousarray(view[:, ::-1] if turns >= 4 else view))
            labels.append(label)
    if not crops:
        return np.zeros((0, 0)), np.zeros(0, int)
    return reader_features(np.stack(crops)), np.array(labels)


def fit_face_head(shipped: FaceHead, features: np.ndarray, labels: np.ndarray) -> FaceHead:
    """``shipped`` refitted to read ``labels`` (classes) from ``features``: a softmax regression started at the
    shipped weights and pulled towards them (:data:`FACE_PULL`); the symbol class keeps its shipped row."""
    weights, bias = shipped.weights.copy(), shipped.bias.copy()
    target = np.eye(len(bias))[labels]
    learning = np.arange(len(bias)) != dice_net.SYMBOL
    for _ in range(FACE_STEPS):
        logits = features @ weights.T + bias
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        error = (probs - target) / len(features)
        weights[learning] -= FACE_STEP_SIZE * (error.T @ features + FACE_PULL * (weights - shipped.weights))[learning]
        bias[learning] -= FACE_STEP_SIZE * (error.sum(axis=0) + FACE_PULL * (bias - shipped.bias))[learning]
    return FaceHead(weights, bias, shipped.model)


def _learn_faces(base: Profile, palette, learnt: MyDice, rolls: Sequence[ConfirmedRoll]) -> FaceHead | None:
    """The face reader's last layer fitted to the confirmed ``rolls`` (:func:`fit_face_head`), if, fitted on all
    rolls but one and reading that one, it reads the rolls better than ``learnt`` does without it (:func:`chosen`);
    else None."""
    frames = [_frame(base, roll) for roll in rolls]
    readings = [learnt.read(frame, palette, search=False) for frame in frames]
    samples = [_face_samples(frame, reading, roll, learnt) for frame, reading, roll in zip(frames, readings, rolls)]
    if sum(len(labels) > 0 for _, labels in samples) < MIN_ROLLS:
        return None
    shipped = shipped_face_head()

    def fitted(rows: Sequence[int]) -> FaceHead:
        return fit_face_head(shipped, np.concatenate([samples[i][0] for i in rows if len(samples[i][1])]),
                             np.concatenate([samples[i][1] for i in rows]))

    without, with_faces = [], []
    for i, (frame, reading, roll) in enumerate(zip(frames, readings, rolls)):
        score = score_reading(reading, roll)
        without.append(score.right_values - score.extra)
        others = [j for j in range(len(rolls)) if j != i and len(samples[j][1])]
        if others:
            score = score_reading(replace(learnt, faces=fitted(others)).read(frame, palette, search=False), roll)
        with_faces.append(score.right_values - score.extra)
    if chosen([np.array(without), np.array(with_faces)], sum(len(roll.dice) for roll in rolls)) != 1:
        return None
    return fitted(range(len(rolls)))


def _searched_views(profile: Profile, palette, rolls: Sequence[ConfirmedRoll]) -> list[tuple[float, float]]:
    """The stretches (direction, factor) the reader's own slant search picks on the rolls, straight down
    left out, the most picked first."""
    picks: Counter = Counter()
    for roll in rolls:
        slant = read_through_slant(_frame(profile, roll), palette=palette).slant
        if not slant.is_identity:
            picks[(slant.angle_deg, slant.factor)] += 1
    return [view for view, _ in picks.most_common()]


def _side_face_offset(profile: Profile, palette, learnt: MyDice, rolls: Sequence[ConfirmedRoll]) -> tuple[float, float] | None:
    """Where ``learnt`` reads finds the player struck out beside a confirmed die (:data:`SIDE_FACE_DISTANCE`): their
    median offset from that die, in its sides, if :data:`MIN_SIDE_FACES` of them lie within :data:`SIDE_FACE_AGREE`
    of it; else None."""
    offsets = []
    for roll in rolls:
        if not roll.dice:
            continue
        reading = learnt.read(_frame(profile, roll), palette, search=False)
        confirmed = {j for _, j in paired(reading, roll)}
        for found in (die for j, die in enumerate(reading.dice) if j not in confirmed):
            gaps = [np.subtract(found.center, die.center) / die.side for die in roll.dice]
            gap = min(gaps, key=lambda g: float(np.hypot(*g)))
            if SIDE_FACE_DISTANCE[0] <= float(np.hypot(*gap)) <= SIDE_FACE_DISTANCE[1]:
                offsets.append(gap)
    if len(offsets) < MIN_SIDE_FACES:
        return None
    offset = np.median(offsets, axis=0)
    agreeing = sum(float(np.hypot(*(gap - offset))) <= SIDE_FACE_AGREE for gap in offsets)
    return (round(float(offset[0]), 3), round(float(offset[1]), 3)) if agreeing >= MIN_SIDE_FACES else None


_DIRECTIONS = ("to the right of", "below and to the right of", "below", "below and to the left of", "to the left of",
               "above and to the left of", "above", "above and to the right of")


def where_side_faces_show(offset: tuple[float, float]) -> str:
    """Where a learnt ``offset`` puts a die's side faces, in a player's words: "below", "to the left of", ..."""
    angle = math.degrees(math.atan2(offset[1], offset[0])) % 360.0
    return _DIRECTIONS[round(angle / 45.0) % 8]


def _with_symbol_value(base: Profile, palette, learnt: MyDice, rolls: Sequence[ConfirmedRoll]) -> MyDice:
    """``learnt`` with the number of the set's symbol face it reads in ``rolls`` (:func:`_symbol_value`)."""
    return replace(learnt, symbol_value=_symbol_value(replace(base, palette=palette, my_dice=learnt), rolls))


def _symbol_value(profile: Profile, rolls: Sequence[ConfirmedRoll]) -> int | None:
    """The number the player gave every die ``profile`` reads as a symbol in ``rolls``, if they gave at least
    :data:`MIN_SYMBOL_DICE` such dice one and the same number; else None."""
    given = []
    for roll in rolls:
        reading = profile.read(roll.image)
        given += [roll.dice[i].value for i, j in paired(reading, roll) if reading.dice[j].symbol]
    return given[0] if len(given) >= MIN_SYMBOL_DICE and len(set(given)) == 1 else None


def _best(base: Profile, palette, rolls: Sequence[ConfirmedRoll], candidates: list[MyDice]) -> MyDice:
    """The candidate :func:`chosen` takes by how it reads each of ``rolls``; a candidate is read roll by roll and
    left unread as soon as it could not be taken even with every die of the rolls still to read right
    (:func:`_out_of_reach`), which changes nothing taken."""
    frames = [_frame(base, roll) for roll in rolls]
    dice = sum(len(roll.dice) for roll in rolls)
    scores: list[np.ndarray | None] = []
    for candidate in candidates:   # each through its own stretch alone: straight down without the search
        per_roll: list[int] = []
        for frame, roll in zip(frames, rolls):
            if scores and _out_of_reach(scores, per_roll, rolls, dice):
                break
            score = score_reading(candidate.read(frame, palette, search=False), roll)
            per_roll.append(score.right_values - score.extra)
        scores.append(np.array(per_roll) if len(per_roll) == len(rolls) else None)
    return candidates[chosen(scores, dice)]


def _out_of_reach(scores: Sequence[np.ndarray | None], so_far: list[int], rolls: Sequence[ConfirmedRoll],
                  dice: int) -> bool:
    """Whether a candidate with the scores ``so_far`` on the first of ``rolls`` cannot be :func:`chosen` over the
    candidates read before (``scores``) even if it read every die of the remaining rolls right with nothing extra."""
    first, read = scores[0], len(so_far)
    at_most = sum(so_far) + sum(len(roll.dice) for roll in rolls[read:])
    if at_most - first.sum() < max(1, math.ceil(MIN_GAIN * dice)):
        return True
    if np.count_nonzero(np.array(so_far) > first[:read]) + len(rolls) - read < MIN_GAIN_ROLLS:
        return True
    taken = chosen(scores, dice)
    return taken != 0 and at_most <= scores[taken].sum()


def chosen(scores: Sequence[np.ndarray | None], dice: int) -> int:
    """Which candidate to take, given each one's score per roll (right values less extra finds) on rolls of
    ``dice`` confirmed dice (None: a candidate left unread, never taken): the best of those that beat the first
    (candidate 0) by :data:`MIN_GAIN` of the dice (at least one die) and on :data:`MIN_GAIN_ROLLS` rolls at least,
    the earliest of equals; else 0."""
    needed = max(1, math.ceil(MIN_GAIN * dice))
    first = np.asarray(scores[0])
    better = [i for i, per_roll in enumerate(scores) if per_roll is not None
              and np.sum(per_roll) - first.sum() >= needed and np.count_nonzero(np.asarray(per_roll) > first) >= MIN_GAIN_ROLLS]
    return max(better, key=lambda i: (float(np.sum(scores[i])), -i)) if better else 0


def forget_my_dice(profile: Profile) -> Profile:
    """``profile`` without what learning the dice put in it: the default palette, no size range, the
    reader's own thresholds (its tray, light and camera settings stay)."""
    if profile.my_dice is None:
        return profile
    return replace(profile, my_dice=None, palette=default_palette())


@dataclass(frozen=True)
class LeaveOneOut:
    """The confirmed rolls read before learning and, each left out in turn, after learning from the others."""

    before: RollScore
    after: RollScore
    rolls: int


def leave_one_roll_out(rolls: Sequence[ConfirmedRoll], profile: Profile | None = None,
                       progress: Callable[[str], None] | None = None) -> LeaveOneOut:
    """Each roll read with ``profile`` as it is and with what :func:`learn_my_dice` learns from
    the other rolls: the gain on rolls the learning never saw (the lessons share what they work out: each
    reads the others' rolls again)."""
    _check(rolls)
    base = forget_my_dice(profile or Profile())
    before = after = RollScore(0, 0, 0, 0, 0)
    with remembering():
        for i, roll in enumerate(rolls):
            others = [r for j, r in enumerate(rolls) if j != i]
            as_it_is = score_reading(base.read(roll.image), roll)
            before += as_it_is
            if len(others) >= MIN_ROLLS and any(r.dice for r in others):
                after += score_reading(learn_my_dice(others, base).read(roll.image), roll)
            else:        # too little left to learn from: the roll reads as it is
                after += as_it_is
            if progress:
                progress(f"roll {i + 1} of {len(rolls)} left out")
    return LeaveOneOut(before, after, len(rolls))
