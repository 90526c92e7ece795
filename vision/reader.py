"""Read a frame: find each die's top face, read its value, name its colour.

Two small networks (vision/dice_net.py) do the work: the finder scores every cell of a
coarse grid as a die centre and estimates the die's size there; the reader looks at a
crop around each centre and says which face (1-6) is on top, that the top face shows a
symbol instead of pips, or that it is not a die.  A third, tiny one checks the dice read
weakly against flat things (dots printed on a domino or a card, number tokens) and other things
that are no die (a spoon's glint, a face, a leaf).  A die whose face the reader is not sure
of, or that shows a symbol whose number it was not taught (``symbol_value``), keeps
``value=None``; nothing is guessed.  A frame whose dice it doubts is read again through
stretches that undo a slanted camera's squash (vision/view.py).
"""
from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from companion.errors import UserError
from vision import dice_net, remember
from vision.colour import Palette, body_features, default_palette, die_body
from vision.image_files import load_scaled_image
from vision.light import (
    DEFAULT_FRAME_EXPOSURE,
    DEFAULT_LIGHT,
    FrameExposure,
    LightParams,
    brought_up,
    estimate_gains,
    exposure_gain,
    grey_guess,
)
from vision.pip_count import DEFAULT_PIP_COUNT, PipCountParams, count_pips
from vision.region import DEFAULT_REGION, RegionParams, detailed_region
from vision.top_face import (
    DEFAULT_SIDE_FACE_VOTE,
    DEFAULT_TOP_FACE,
    ClosePair,
    SideFaceParams,
    SideFaceVote,
    TopFaceParams,
    close_pairs,
    die_outline,
    outline_fill,
    share_unlike_table,
    side_face_finds,
    top_face_looks,
    voted_offset,
)
from vision.types import DieReading, Reading
from vision.view import STRAIGHT, Stretch, mean_confidence, read_stretched, surest_slant


@dataclass(frozen=True)
class ReaderParams:
    """The reader's tunable numbers, with their defaults."""

    find_threshold: float = 0.3  # finder score (0..1) a grid cell needs to count as a die centre
    not_a_die_threshold: float = 0.5  # reader probability of "not a die" above which a find is dropped
    weak_find_threshold: float = 0.2  # weaker finds (down to this score) are read too, but kept only when
    weak_find_not_a_die: float = 0.1  # the reader is this sure they are dice ("not a die" probability at most)
    value_threshold: float = 0.5  # reader probability of its best value below which the value is None
    unreadable_confidence: float = 0.25  # a die read with neither a value nor a symbol is reported only with at least
    # this confidence (finder score x face probability, the latter below value_threshold: so only where the finder
    # was sure of it); a doubtful find the reader cannot read is, on real photos, a face, a crater or a far-away
    # die's shadow, not a die (docs/benchmarks.md; 0: always reported)
    outsized_ratio: float = 2.4  # a die read with a confidence below outsized_below whose side is at least this times
    outsized_below: float = 0.45  # the median side of the frame's dice read at least that surely (outsized_peers of
    outsized_peers: int = 2  # them at least) is read again at that side, and dropped unless it is then a sure die and
    # no other's duplicate: a weak find that big among dice is a patch of table, a group of dice seen as one, or a
    # die the finder boxed far too big (docs/benchmarks.md; 0: never)
    second_look_scales: tuple[float, ...] = (1.25, 0.8)  # a die read unsure is read again from crops this much
    # wider and narrower, the surest reading kept (empty: never)
    wider_look_scales: tuple[float, ...] = ()  # a find of at least find_threshold read as no die is read again from
    # crops this much wider, and taken at that size where the reader is then sure it is a die (empty: never; "learn
    # my dice" sets WIDER_LOOK_SCALES for a set the finder sees too small; by default it would read number tokens as
    # symbol faces, docs/benchmarks.md)
    shifted_look: float = 0.2  # a find not read as a sure die is read again from crops moved this x side up, down,
    # left and right; a sure die reading there is kept, with the moved centre; a die whose value is below
    # unsure_value sure is read so too, and takes a moved reading's value at least that sure (0: never)
    shifted_look_skip: float = 0.9  # ... unless the reader is at least this sure the find is not a die
    finder_size: int = dice_net.FINDER_SIZE  # long side of the frame as the finder sees it, px
    max_dice: int = 60  # most finds passed on to the reader, best first
    duplicate_distance: float = 0.5  # a find closer than this x side to a better-read one is that die again
    views: int = 3  # most quarter turns of a crop the reader looks at (0, 90, 180, 270 degrees, the first this many),
    # its answers averaged (1-4) ...
    sure_at_first_look: float = 0.95  # ... unless its first look gives one answer (a value or not-a-die) at least
    # this probability: then that look alone is kept (1.0: every crop is turned) ...
    sure_after_turn: float = 0.9  # ... and a turned crop whose averaged answers reach this is not turned again
    coarse_scale: float = 0.5  # the second, coarse finder pass's scale relative to finder_size
    coarse_min_side: float = 40.0  # px (in the coarse pass's input) from which a coarse find counts as a big die
    group_min_dice: int = 2  # a big die is taken for a group of small dice when at least this many finds inside it,
    group_side_share: float = 0.4  # each at most this share of its side, are read surely as dice (value at least
    # unsure_value sure, not a die at most weak_find_not_a_die), and are not all 1s or are more 1s than the big die's
    # value (a big die's own pips each look like a 1): far-away dice lying close together are otherwise read as one
    # big die whose pips they are
    light: LightParams = DEFAULT_LIGHT  # the frame-wide light correction before colours are named (vision/light.py)
    exposure: FrameExposure | None = DEFAULT_FRAME_EXPOSURE  # an underexposed frame is brought up before anything
    # else looks at it (vision/light.py, brought_up; None: never)
    unsure_value: float = 0.8  # a die whose value the reader gives less probability than this is flagged value-unsure
    unsure_colour_margin: float = 0.4  # a die whose colour fits another name within this many spreads of its own
    # is flagged colour-unsure
    min_side: float = 0.0  # finds with a side (px) below min_side or above max_side are dropped: "learn my dice"
    max_side: float = math.inf  # knows the size of the player's dice in this camera's picture
    zoom_min_frame: int = 2 * dice_net.FINDER_SIZE  # a frame with a long side of at least this many px ...
    zoom_share: float = 0.5  # ... whose detail (vision/region.py) lies within this share of its long side is read in
    # that part alone, so that dice far below the camera are not shrunk to a few pixels for the finder (0: never)
    region: RegionParams = DEFAULT_REGION  # how that part is found
    print_check: float = 0.97  # a die read with a confidence below print_check_below is dropped when the print check
    print_check_below: float = 0.5  # (dice_net.PRINT_CHECK_FILE) gives it at least this probability of being
    # something flat (dots printed on a domino half or a card, a number token) or another thing that is no die, from
    # its crop and a wider one (1.0: never; at 0.95 the check fitted in the twenty-sixth session drops two fewer
    # rendered false dice of 200, and a slanted die read through a stretch: docs/benchmarks.md)
    print_check_sure: float = 0.999  # a die reported with a confidence from print_check_below up to
    print_check_sure_below: float = 0.7  # print_check_sure_below is dropped when the print check gives it at least
    # print_check_sure (asked once about the frame's last reading; print_check 1.0 leaves this out too)
    symbol_value: int | None = None  # the number a symbol face stands for on the player's own dice ("learn my dice"),
    # given to a die read as a symbol; None: such a die has no value and the player gives it one
    round_symbol: float = 0.85  # a die read as a symbol (none learnt) whose outline fills less than this share of the
    # smallest rectangle around it (vision/top_face.py, outline_fill) is round: a number token or a coin, not a die's
    # square face (0: never; docs/benchmarks.md)
    slant_doubtful: float = 0.6  # a frame whose dice average a confidence below this (or with no dice read where the
    # finder surely saw one) is read again through stretches that undo a slanted camera's squash (vision/view.py,
    # surest_slant; 0: never); dice read only through a stretch must average at least this much themselves ...
    slant_margin: float = 0.1  # ... and the surest stretch's reading is kept when its dice average at least this
    # much more confidence, no fewer of them
    top_face: TopFaceParams | None = DEFAULT_TOP_FACE  # a die read below unsure_value whose outline shows side faces
    # is read again at each end of it (vision/top_face.py), and takes the reading surer of its face (None: never)
    side_faces: SideFaceParams | None = None  # where this camera shows a die's side faces ("learn my dice"): a find
    # lying there, of the die's colour, is dropped (vision/top_face.py; None: the camera's mount is not known)
    pip_count: PipCountParams | None = DEFAULT_PIP_COUNT  # a die read below unsure_value has its pips counted
    # without the network (vision/pip_count.py) and takes the count as its value (staying value-unsure), a lone pip
    # only where the network gives a 1 at least lone_pip_floor (pip_count None: never; docs/benchmarks.md)
    lone_pip_floor: float = 0.05
    count_check_below: float = 0.95  # a die read surely (at least unsure_value) but below this has its pips counted
    # too, and is flagged value-unsure where the count (as above) gives another value: most of the wrong values on
    # dice unlike those the reader learnt (0: never; docs/benchmarks.md) ...
    count_taken_below: float = 0.9  # ... and takes the count as its value where read below this, else keeps its own
    # (never in a frame read through a slanted camera's stretch, where pips counted on a stretched face go wrong)
    counted_die: float = 0.9  # a find of at least find_threshold that the reader takes for no die, but with at most
    # this probability, is kept as a die when its pips count 2-6 (pip_count), its value the count, flagged unsure: a
    # die unlike those the reader learnt (not above not_a_die_threshold: never; docs/benchmarks.md)
    speck_below: float = 0.5  # a die reported with a confidence below this that differs from the table around it on
    speck_share: float = 0.1  # less than this share of its disc (vision/top_face.py, share_unlike_table, with
    # top_face's settings) is a speck, a stain or a glint on a plain table, no die, and is dropped (0: never; real
    # dice read below 0.5 on the public photos differ on 0.19 of it at least, docs/benchmarks.md)
    face_head: FaceHead | None = None  # the reader network's last layer refitted to the player's own dice ("learn my
    # dice"), used in place of the shipped one while it was fitted on the reader model in use (None: the shipped one)


@dataclass(frozen=True, eq=False)
class FaceHead:
    """The reader network's last layer (pooled features to its classes) refitted to a player's own dice: class
    logits = ``weights`` @ features + ``bias``; ``model`` names the reader model it was fitted on
    (:func:`reader_model_id`), and a head of another model is not used."""

    weights: np.ndarray  # (dice_net.N_CLASSES, features)
    bias: np.ndarray     # (dice_net.N_CLASSES,)
    model: str


DEFAULT_PARAMS = ReaderParams()
WIDER_LOOK_SCALES = (1.25, 1.5)   # ReaderParams.wider_look_scales for a set the finder sees too small
_nets: dict[str, cv2.dnn.Net] = {}


def _net(path: Path) -> cv2.dnn.Net:
    key = str(path)
    if key not in _nets:
        if not path.exists():
            raise UserError(f"model file {path} is missing; reinstall the package or run training/train_dice_nets.py")
        _nets[key] = cv2.dnn.readNetFromONNX(key)
    return _nets[key]


def as_bgr8(image: np.ndarray) -> np.ndarray:
    """Any image array (grey, BGRA, 16-bit, float 0..1) as 3-channel uint8 BGR; UserError if it is not one."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise UserError("not an image: expected a 2-D or 3-D pixel array")
    if image.ndim == 3 and image.shape[2] not in (1, 3, 4):
        raise UserError(f"not an image: {image.shape[2]} channels")
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype.kind == "f":
        top = 1.0 if float(np.nanmax(image)) <= 1.0 else 255.0
        image = np.clip(np.nan_to_num(image) * (255.0 / top), 0, 255).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise UserError(f"unsupported pixel type {image.dtype}")
    if image.ndim == 2 or image.shape[2] == 1:
        return cv2.cvtColor(image.reshape(image.shape[:2]), cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def prepared_frame(image: np.ndarray, params: ReaderParams = DEFAULT_PARAMS) -> np.ndarray:
    """A frame as the reader looks at it: :func:`as_bgr8`, brought up when underexposed (``params.exposure``)."""
    image = as_bgr8(image)
    return image if params.exposure is None else brought_up(image, params.exposure)


def _finds_at(image: np.ndarray, long_side: int, threshold: float, max_dice: int, scale_before: float = 1.0):
    """Finder peaks with ``image`` scaled to ``long_side``: (x, y, side, score) in the frame's pixels (``image`` is
    the frame scaled by ``scale_before``), best first; the frame-to-finder scale; the finder's unpadded input."""
    prepared, scale = dice_net.finder_input(image, long_side)
    seen = prepared[: max(round(image.shape[0] * scale), 1), : max(round(image.shape[1] * scale), 1)]
    out = _answers(dice_net.FINDER_FILE, prepared[None])[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])[:max_dice]
    scale *= scale_before
    rows, cols = (round(n / scale_before) for n in image.shape[:2])
    finds = []
    for i in order:
        y, x = ys[i], xs[i]
        cx = (x + out[2, y, x]) * dice_net.FINDER_STRIDE / scale
        cy = (y + out[3, y, x]) * dice_net.FINDER_STRIDE / scale
        side = float(np.exp(np.clip(out[1, y, x], 0.0, 8.0))) / scale
        if 0 <= cx < cols and 0 <= cy < rows:
            finds.append((float(cx), float(cy), side, float(heat[y, x])))
    return finds, scale, seen


def _find(image: np.ndarray, params: ReaderParams):
    """Die centres found in the frame, as (x, y, side, score): (finds, big-die candidates).

    The finds come from the finder at full size, weak ones and duplicates included.  The candidates come
    from a second pass at a coarser scale (made from the first pass's input, not the frame again), for dice
    too big for the first pass (which may take their pips for small dice); read_frame keeps a candidate only
    if the reader reads it as a die, and then drops the finds inside it.
    """
    finds, scale, seen = _finds_at(image, params.finder_size, min(params.find_threshold, params.weak_find_threshold),
                                   params.max_dice)
    coarse, coarse_scale, _ = _finds_at(seen, round(params.finder_size * params.coarse_scale), params.find_threshold,
                                        params.max_dice, scale_before=scale)
    big = [f for f in coarse if f[2] * coarse_scale >= params.coarse_min_side]
    return finds, big


def _read_values(image: np.ndarray, finds, params: ReaderParams) -> np.ndarray:
    """Reader probabilities (n, 8): values 1..6, not-a-die, symbol; a crop the first look is not sure of is looked at
    again a quarter turn further each time, up to ``params.views`` looks, until its averaged answers are sure
    (see ``ReaderParams.sure_at_first_look`` and ``sure_after_turn``)."""
    crops = np.stack([dice_net.crop_die(image, (x, y), side) for x, y, side, _ in finds])
    probs = _reader_probabilities(crops, params.face_head)
    looking = np.nonzero(probs.max(axis=1) < params.sure_at_first_look)[0]
    for turns in range(1, params.views):
        if not len(looking):
            break
        seen = _reader_probabilities(np.rot90(crops[looking], turns, axes=(1, 2)), params.face_head)
        probs[looking] = (probs[looking] * turns + seen) / (turns + 1)
        looking = looking[probs[looking].max(axis=1) < params.sure_after_turn]
    return probs


def _reader_probabilities(crops: np.ndarray, head: FaceHead | None = None) -> np.ndarray:
    """The reader's softmax probabilities (n, 8) for a stack of crops, through ``head`` if it was fitted on the reader
    model in use."""
    if head is not None and head.model == reader_model_id():
        logits = reader_features(crops) @ head.weights.T + head.bias
    else:
        logits = _answers(dice_net.READER_FILE, crops, "out").reshape(len(crops), dice_net.N_CLASSES)
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)


def _last_layer(net: cv2.dnn.Net) -> tuple[str, str]:
    """The names of the reader network's last layer (a 1x1 convolution over pooled features) and of its input."""
    names = net.getLayerNames()
    last = max(i for i, name in enumerate(names) if net.getLayer(name).type == "Convolution")
    if last == 0 or net.getLayer(names[last - 1]).type != "Pooling":
        raise UserError(f"{dice_net.READER_FILE} is not a reader model with pooled features before its last layer")
    return names[last], names[last - 1]


def reader_features(crops: np.ndarray) -> np.ndarray:
    """The pooled features (n, features) the reader network's last layer reads the crops' classes from."""
    layer = _last_layer(_net(dice_net.READER_FILE))[1]
    return _answers(dice_net.READER_FILE, crops, layer).reshape(len(crops), -1).astype(np.float64)


def _answers(path: Path, inputs: np.ndarray, layer: str | None = None) -> np.ndarray:
    """The output of the network at ``path`` (at ``layer``, else its last) for each image of the uint8 stack
    ``inputs``, one row each; within :func:`vision.remember.remembering` an image seen before is not run again."""
    def run(new: np.ndarray) -> np.ndarray:
        net = _net(path)
        net.setInput(dice_net.normalise(new))
        return net.forward(layer) if layer else net.forward()

    return remember.per_item((str(path), layer), inputs, run)


def shipped_face_head() -> FaceHead:
    """The reader model's own last layer, as a :class:`FaceHead`."""
    net = _net(dice_net.READER_FILE)
    layer = _last_layer(net)[0]
    weights = net.getParam(layer, 0)
    return FaceHead(weights.reshape(weights.shape[0], -1).astype(np.float64),
                    net.getParam(layer, 1).reshape(-1).astype(np.float64), reader_model_id())


_model_ids: dict[str, str] = {}


def reader_model_id() -> str:
    """A short fingerprint of the reader model file in use (a head fitted on another model is not used)."""
    key = str(dice_net.READER_FILE)
    if key not in _model_ids:
        try:
            _model_ids[key] = hashlib.sha256(Path(key).read_bytes()).hexdigest()[:16]
        except OSError as exc:
            raise UserError(f"cannot read model file {key}: {exc.strerror or exc}") from None
    return _model_ids[key]


def _print_probability(image: np.ndarray, finds) -> np.ndarray:
    """How likely each find is something flat (printed dots, a number token) or another thing, not a die: the print
    check's answer from the find's crop and one ``dice_net.CONTEXT_SCALE`` times as wide (a domino's other half, a
    token's rim, a card's edge)."""
    inputs = np.stack([dice_net.print_check_input(image, (x, y), side) for x, y, side, _ in finds])
    return 1.0 / (1.0 + np.exp(-_answers(dice_net.PRINT_CHECK_FILE, inputs).reshape(len(finds))))


def _without_prints(image: np.ndarray, read: list, params: ReaderParams) -> list:
    """The (find, probabilities) pairs of ``read`` but those read with a confidence below ``print_check_below`` that
    the print check takes for something flat or another thing that is no die (see ``ReaderParams.print_check``)."""
    weak = [i for i, (find, p) in enumerate(read) if find[3] * _face_probability(p) < params.print_check_below]
    if params.print_check >= 1.0 or not weak:
        return read
    prints = {i for i, q in zip(weak, _print_probability(image, [read[i][0] for i in weak])) if q >= params.print_check}
    return [pair for i, pair in enumerate(read) if i not in prints]


def _second_look(image: np.ndarray, finds, probs: np.ndarray, params: ReaderParams):
    """``(finds, probs)`` after looking again at the finds the reader doubts, so that a find the finder placed or
    sized badly is read where the die really is.

    - With ``wider_look_scales`` ("learn my dice"), a find the reader takes for no die is read from crops that
      much wider, and taken at that size where it is then a sure die: a symbol face the finder boxed too small.
    - A die read unsure gets the surest of its readings from crops scaled by each of ``second_look_scales``,
      where that reading is surer of its value: a die whose size the finder got wrong (too small, or swollen by
      a touching neighbour) is seen at its own size.
    - Then a find still not read as a sure die (and not surely a non-die) is read from crops moved by
      ``shifted_look`` x its side in the four directions; the surest of those that read as a sure die replaces it,
      centre included: a find beside its die's centre (touching dice, glare) is read on the die.
    - A die whose value is read below ``unsure_value`` is read from those moved crops too, and takes the value of
      the surest that is at least ``unsure_value`` sure, keeping its place: a die seen from low down, centred
      between its top face and a side face, is read on its top face.
    """
    finds, probs = list(finds), probs.copy()
    denied = [(i, finds[i]) for i, (find, p) in enumerate(zip(finds, probs))
              if find[3] >= params.find_threshold and p[dice_net.NOT_A_DIE] > params.not_a_die_threshold]
    for scale in params.wider_look_scales if denied else ():
        wider = [(x, y, side * scale, score) for _, (x, y, side, score) in denied]
        for (i, _), find, p in zip(denied, wider, _read_values(image, wider, params)):
            if _sure_die(find, p, params) and (not _sure_die(finds[i], probs[i], params)
                                               or _face_probability(p) > _face_probability(probs[i])):
                finds[i], probs[i] = find, p
    unsure = np.nonzero((_face_probability(probs) < params.value_threshold)
                        & (probs[:, dice_net.NOT_A_DIE] <= params.not_a_die_threshold))[0]
    for scale in params.second_look_scales if len(unsure) else ():
        rescaled = [(x, y, side * scale, score) for x, y, side, score in (finds[i] for i in unsure)]
        for i, p in zip(unsure, _read_values(image, rescaled, params)):
            if _face_probability(p) > _face_probability(probs[i]):
                probs[i] = p
    doubted = [i for i, (find, p) in enumerate(zip(finds, probs))
               if (not _sure_die(find, p, params) or _face_probability(p) < params.unsure_value)
               and p[dice_net.NOT_A_DIE] < params.shifted_look_skip]
    if not params.shifted_look or not doubted:
        return finds, probs
    moved = [(x + dx * params.shifted_look * side, y + dy * params.shifted_look * side, side, score)
             for x, y, side, score in (finds[i] for i in doubted)
             for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    readings = _read_values(image, moved, params)
    for n, i in enumerate(doubted):
        already_die = _sure_die(finds[i], probs[i], params)
        for find, p in zip(moved[4 * n: 4 * n + 4], readings[4 * n: 4 * n + 4]):
            best = _face_probability(p)
            if _sure_die(find, p, params) and best > _face_probability(probs[i]) and (
                    not already_die or best >= params.unsure_value):
                if not already_die:
                    finds[i] = find
                probs[i] = p
    return finds, probs


def _on_a_kept_die(find, kept: list, params: ReaderParams) -> bool:
    """Whether ``find`` lies within ``params.duplicate_distance`` of a side of a die in ``kept`` (find, probabilities)
    pairs: that die seen again."""
    return any(np.hypot(find[0] - k[0], find[1] - k[1]) < params.duplicate_distance * k[2] for k, _ in kept)


def _outsized_read_again(image: np.ndarray, kept: list, params: ReaderParams) -> list:
    """``kept`` (find, probabilities) pairs with each die read below ``params.outsized_below`` whose side is at least
    ``params.outsized_ratio`` times the median side of the dice read at least that surely (when there are
    ``params.outsized_peers`` of those) read again at that median side: kept so when the reader is then sure of it and
    it lies on no other die, else dropped."""
    confidence = [f[3] * float(_face_probability(p)) for f, p in kept]
    sides = [f[2] for (f, _), c in zip(kept, confidence) if c >= params.outsized_below]
    if params.outsized_ratio <= 0 or len(sides) < params.outsized_peers:
        return kept
    side = float(np.median(sides))
    outsized = {i for i, ((f, _), c) in enumerate(zip(kept, confidence))
                if c < params.outsized_below and f[2] >= params.outsized_ratio * side}
    if not outsized:
        return kept
    again = [(kept[i][0][0], kept[i][0][1], side, kept[i][0][3]) for i in sorted(outsized)]
    out = [pair for i, pair in enumerate(kept) if i not in outsized]
    for find, p in zip(again, _read_values(image, again, params)):
        if _sure_die(find, p, params) and not _on_a_kept_die(find, out, params):
            out.append((find, p))
    return out


def _top_face_look(image: np.ndarray, kept: list, params: ReaderParams) -> list:
    """``kept`` (find, probabilities) pairs, a die read below ``unsure_value`` whose outline shows side faces taking
    the reading of its top face alone where that is surer of the face and still a die (see ``ReaderParams.top_face``)."""
    if params.top_face is None:
        return kept
    looks, owners = [], []
    for i, ((cx, cy, side, score), p) in enumerate(kept):
        if _face_probability(p) < params.unsure_value:
            outline = die_outline(image, (cx, cy), side, params.top_face)
            for x, y, s in top_face_looks(outline, side, params.top_face) if outline else ():
                looks.append((x, y, s, score))
                owners.append(i)
    if not looks:
        return kept
    kept = list(kept)
    for i, look, p in zip(owners, looks, _read_values(image, looks, params)):
        if _sure_die(look, p, params) and _face_probability(p) > _face_probability(kept[i][1]):
            kept[i] = (kept[i][0], p)
    return kept


def _sure_die(find, p: np.ndarray, params: ReaderParams) -> bool:
    """Whether the reader takes ``find`` for a die and is sure of its face (a faint find needs more)."""
    not_a_die = params.weak_find_not_a_die if find[3] < params.find_threshold else params.not_a_die_threshold
    return p[dice_net.NOT_A_DIE] <= not_a_die and _face_probability(p) >= params.value_threshold


def _face_probability(p: np.ndarray) -> np.ndarray:
    """How sure the reader is of what a die's top face shows (its likeliest value, or a symbol), per row of ``p``."""
    return np.maximum(p[..., : dice_net.NOT_A_DIE].max(axis=-1), p[..., dice_net.SYMBOL])


def _a_group_of_dice(big_find, big_probs: np.ndarray, read, params: ReaderParams) -> bool:
    """Whether the finer pass's finds inside a big die's find hold ``group_min_dice`` separate small dice read
    surely, not all as 1s, or more 1s than the big die's value (a face has as many pips as its value; see
    ``ReaderParams.group_min_dice``): then the big die is the group seen whole."""
    cx, cy, side, _ = big_find
    small = [(f, int(np.argmax(p[: dice_net.NOT_A_DIE])) + 1) for f, p in read
             if np.hypot(f[0] - cx, f[1] - cy) < params.duplicate_distance * side and f[2] <= params.group_side_share * side
             and p[dice_net.NOT_A_DIE] <= params.weak_find_not_a_die and p[: dice_net.NOT_A_DIE].max() >= params.unsure_value]
    separate: list = []
    for (x, y, s, _), value in small:
        if all(np.hypot(x - k[0], y - k[1]) >= params.duplicate_distance * k[2] for k in separate):
            separate.append((x, y, s, value))
    big_value = int(np.argmax(big_probs[: dice_net.NOT_A_DIE])) + 1
    return len(separate) >= params.group_min_dice and (
        any(value != 1 for *_, value in separate) or len(separate) > big_value)


def _dice_surest_first(read, params: ReaderParams):
    """The (find, probabilities) pairs the reader takes for dice, surest first (finder score x reader's
    die probability), so that of several finds on one die the best-read one is kept.  A weak find counts
    only when the reader is sure it is a die."""
    dice = [(f, p) for f, p in read if p[dice_net.NOT_A_DIE] <= (
        params.weak_find_not_a_die if f[3] < params.find_threshold else params.not_a_die_threshold)]
    return sorted(dice, key=lambda r: r[0][3] * (1.0 - r[1][dice_net.NOT_A_DIE]), reverse=True)


def colour_features(image: np.ndarray, boxes, palette: Palette, light: LightParams = DEFAULT_LIGHT) -> list[np.ndarray]:
    """The CIELAB colour of the die's body in each box, after undoing the light the frame and its dice show, its
    brightness and its colour (:mod:`vision.light`); with ``light.enabled`` False, as the frame shows it."""
    bodies = [die_body(image, bbox) for bbox in boxes]
    if light.enabled and bodies:
        guess = grey_guess(image, light, exposure_gain(image, boxes, light))
        exposure = exposure_gain(image, boxes, light, guess)
        means = np.array([bgr.mean(axis=0) for bgr, _ in bodies]) * exposure
        gains = exposure * estimate_gains(means, palette.nearest_distances, guess, light)
        if not np.allclose(gains, 1.0, atol=1e-6):
            return [body_features(bgr, gains) for bgr, _ in bodies]
    return [lab.mean(axis=0) for _, lab in bodies]


def name_colours(image: np.ndarray, boxes, palette: Palette, light: LightParams = DEFAULT_LIGHT) -> list[str | None]:
    """The palette's name (or None) for the die in each box (see :func:`colour_features`)."""
    return [palette.classify(f)[0] for f in colour_features(image, boxes, palette, light)]


def _in_size(finds: list, params: ReaderParams) -> list:
    """The finds (cx, cy, side, score) whose side lies within the params' size range."""
    return [f for f in finds if params.min_side <= f[2] <= params.max_side]


def _zoom_region(image: np.ndarray, params: ReaderParams) -> tuple[int, int, int, int] | None:
    """The part of a big frame to read instead of the whole (see ``ReaderParams.zoom_share``), or None."""
    long_side = max(image.shape[:2])
    if params.zoom_share <= 0 or long_side < params.zoom_min_frame:
        return None
    region = detailed_region(image, params.region)
    if region is None or max(region[2:]) > params.zoom_share * long_side:
        return None
    return region


def read_frame(image_bgr: np.ndarray, *, palette: Palette | None = None, params: ReaderParams = DEFAULT_PARAMS,
               **overrides) -> Reading:
    """Every die in a BGR frame (any size, grey / 16-bit accepted) as a :class:`Reading`.

    ``palette`` names the colours (default: :func:`vision.colour.default_palette`);
    ``params`` or keyword overrides of its fields (e.g. ``find_threshold=0.4``) tune the reader.
    """
    if overrides:
        unknown = set(overrides) - set(ReaderParams.__dataclass_fields__)
        if unknown:
            raise UserError(f"unknown reader parameter(s): {', '.join(sorted(unknown))}")
        params = ReaderParams(**{**params.__dict__, **overrides})
    return read_through_slant(image_bgr, palette=palette, params=params).reading


@dataclass(frozen=True)
class SlantedReading:
    """A frame's reading and the stretch it was read through (vision/view.py)."""

    reading: Reading
    slant: Stretch      # the stretch the dice were read best through: the one to try first on the camera's next frame
    searched: bool      # the frame's dice were doubted and the stretches searched for a surer reading
    frame: np.ndarray   # the frame as the reader looked at it (:func:`prepared_frame`)


def read_through_slant(image_bgr: np.ndarray, *, palette: Palette | None = None, params: ReaderParams = DEFAULT_PARAMS,
                       slant: Stretch = STRAIGHT, search: bool = True) -> SlantedReading:
    """:func:`read_frame` through ``slant`` first (the stretch this camera's last frame was read best
    through).  With ``search``, a frame whose dice the reader doubts (``params.slant_doubtful``), or
    where the finder surely saw a die and no die was read, is read as it is and through the stretches
    of :func:`vision.view.surest_slant`, and the surest reading kept (dice found only through a
    stretch must themselves reach ``params.slant_doubtful``).  Doubtful finds the reader cannot read
    (``params.unreadable_confidence``), dice the print check is all but certain are no die
    (``params.print_check_sure``), and finds lying where ``params.side_faces`` says this camera shows a die's
    side faces, are dropped last."""
    start = time.perf_counter()
    if not 1 <= params.views <= 4:
        raise UserError(f"views must be 1 to 4, not {params.views}")
    image = prepared_frame(image_bgr, params)
    palette = palette or default_palette()

    def read_through(stretch: Stretch) -> Reading:
        # a die's side in the stretched frame grows by up to the stretch
        stretched_params = params if stretch.is_identity else replace(params, max_side=params.max_side * stretch.factor,
                                                                      count_taken_below=0.0)
        return read_stretched(image, stretch, lambda frame: _read_as_seen(frame, palette, stretched_params))

    reading = read_through(slant)
    something_seen = bool(reading.dice) or reading.sure_finds > 0
    searched = search and something_seen and mean_confidence(reading) < params.slant_doubtful
    if searched:
        straight = read_through(STRAIGHT) if not slant.is_identity else reading
        best, found = surest_slant(read_through, straight, params.slant_margin)
        # dice where none were read must not be doubtful themselves
        doubtful_from_nothing = not reading.dice and mean_confidence(best) < params.slant_doubtful
        if not doubtful_from_nothing and (slant.is_identity or mean_confidence(best) >= mean_confidence(reading)):
            reading, slant = best, found
    dice = _without_specks(image, _without_unreadable(reading.dice, params), params)
    dice = _without_side_faces(image, _without_certain_prints(image, _without_round_symbols(image, dice, params), params),
                               params.side_faces)
    return SlantedReading(Reading(dice, (time.perf_counter() - start) * 1000.0), slant, searched, image)


def _without_certain_prints(image: np.ndarray, dice: tuple[DieReading, ...], params: ReaderParams) -> tuple[DieReading, ...]:
    """``dice`` without those reported with a confidence from ``params.print_check_below`` up to
    ``print_check_sure_below`` that the print check gives at least ``print_check_sure`` of being no die."""
    if params.print_check >= 1.0 or params.print_check_sure >= 1.0:
        return dice
    asked = [i for i, die in enumerate(dice) if params.print_check_below <= die.confidence < params.print_check_sure_below]
    if not asked:
        return dice
    finds = [(*dice[i].center, max(dice[i].bbox[2:]), dice[i].confidence) for i in asked]
    certain = {i for i, q in zip(asked, _print_probability(image, finds)) if q >= params.print_check_sure}
    return tuple(die for i, die in enumerate(dice) if i not in certain)


def _without_round_symbols(image: np.ndarray, dice: tuple[DieReading, ...], params: ReaderParams) -> tuple[DieReading, ...]:
    """``dice`` without those read as a symbol face, when the player's symbol is not learnt, whose outline is round
    (``params.round_symbol``)."""
    if params.symbol_value is not None or params.round_symbol <= 0:
        return dice

    def round_outline(die: DieReading) -> bool:
        fill = outline_fill(image, die.center, max(die.bbox[2:]), params.top_face or DEFAULT_TOP_FACE)
        return fill is not None and fill < params.round_symbol

    return tuple(die for die in dice if not (die.symbol and round_outline(die)))


def _counted_value(image: np.ndarray, centre: tuple[float, float], side: float, p: np.ndarray,
                   params: ReaderParams) -> int | None:
    """The value of a die the network doubts, by its pips counted without the network (``params.pip_count``): a
    count of 2-6, or a lone pip the network gives a 1 at least ``params.lone_pip_floor``; None: no count."""
    if params.pip_count is None:
        return None
    counted = count_pips(image, centre, side, params.pip_count)
    if counted is None or (counted == 1 and p[0] < params.lone_pip_floor):
        return None
    return counted


def _value_checked_by_count(image: np.ndarray, centre: tuple[float, float], side: float, p: np.ndarray,
                            params: ReaderParams) -> tuple[int | None, bool]:
    """A number face's value (None below ``params.value_threshold``) and whether it is flagged value-unsure: read
    below ``params.unsure_value``, it takes its pips' count where there is one (:func:`_counted_value`); read below
    ``params.count_check_below``, it is flagged where the count gives another value, which it takes when read below
    ``params.count_taken_below``."""
    best = int(np.argmax(p[: dice_net.NOT_A_DIE]))
    sure = float(p[best])
    value = best + 1 if sure >= params.value_threshold else None
    if sure < params.unsure_value:
        return _counted_value(image, centre, side, p, params) or value, True
    if value is not None and sure < params.count_check_below:
        counted = _counted_value(image, centre, side, p, params)
        if counted is not None and counted != value:
            return (counted if sure < params.count_taken_below else value), True
    return value, False


def _counted_dice(image: np.ndarray, read: list, params: ReaderParams) -> list:
    """The (find, probabilities) pairs of ``read`` that the reader takes for no die, but not surely (see
    ``ReaderParams.counted_die``), of a sure find whose pips count as a real face of 2-6."""
    if params.pip_count is None:
        return []
    return [(find, p) for find, p in read
            if find[3] >= params.find_threshold
            and params.not_a_die_threshold < p[dice_net.NOT_A_DIE] <= params.counted_die
            and (count_pips(image, find[:2], find[2], params.pip_count) or 0) >= 2]


def _without_specks(image: np.ndarray, dice: tuple[DieReading, ...], params: ReaderParams) -> tuple[DieReading, ...]:
    """``dice`` without those reported below ``params.speck_below`` that differ from the table around them on less
    than ``params.speck_share`` of their disc (:func:`vision.top_face.share_unlike_table`)."""
    def speck(die: DieReading) -> bool:
        share = share_unlike_table(image, die.center, max(die.bbox[2:]), params.top_face or DEFAULT_TOP_FACE)
        return share is not None and share < params.speck_share

    return tuple(die for die in dice if die.confidence >= params.speck_below or not speck(die))


def _without_unreadable(dice: tuple[DieReading, ...], params: ReaderParams) -> tuple[DieReading, ...]:
    """``dice`` without those read with neither a value nor a symbol and a confidence below
    ``params.unreadable_confidence``."""
    return tuple(die for die in dice if die.value is not None or die.symbol or die.confidence >= params.unreadable_confidence)


class _DieBodies:
    """Each die's mean body colour (CIELAB) in ``image``, measured the first time it is asked for: most dice lie
    too far from any other for the side-face checks to need it."""

    def __init__(self, image: np.ndarray, dice: tuple[DieReading, ...]):
        self._image, self._dice, self._lab = image, dice, {}

    def __len__(self) -> int:
        return len(self._dice)

    def __getitem__(self, index: int) -> np.ndarray:
        if index not in self._lab:
            self._lab[index] = die_body(self._image, self._dice[index].bbox)[1].mean(axis=0)
        return self._lab[index]


def _without_side_faces(image: np.ndarray, dice: tuple[DieReading, ...], side_faces: SideFaceParams | None,
                        bodies: _DieBodies | None = None) -> tuple[DieReading, ...]:
    """``dice`` without the finds that are another die's side face where the camera shows them
    (``ReaderParams.side_faces``)."""
    if side_faces is None or len(dice) < 2:
        return dice
    bodies = _DieBodies(image, dice) if bodies is None else bodies
    dropped = side_face_finds([die.center for die in dice], [die.bbox[2] for die in dice], bodies, side_faces)
    return tuple(die for i, die in enumerate(dice) if i not in dropped)


class CameraReader:
    """Reads one camera's frames, remembering what its mount does to the picture.

    - The stretch its slant needs: each frame is read through the stretch found last, and a frame whose dice the
      reader doubts is searched again only when ``search_every`` frames have passed since the last search, twice
      as many after each search that found the stretch it already had, up to ``longest_wait`` (a search reads the
      frame 6-8 times; a camera's slant stays as it was between frames).
    - Where it shows dice's side faces (``side_face_vote``; None: never): the latest pairs of finds of one colour
      closer than a die's side (each counted once however many frames show it) vote on their way, and once enough
      agree (``side_faces``, :func:`vision.top_face.voted_offset`), a find lying that way from a die, of its colour,
      is dropped as the die's side face.  Reading with learnt side faces (``params.side_faces``) does not vote."""

    def __init__(self, search_every: int = 20, longest_wait: int = 320,
                 side_face_vote: SideFaceVote | None = DEFAULT_SIDE_FACE_VOTE):
        self.search_every, self.longest_wait = search_every, longest_wait
        self.slant = STRAIGHT
        self._wait = search_every
        self._since_search = search_every
        self.side_face_vote = side_face_vote
        self._pairs: list[ClosePair] = []
        self.side_faces: SideFaceParams | None = None

    def read(self, frame: np.ndarray, palette: Palette | None = None, params: ReaderParams = DEFAULT_PARAMS) -> Reading:
        slanted = read_through_slant(frame, palette=palette, params=params, slant=self.slant,
                                     search=self._since_search >= self._wait)
        if slanted.searched:
            self._wait = min(2 * self._wait, self.longest_wait) if slanted.slant == self.slant else self.search_every
            self._since_search = 0
        else:
            self._since_search += 1
        self.slant = slanted.slant
        reading = slanted.reading
        if self.side_face_vote is None or params.side_faces is not None or len(reading.dice) < 2:
            return reading
        start = time.perf_counter()
        bodies = _DieBodies(slanted.frame, reading.dice)  # compared as the reader saw them
        for pair in close_pairs([d.center for d in reading.dice], [d.bbox[2] for d in reading.dice], bodies,
                                [d.confidence for d in reading.dice], self.side_face_vote):
            if not any(pair.same_as(seen, self.side_face_vote) for seen in self._pairs):
                self._pairs = (self._pairs + [pair])[-self.side_face_vote.remembered:]
        offset = voted_offset([pair.way for pair in self._pairs], self.side_face_vote)
        self.side_faces = None if offset is None else replace(self.side_face_vote.side_faces, offset=offset)
        dice = _without_side_faces(slanted.frame, reading.dice, self.side_faces, bodies)
        return replace(reading, dice=dice, ms=reading.ms + (time.perf_counter() - start) * 1000.0)


def _read_as_seen(image: np.ndarray, palette: Palette, params: ReaderParams) -> Reading:
    """Every die in an 8-bit BGR frame, the frame taken as it is (no slant undone)."""
    region = _zoom_region(image, params)
    if region is not None:
        x, y, w, h = region
        part = _read_as_seen(image[y:y + h, x:x + w], palette, replace(params, zoom_share=0.0))
        return Reading(tuple(d.moved(x, y) for d in part.dice), sure_finds=part.sure_finds)
    dice: list[DieReading] = []
    sure_finds = 0
    if min(image.shape[:2]) >= 16:
        finds, big = (_in_size(found, params) for found in _find(image, params))
        candidates = big + finds
        sure_finds = sum(f[3] >= params.find_threshold for f in candidates)
        read = []
        if candidates:
            read = list(zip(*_second_look(image, candidates, _read_values(image, candidates, params), params)))
        big_dice = [(f, p) for f, p in read[: len(big)]
                    if _sure_die(f, p, params) and not _a_group_of_dice(f, p, read[len(big):], params)]
        # prints go before duplicates: a big find on a group of far-away dice that the check drops hides none of them
        kept = []
        surest_first = _dice_surest_first(read[len(big):], params) + _counted_dice(image, read[len(big):], params)
        for find, p in _without_prints(image, big_dice + surest_first, params):
            if not _on_a_kept_die(find, kept, params):
                kept.append((find, p))
        kept = _top_face_look(image, _outsized_read_again(image, kept, params), params)
        boxes = [(cx - side / 2, cy - side / 2, side, side) for (cx, cy, side, _), _ in kept]
        for ((cx, cy, side, score), p), bbox, lab in zip(kept, boxes, colour_features(image, boxes, palette, params.light)):
            best = int(np.argmax(p[: dice_net.NOT_A_DIE]))
            symbol = p[dice_net.SYMBOL] > p[best]
            sure = float(p[dice_net.SYMBOL] if symbol else p[best])
            if symbol:
                value = params.symbol_value if sure >= params.value_threshold else None
                value_unsure = sure < params.unsure_value
            else:
                value, value_unsure = _value_checked_by_count(image, (cx, cy), side, p, params)
            colour, _, margin = palette.classify_with_margin(lab)
            dice.append(DieReading(value, colour, (cx, cy), bbox, round(score * sure, 4), value_unsure=value_unsure,
                                   colour_unsure=colour is not None and margin < params.unsure_colour_margin,
                                   symbol=bool(symbol)))
    return Reading(tuple(dice), sure_finds=sure_finds)


def read_file(path, palette: Palette | None = None, **params) -> Reading:
    """Read one image file (a big photo decoded reduced, positions given in its own pixels);
    UserError if it cannot be read as an image."""
    return next(read_files([path], lambda frame: read_frame(frame, palette=palette, **params), raise_errors=True))


def read_files(paths: Iterable, read: Callable[[np.ndarray], Reading] | None = None,
               raise_errors: bool = False) -> Iterator[Reading]:
    """A reading per image file by ``read`` (default :func:`read_frame`), positions in the file's
    pixels even when a big photo was decoded reduced; an unreadable file gives a Reading with
    ``error`` set instead of stopping the rest (or raises its UserError with ``raise_errors``)."""
    read = read or read_frame
    for path in paths:
        try:
            frame, scale = load_scaled_image(path)
        except UserError as exc:
            if raise_errors:
                raise
            yield Reading(image=str(path), error=str(exc))
            continue
        reading = read(frame)
        dice = reading.dice if scale == 1.0 else tuple(d.scaled(1.0 / scale) for d in reading.dice)
        yield Reading(dice, reading.ms, image=str(path))
