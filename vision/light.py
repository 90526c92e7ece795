"""The colour of the light on the table, estimated from the frame, undone before dice colours are named.

A warm lamp makes white dice look ivory and yellow ones orange; cool daylight turns them bluish.
Without a calibration profile the reader still has two clues to the light:

- the frame's *near-grey* pixels (a white or grey tray, paper, shadows): the correction that makes them
  grey is one hypothesis (:func:`grey_guess`; none when too few pixels are near-grey, e.g. on felt);
- the dice themselves: under the true light they look most like colours of the palette.

:func:`estimate_gains` weighs both.  Each candidate correction (per-channel gains for the whole frame,
on a grid of warm-cool and green-magenta steps, plus the grey guess) costs the sum over the dice of their
distance to the nearest palette colour (capped, so that a die of no palette colour cannot drag the light),
plus ``prior_weight`` x its log-gain distance from the nearer of "no correction" and the grey guess.  One
die cannot outweigh that prior; a trayful of dice can.  When the frame's grey guess is a cast (at least one
grid step from no correction), "no correction" starts ``guess_trust`` behind it: a lone white die under a lamp
fits "white" under the guess as well as "orange" under no correction, and the grey surface around it is the
better witness.  No correction is on the grid exactly, and then the colours are named from the frame's own
pixels, as without this step.

A dim frame is first brought up by its dice's brightest parts (:func:`exposure_gain`): its grey surfaces are
judged brought up, and the dice's brightness is measured as the grey guess shows them.

Before any of that, a whole frame too dark for the networks (an underexposed camera, a dim room) is brought up
as a camera's exposure would (:func:`brought_up`): the finder and the face reader learnt well-exposed dice.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.errors import UserError

#: Luminance weights of the B, G and R channels: gains keep a grey's brightness.
LUMA_BGR = np.array([0.114, 0.587, 0.299])


@dataclass(frozen=True)
class LightParams:
    """The light estimate's tunable numbers, with their defaults and reasons."""

    enabled: bool = True        # estimate and undo the light (False: name colours from the raw frame)
    reach: float = 0.45         # largest correction along the warm-cool axis, as log gain (0.45: red / blue x2.5)
    tint_reach: float = 0.2     # largest correction along the green-magenta axis, as log gain
    step: float = 0.05          # grid step of the candidate corrections, log gain
    prior_weight: float = 16.0  # cost (in spreads, summed over the dice) of each log-gain unit away from
    # no correction or the frame's guess, whichever is nearer: a few dice cannot move the light far, a trayful can
    guess_trust: float = 0.05   # log gain added to "no correction"'s distance when the frame's grey guess is a cast
    # (one grid step): a die that fits both ways takes the guess; aibox's lone white dice under the tungsten row
    # were named orange or brown in 13 of 24 photos without it, 2 with it (0.02: 5; 0.1 and 0.2 as 0.05); byler's
    # white background guesses 0.02 (less than a step: no cast), and trusting that turned 3 purple dice blue
    grey_chroma: float = 30.0   # CIELAB chroma below which a frame pixel counts as near-grey (a grey tray
    # under synth's warm lamp reaches 26; green felt, wood and blue felt are 33 to 39)
    grey_lightness: tuple[float, float] = (30.0, 97.0)  # CIELAB L range of such pixels, the frame brought up by
    # its dice's exposure gain first: dark and blown-out pixels say little about the light's colour (aibox's dark box
    # wall, L 28, is yellow-green beyond tint_reach and took the guess away under the tungsten row: two white dice
    # named yellow with 15; 25 and 40 leave one, 30 none)
    grey_share: float = 0.25    # the frame's guess needs at least this share of its pixels near-grey
    fit_cap: float = 3.0        # a die's distance to the palette counts up to this many spreads
    grey_samples: int = 5000    # the frame's guess looks at about this many pixels, evenly spread (plenty for a mean)
    exposure_target: float = 180.0  # the brightest parts of the dice (white pips, light bodies: the 99th percentile
    # of their pixels' brightest channel) are brought up to this when darker: an underexposed or dim photo keeps its
    # colour names (well-lit photos measure 190-220, the Pi camera's dim box 140-185; 200 lost byler dice)
    exposure_max_gain: float = 3.0  # at most this much brighter

    def __post_init__(self):
        if not (self.step > 0 and self.reach >= 0 and self.tint_reach >= 0 and self.prior_weight >= 0
                and self.fit_cap > 0 and self.grey_samples >= 1 and 0 <= self.grey_share <= 1
                and self.guess_trust >= 0 and 0 < self.exposure_target <= 255 and self.exposure_max_gain >= 1):
            raise UserError("light parameters: step, fit_cap and grey_samples must be positive, reach, tint_reach, "
                            "prior_weight and guess_trust not negative, grey_share 0 to 1, exposure_target 0 to 255, "
                            "exposure_max_gain at least 1")


DEFAULT_LIGHT = LightParams()


@dataclass(frozen=True)
class FrameExposure:
    """When a whole frame is underexposed, and how far it is brought up before the networks see it."""

    dim_below: float = 133.0  # a frame whose brightest pixel (any channel) stays below this is underexposed: the
    # public sets' photos measure 155-255, the same photos at 40 % brightness 62-102; the brightest pixel, not a
    # percentile, so that a few small white dice on a dark table keep the frame as it is
    target: float = 250.0     # ... and is brought up so that it reaches this, as a camera's exposure would have it
    # (one gain for every pixel: nothing clips; a frame brought up is not brought up again)
    too_dark: float = 20.0    # a frame whose brightest pixel stays below this shows nothing to bring up: left as it is
    samples: int = 768        # the brightest pixel is looked for among at most this many pixels across the long side
    # (every pixel of a frame up to 768 px; a die of 12 px in a 4032 px frame still holds four)

    def __post_init__(self):
        if not (0 < self.too_dark <= self.dim_below <= self.target <= 255 and self.samples >= 1):
            raise UserError("frame exposure: 0 < too_dark <= dim_below <= target <= 255, samples at least 1")


DEFAULT_FRAME_EXPOSURE = FrameExposure()


def brought_up(image_bgr: np.ndarray, exposure: FrameExposure = DEFAULT_FRAME_EXPOSURE) -> np.ndarray:
    """An 8-bit BGR frame brightened by one gain for every pixel and channel when it is underexposed
    (``exposure.dim_below``), so that its brightest pixel reaches ``exposure.target``; a frame exposed well enough,
    or too dark to show anything (``exposure.too_dark``), is returned as it is."""
    step = -(-max(image_bgr.shape[:2]) // exposure.samples)  # rounded up: at most ``samples`` pixels across
    level = float(image_bgr[::step, ::step].max())
    if not exposure.too_dark <= level < exposure.dim_below:
        return image_bgr
    return cv2.convertScaleAbs(image_bgr, alpha=exposure.target / level)


def normalised(log_gains: np.ndarray) -> np.ndarray:
    """BGR gains from log gains (..., 3), scaled so that a grey keeps its brightness."""
    gains = np.exp(np.asarray(log_gains, dtype=np.float64))
    return gains / (gains @ LUMA_BGR)[..., None]


@lru_cache(maxsize=8)
def candidate_gains(reach: float, tint_reach: float, step: float) -> np.ndarray:
    """Every candidate correction (n x 3 BGR gains): warm-cool steps (blue up, red down) by green-magenta
    steps, neutral included exactly."""
    warm = np.arange(-round(reach / step), round(reach / step) + 1) * step
    tint = np.arange(-round(tint_reach / step), round(tint_reach / step) + 1) * step
    u, v = (a.ravel() for a in np.meshgrid(warm, tint))
    return normalised(np.stack([u, v, -u], axis=1))


def grey_guess(image_bgr: np.ndarray, params: LightParams = DEFAULT_LIGHT, exposure: float = 1.0) -> np.ndarray:
    """The frame's grey hypothesis (BGR gains): the correction that makes its near-grey pixels grey, or no
    correction when too few pixels are near-grey.

    A strong cast (a tungsten lamp, shade) pushes a grey tray past ``grey_chroma``; so the pixels are looked at
    under corrections along the warm-cool axis (the way lamps and daylight differ), nearest to none first, and
    the near-grey ones are those of the first correction under which at least ``grey_share`` of the frame is
    near-grey.  A guess beyond the reach of the corrections (``reach``, ``tint_reach``) is no guess: coloured felt
    made grey would need one.  ``exposure`` (:func:`exposure_gain`) brightens the frame first, so that a dim
    frame's grey surfaces are judged as a well-lit frame's are."""
    rows, cols = image_bgr.shape[:2]
    step = max(1, int(np.sqrt(rows * cols / params.grey_samples)))
    pixels = np.ascontiguousarray(image_bgr[::step, ::step]).reshape(-1, 1, 3).astype(np.float32)
    if exposure != 1.0:
        pixels = np.minimum(pixels * np.float32(exposure), 255.0)
    for gains in _nearest_first(candidate_gains(params.reach, 0.0, params.step)):
        corrected = np.clip(pixels * gains.astype(np.float32), 0, 255).astype(np.uint8)
        # 8-bit Lab (L x 2.55, a and b + 128) is plenty to tell near-grey pixels, and fast.
        lab = cv2.cvtColor(corrected, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
        lightness = lab[:, 0] / 2.55
        grey = ((np.hypot(lab[:, 1] - 128, lab[:, 2] - 128) < params.grey_chroma)
                & (lightness > params.grey_lightness[0]) & (lightness < params.grey_lightness[1]))
        if grey.sum() >= max(params.grey_share * len(pixels), 1):
            mean = np.maximum(pixels.reshape(-1, 3)[grey].astype(np.float64).mean(axis=0), 1.0)
            log_b, log_g, log_r = -np.log(mean)
            warm_cool, tint = (log_b - log_r) / 2, log_g - (log_b + log_r) / 2
            if abs(warm_cool) <= params.reach + params.step and abs(tint) <= params.tint_reach + params.step:
                return normalised(-np.log(mean / (mean @ LUMA_BGR)))
            break
    return np.ones(3)


def _nearest_first(candidates: np.ndarray) -> np.ndarray:
    return candidates[np.argsort(np.linalg.norm(np.log(candidates), axis=1), kind="stable")]


def exposure_gain(image_bgr: np.ndarray, boxes, params: LightParams = DEFAULT_LIGHT, gains=None) -> float:
    """How much brighter the frame must be for its dice's brightest parts to reach ``exposure_target``
    (1 when they already do; at most ``exposure_max_gain``).  Dark dice have light pips and light dice are light,
    so a dim frame shows itself in the dice whatever the table.  With ``gains`` (BGR, the frame's grey guess) the
    dice are judged as that correction shows them: under a warm lamp a white die's brightest channel is red."""
    rows, cols = image_bgr.shape[:2]
    brightest = []
    for x, y, w, h in boxes:
        x0, y0, x1, y1 = max(int(x), 0), max(int(y), 0), min(int(x + w) + 1, cols), min(int(y + h) + 1, rows)
        if x1 > x0 and y1 > y0:
            step = max(1, round(max(x1 - x0, y1 - y0) / 48))  # about 48 x 48 pixels of a big die are plenty
            part = image_bgr[y0:y1:step, x0:x1:step]
            if gains is not None:
                part = part * np.asarray(gains, np.float64)
            brightest.append(part.max(axis=2).ravel())
    if not brightest:
        return 1.0
    level = max(float(np.percentile(np.concatenate(brightest), 99)), 1.0)
    return float(np.clip(params.exposure_target / level, 1.0, params.exposure_max_gain))


def estimate_gains(body_means_bgr: np.ndarray, distance_to_palette, guess: np.ndarray,
                   params: LightParams = DEFAULT_LIGHT) -> np.ndarray:
    """The correction (BGR gains) that best explains the dice: the candidate (the grid and ``guess``) with the
    least sum of the corrected dice's capped palette distances plus ``prior_weight`` x its log-gain distance
    from the nearer of no correction (``guess_trust`` further when ``guess`` is a cast: ``step`` or more from no
    correction) and ``guess``.

    ``body_means_bgr`` is each die's mean body colour (n x 3); ``distance_to_palette`` maps Lab colours
    (m x 3) to their distance in spreads from the nearest palette colour.
    """
    candidates = np.vstack([candidate_gains(params.reach, params.tint_reach, params.step), guess])
    logs = np.log(candidates)
    cast = np.linalg.norm(np.log(guess)) >= params.step
    from_none = np.linalg.norm(logs, axis=1) + (params.guess_trust if cast else 0.0)
    prior = params.prior_weight * np.minimum(from_none, np.linalg.norm(logs - np.log(guess), axis=1))
    if len(body_means_bgr) == 0:
        return candidates[int(np.argmin(prior))]
    corrected = np.clip(candidates[:, None, :] * np.asarray(body_means_bgr, np.float64)[None], 0, 255)
    lab = cv2.cvtColor(corrected.reshape(-1, 1, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    fit = np.minimum(distance_to_palette(lab), params.fit_cap).reshape(len(candidates), -1).sum(axis=1)
    return candidates[int(np.argmin(fit + prior))]
