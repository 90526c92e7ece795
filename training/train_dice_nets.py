"""Train the dice finder and the dice reader (see vision/dice_net.py) and export them to ONNX.

Data: the training part of each public set (vision.public_sets.split; the held-out part is
never seen) and synthetic renders from vision.synth.  What each set gives:
  byler_d6        whole-die boxes            -> centre and side
  matteop65_wood  pip-cluster boxes only     -> centre; side estimated from the cluster (PIP_BOX_TO_SIDE)
  aibox_pi_single no boxes, one die a photo  -> located by training/aibox_boxes.py; empty photos = negatives
Needs PyTorch (training only):  .venv/bin/pip install torch==2.13.0 onnx
and, for the print check's real pictures without dice, Debian's packages of PICTURE_PACKAGES (apt-get install).
Run (both from scratch, under 30 minutes on 2 cores; see training/README.md for what it reaches and the committed models):
    .venv/bin/python training/train_dice_nets.py --side-by-side --finder-minutes 17 --reader-minutes 20 --synth-frames 1000 --negatives 300 --seed 40
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import math
import multiprocessing
import pickle
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "training"))

from aibox_boxes import locate_single_die

from vision import dice_net, pip_faces, public_sets, synth

# Die side / pip-cluster box side, per value, for sets labelled with pip-cluster boxes
# (a standard die's pips span about 0.7 of the face; a lone pip about 0.45 with the labeller's margin).
PIP_BOX_TO_SIDE = {1: 2.1, 2: 1.45, 3: 1.35, 4: 1.3, 5: 1.35, 6: 1.2}
SYNTH_FRAMES = 400
READER_BATCH = 64
HARD_NEGATIVE_SHARE = 0.15  # reader samples taken where the finder errs, on photos where it does
FINDER_VIEW_SHARE = 0.3  # reader samples cropped where the finder put a labelled die, on real photos
DRAWN_FACE_SHARE = 0.08  # reader samples that are drawn faces (half of them impossible layouts)
HARD_DIE_SHARE = 0.5  # reader samples that are labelled dice picked by their recent loss (DieHardness)
FINDER_SNAPSHOT_SHARE = 0.3  # side by side: share of the finder's minutes after which the reader learns its finds
CHECKPOINTS = REPO / "training" / "checkpoints"  # default home of torch weights and cached trays (not committed)
SYNTH_SEED_BASE = 900_000  # far from the seeds tests and benchmarks use
NEGATIVE_SEED_BASE = 700_000  # pictures without dice (vision/synth_negatives.py); the benchmark's are seeds 0-29
NEGATIVE_FIND_SHARE = 0.6  # reader samples on a picture without dice taken where the finder errs there
OBLIQUE_SHARE = 0.25  # finder windows and reader crops seen as by a tilted camera: faces squashed along one direction
OBLIQUE_TILT_DEG = (20.0, 60.0)  # that camera's tilt from straight down: a face shrinks to cos(tilt) across the tilt
LOW_RES_SHARE = 0.15  # reader crops of a die made as if the die were only LOW_RES_SIDE px in the photo
LOW_RES_SIDE = (9.0, 22.0)  # (a die far below a phone, read from the frame's detailed part scaled up)
SLANTED_TRAYS = 0.5  # most share of a synthetic tray's scenes drawn by a slanted camera, side faces showing
TRAY_SLANT = (0.12, 0.85)  # how deep their side faces show, share of a side (a camera tilted 7-58 degrees)
READER_DRAWS = {"byler_d6": 1.0, "matteop65_wood": 0.7, "aibox_pi_single": 2.5, "synth": 0.5, "negatives": 0.5}  # how
# often the reader's samples come from each source's photos, relative to its share of them (PhotoDraw)
SYMBOL_TRAYS = 150  # synthetic trays whose 1s and 6s all show a maker's symbol, for the reader's symbol class
SYMBOL_SEED_BASE = 500_000
SYMBOL_SAMPLES = (6000, 24000)  # crops of those trays' dice, and other reader samples, the symbol class is fitted on
SYMBOL_STEPS = 1500
SYMBOL_PRIOR = 3.0  # log-odds taken off the fitted symbol class: symbol faces are rare at a real table, and at 2 it
# took real dice with a worn or logo-marked 1 for symbols (docs/benchmarks.md, "Symbol faces as their own answer")
FINDER_SYMBOL_WEIGHT = 0.3  # how often the finder draws a symbol tray (--finder-symbol-trays), against 0.6 for all
# the other synthetic trays together
FINDER_NO_DICE_WEIGHT = 0.3  # how often the finder draws a real photo without dice or a table of things
# (--finder-photos-without-dice), against 0.3 for all the rendered pictures without dice together
RANDOM_CONV_SIZES = (1, 3, 5, 7)  # kernel sizes of --random-convolutions' filters, taken at random
PRINT_PICTURES = 300  # pictures of pip prints (domino halves, dots printed on cards) the print check learns from
PRINT_SEED_BASE = 800_000  # far from the false-positive benchmark's seeds 0-29
PRINT_WIDTH = 32  # channels of the print check's first layers (twice as many in its last two)
PRINT_EPOCHS = 12  # passes over its samples (a one-cycle learning rate, PRINT_LR at its top)
PRINT_LR = 3e-3
PRINT_BATCH = 128
PRINT_COPIES = 3  # samples made of each find, each turned, squashed, dimmed and lit its own way
PRINT_DIE_CROPS = 12000  # most finds on dice and elsewhere it learns from
PRINT_OTHER_FINDS = 5  # finds on no die it takes from each photo (flat on a picture without dice, else not flat)
PRINT_SYMBOL_TRAYS = 60  # symbol trays whose dice it learns are dice (a star on a die is no print)
PRINT_SQUASHED = 0.5  # share of the crops of those dice squashed as by a tilted camera (a slanted die is no print)
PRINT_DIMMED = 0.3  # share of all those finds seen darker, by a factor drawn from PRINT_DIM (a dim die is no print)
PRINT_DIM = (0.3, 1.0)
PRINT_CAST = 0.5  # share of the samples seen under a warm or cool light (PRINT_CAST_GAINS at either end; ivory dice
# under a tungsten lamp look like a white card's dots, docs/benchmarks.md "The print check, a network of its own")
PRINT_CAST_GAINS = (0.4, 0.05, 0.3)  # blue, green and red gain changes of the warmest light (the coolest: the opposite)
PRINT_JITTER = 0.5  # share of the samples given the reader's colour jitter (colour_jitter)
PRINT_FEW_PIXELS = 0.2  # share of the samples seen as if the find were only LOW_RES_SIDE px across (few_pixels)
PHOTO_VIEWS = 6  # views the print check takes of each real photo without dice: the whole, and crops of
PHOTO_CROP = (0.25, 0.6)  # this share of its long side, each scaled to PHOTO_VIEW_SIDE px on its long side
PHOTO_VIEW_SIDE = 640
PHOTOS_WITHOUT_DICE = (Path("/usr/share/backgrounds"), Path("/usr/share/wallpapers"))  # Debian's desktop backgrounds
# (PICTURE_PACKAGES) put their photos and pictures here
OBJECT_PICTURES = Path("/usr/share/tuxpaint/stamps")  # cut-out photos and drawings of things (Debian's tuxpaint-stamps-default)
PICTURE_PACKAGES = ("mate-backgrounds", "plasma-workspace-wallpapers", "ukui-wallpapers", "lomiri-wallpapers",
                    "gnome-backgrounds", "tuxpaint-stamps-default")  # what puts those pictures there
OBJECT_TABLES = 400  # pictures of such things strewn on a table, for the print check (none of them a die)
OBJECT_COUNT = (3, 9)  # things on each
OBJECT_SIDE = (20.0, 200.0)  # px, each thing's long side in a 640x480 picture
PRINT_REAL_DIE_WEIGHT = 4.0  # a real photo's die counts this many times: losing one costs more than a print let through
TRAY_SIZES = ((640, 480), (640, 480), (640, 640), (1280, 720))  # synthetic trays' frame sizes, taken in turn
FIND_SOURCES = ("real", "synth", "negatives")  # whose finds on no die may be taught as "not a die" (--find-negatives-from)
FIND_NEGATIVES_FROM = set(FIND_SOURCES)  # real: the public sets' photos; synth: trays; negatives: pictures without dice
SOLID_DICE = 0.0  # share of a synthetic tray's dice drawn as lit solids (--solid-dice; vision/solid_die.py)
VEINED = 0.0  # share of a synthetic tray's flat dice swirled with veins of a second colour (--veined)
TRANSLUCENT = 0.0  # share of a synthetic tray's flat dice whose hidden faces' pips show through (--translucent)
SYNTH_VERSION = 3  # bumped when synthetic_tray changes, so a cached set of trays of the old kind is not reused


@dataclass
class Photo:
    image: np.ndarray
    dice: list[tuple[float, float, float, int]]  # centre x, centre y, side, value
    source: str
    hard_negatives: list[tuple[float, float, float]] = field(default_factory=list)  # finder finds on no die
    finder_views: list[tuple[float, float, float, int]] = field(default_factory=list)  # finder finds on a die, its value


def mine_finder_finds(photos: list[Photo], finder_file: Path, threshold: float = 0.2) -> None:
    """Run the finder model ``finder_file`` on the training photos and trays and record its finds as the reader
    will get them, in place of any recorded before: on no die (hard negatives: side faces, stickers, walls) and
    on a labelled die (its centre and size as the finder sees them, with the die's value), so the reader learns
    the finder's own crops."""
    from vision.reader import ReaderParams, _find

    dice_net.FINDER_FILE = finder_file  # the reader module's _find runs the finder named here
    params = ReaderParams(find_threshold=threshold)
    negatives = views = 0
    for photo in photos:
        photo.hard_negatives.clear()
        photo.finder_views.clear()
        finds, big = _find(photo.image, params)
        for x, y, side, _ in finds + big:
            near = [(math.hypot(x - dx, y - dy), dx, dy, ds, value) for dx, dy, ds, value in photo.dice]
            nearest = min(near, default=None)
            if nearest is None or nearest[0] > max(0.5 * nearest[3], 20.0):
                photo.hard_negatives.append((x, y, side))
                negatives += 1
            elif nearest[0] < 0.25 * nearest[3] and 0.6 < side / nearest[3] < 1.6:
                photo.finder_views.append((x, y, side, nearest[4]))
                views += 1
    print(f"{negatives} hard negatives and {views} die crops from {finder_file}", flush=True)


def load_photos(leave_out: tuple[str, ...] = (), whole: bool = False) -> list[Photo]:
    """The training part (``whole``: every photo) of each public set but those named in ``leave_out``."""
    photos = []
    for name in public_sets.SETS:
        if name in leave_out:
            continue
        entries = public_sets.load_manifest(name)
        chosen = entries if whole else public_sets.split(entries)[0]
        root = public_sets.datasets_dir() / name
        for entry in chosen:
            image = cv2.imread(str(root / entry["image"]), cv2.IMREAD_COLOR)
            if image is None:
                continue
            dice = []
            if name == "byler_d6":
                for d in entry["dice"]:
                    x, y, w, h = d["bbox"]
                    dice.append((x + w / 2, y + h / 2, max(w, h), d["value"]))
            elif name == "matteop65_wood":
                sides = [max(d["bbox"][2:]) * PIP_BOX_TO_SIDE[d["value"]] for d in entry["dice"]]
                side = float(np.median(sides)) if sides else 0.0
                for d in entry["dice"]:
                    x, y, w, h = d["bbox"]
                    dice.append((x + w / 2, y + h / 2, side, d["value"]))
            else:
                if entry["dice"]:
                    found = locate_single_die(image)
                    if found is None:
                        continue
                    dice.append((*found, entry["dice"][0]["value"]))
            photos.append(Photo(image, dice, name))
    return photos


def negative_photos(count: int) -> list[Photo]:
    """``count`` pictures without dice (text, boards, tokens, coins, cubes, stains), the kinds taken in turn.

    Pip prints are left out: a domino half with one dot in its middle is a die's 1 seen from above, and
    taught as "not a die" it cost the reader real 1s (the dim single dice of aibox_pi_single)."""
    from vision.synth_negatives import KINDS, render_negative

    kinds = [kind for kind in KINDS if kind != "pip prints"]
    return [Photo(render_negative(NEGATIVE_SEED_BASE + i, kinds[i % len(kinds)]), [], "negatives") for i in range(count)]


def photo_files_without_dice(folders) -> list[Path]:
    """The image files under ``folders``, one per wallpaper where a wallpaper comes in several sizes (the one nearest
    1920 px wide, by its name such as ``1920x1080.jpg``)."""
    files: dict[Path, Path] = {}
    for folder in folders:
        for path in sorted(Path(folder).rglob("*")):
            if path.suffix.lower() not in (".jpg", ".jpeg", ".png") or path.stat().st_size == 0:
                continue
            sized = path.stem.split("x")
            if len(sized) == 2 and all(n.isdigit() for n in sized):
                key = path.parent.parent  # .../Name/contents/images/1920x1080.jpg: one per Name
                if key not in files or abs(int(sized[0]) - 1920) < abs(int(files[key].stem.split("x")[0]) - 1920):
                    files[key] = path
            else:
                files[path] = path
    return sorted(files.values())


def photos_without_dice(folders, rng: np.random.Generator) -> list[Photo]:
    """PHOTO_VIEWS views of each real photo or picture under ``folders``, none with a die in it: the whole, and crops
    of PHOTO_CROP of its long side, each scaled to PHOTO_VIEW_SIDE px on its long side."""
    views = []
    for path in photo_files_without_dice(folders):
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        for k in range(PHOTO_VIEWS):
            side = max(h, w) if k == 0 else int(rng.uniform(*PHOTO_CROP) * max(h, w))
            cw, ch = min(side, w), min(side * 3 // 4 if k else side, h)
            x, y = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
            part = image[y:y + ch, x:x + cw]
            scale = PHOTO_VIEW_SIDE / max(part.shape[:2])
            views.append(Photo(cv2.resize(part, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), [],
                               "photos without dice"))
    return views


def objects_on_tables(folder: Path, count: int, rng: np.random.Generator) -> list[Photo]:
    """``count`` 640x480 pictures of OBJECT_COUNT things (cut-out pictures under ``folder``, PNG with a see-through
    background) strewn on a synthetic table, each OBJECT_SIDE px long, turned, casting a soft shadow, lit brighter
    or dimmer; no die among them."""
    from vision.synth import BACKGROUNDS, _background, _window

    files = sorted(p for p in Path(folder).rglob("*.png") if not p.stem.endswith("_mirror"))
    pictures = []
    for _ in range(count if files else 0):
        table = _background(rng, 640, 480, str(rng.choice(list(BACKGROUNDS))))
        for path in rng.choice(files, int(rng.integers(*OBJECT_COUNT))):
            thing = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
            if thing is None or thing.ndim < 3 or thing.shape[2] != 4:
                continue
            scale = rng.uniform(*OBJECT_SIDE) / max(thing.shape[:2])
            thing = cv2.resize(thing, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            h, w = thing.shape[:2]
            turn = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(0, 360)), 1.0)
            side = int(math.hypot(w, h)) + 2
            turn[:, 2] += ((side - w) / 2, (side - h) / 2)
            thing = cv2.warpAffine(thing, turn, (side, side)).astype(np.float32)
            x, y = int(rng.integers(-side // 3, 640 - side // 2)), int(rng.integers(-side // 3, 480 - side // 2))
            alpha = thing[..., 3:] / 255.0
            shadow = cv2.GaussianBlur(alpha, (0, 0), 1.0 + 0.05 * side)[..., None] * rng.uniform(0.2, 0.5)
            shift = int(rng.integers(2, 3 + side // 12))
            for layer, weight, dx in ((np.zeros_like(thing[..., :3]), shadow, shift), (thing[..., :3], alpha, 0)):
                (ty, tx), (sy, sx) = _window(table.shape, x + dx, y + dx, thing.shape)
                table[ty, tx] = table[ty, tx] * (1 - weight[sy, sx]) + layer[sy, sx] * weight[sy, sx]
        table *= rng.uniform(0.6, 1.15)
        table += rng.standard_normal(table.shape).astype(np.float32) * 2.0
        pictures.append(Photo(np.clip(table, 0, 255).astype(np.uint8), [], "photos without dice"))
    return pictures


def synthetic_tray(i: int) -> Photo:
    """Training tray ``i``: 1-14 dice with its own share of touching dice, glare, coloured pips, marble and a
    slanted camera."""
    image, truth = synth.random_scene(SYNTH_SEED_BASE + i, count=(1, 14), size=TRAY_SIZES[i % 4],
                                      **tray_settings(np.random.default_rng(i)))
    return Photo(image, [(t.center[0], t.center[1], t.side, t.value) for t in truth], "synth")


def tray_settings(rng: np.random.Generator) -> dict:
    """A training tray's own shares of touching dice, glare, coloured pips, marble and a slanted camera (and the run's
    share of solid dice)."""
    return {"touching": float(rng.uniform(0, 0.6)), "glare": float(rng.uniform(0.1, 0.6)),
            "coloured_pips": float(rng.uniform(0, 0.5)), "marble": float(rng.uniform(0, 0.5)),
            "slanted_view": float(rng.uniform(0, SLANTED_TRAYS)), "slant": TRAY_SLANT, "solid_dice": SOLID_DICE,
            "veined": VEINED, "translucent": TRANSLUCENT}


def symbol_tray(i: int, kinds: tuple[str, ...] = synth.SYMBOL_KINDS) -> Photo:
    """Symbol tray ``i``: as a training tray, but every 1 and 6 shows one of ``kinds`` of symbol instead of pips; such a
    die's label is the reader's symbol class (its "value" is dice_net.SYMBOL + 1)."""
    image, truth = synth.random_scene(SYMBOL_SEED_BASE + i, count=(1, 14), size=TRAY_SIZES[i % 4], symbol_faces=1.0,
                                      symbol_kinds=kinds, **tray_settings(np.random.default_rng([i, 2])))
    return Photo(image, [(t.center[0], t.center[1], t.side, dice_net.SYMBOL + 1 if t.symbol else t.value)
                         for t in truth], "symbols")


def synthetic_photos(count: int, cache_dir: Path, workers: int = 1) -> list[Photo]:
    """``count`` synthetic trays (hard cases mixed in), rendered by ``workers`` processes and cached in
    ``cache_dir`` between runs."""
    solid = f"_solid{SOLID_DICE:g}" if SOLID_DICE else ""
    veined = f"_veined{VEINED:g}" if VEINED else ""
    translucent = f"_translucent{TRANSLUCENT:g}" if TRANSLUCENT else ""
    cache = cache_dir / f"synth_v{SYNTH_VERSION}_{count}{solid}{veined}{translucent}.pkl"
    if cache.exists():
        with cache.open("rb") as fh:
            return [Photo(p.image, p.dice, p.source) for p in pickle.load(fh)]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            photos = pool.map(synthetic_tray, range(count), chunksize=16)
    else:
        photos = [synthetic_tray(i) for i in range(count)]
    cache_dir.mkdir(parents=True, exist_ok=True)
    with cache.open("wb") as fh:
        pickle.dump(photos, fh)
    return photos


# ---------------------------------------------------------------- networks

def cbr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Finder(nn.Module):
    """Centre heatmap + log side + offset on a 1/4 grid; encoder to 1/32, light top-down path."""

    def __init__(self):
        super().__init__()
        self.s2 = cbr(3, 12, 2)
        self.s4 = cbr(12, 24, 2)
        self.s8 = nn.Sequential(cbr(24, 32, 2), cbr(32, 32))
        self.s16 = nn.Sequential(cbr(32, 64, 2), cbr(64, 64))
        self.s32 = nn.Sequential(cbr(64, 96, 2), cbr(96, 96))
        self.lat16 = nn.Conv2d(96, 64, 1)
        self.mix16 = cbr(64, 64)
        self.lat8 = nn.Conv2d(64, 32, 1)
        self.mix8 = cbr(32, 32)
        self.lat4 = nn.Conv2d(32, 24, 1)
        self.mix4 = cbr(24, 24)
        self.head = nn.Conv2d(24, 4, 1)
        self.head.bias.data[0] = -4.0

    def forward(self, x):
        f4 = self.s4(self.s2(x))
        f8 = self.s8(f4)
        f16 = self.s16(f8)
        f32 = self.s32(f16)
        u = self.mix16(f16 + F.interpolate(self.lat16(f32), scale_factor=2.0, mode="nearest"))
        u = self.mix8(f8 + F.interpolate(self.lat8(u), scale_factor=2.0, mode="nearest"))
        u = self.mix4(f4 + F.interpolate(self.lat4(u), scale_factor=2.0, mode="nearest"))
        return self.head(u)


class Reader(nn.Module):
    """Crop -> value 1..6, not-a-die, or a symbol face (the last taught on its own: fit_symbol_class)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            cbr(3, 24, 2), cbr(24, 32), nn.MaxPool2d(2),
            cbr(32, 64), cbr(64, 64), nn.MaxPool2d(2),
            cbr(64, 128), cbr(128, 128), nn.AdaptiveAvgPool2d(1))
        self.classify = nn.Conv2d(128, dice_net.N_CLASSES, 1)

    def forward(self, x):
        return self.classify(self.body(x))  # (n, classes, 1, 1): no Flatten/Gemm for OpenCV's importer


class PrintCheck(nn.Module):
    """A find's crop and one CONTEXT_SCALE times as wide, stacked (6 channels, dice_net.print_check_input) -> the
    log-odds that the find is something flat (dots printed on a domino half or a card, a number token), not a die.
    A network of its own, not a head on the reader's features: a reader trained anew needs no other check."""

    def __init__(self):
        super().__init__()
        w = PRINT_WIDTH
        self.layers = nn.Sequential(cbr(6, w, 2), cbr(w, w), nn.MaxPool2d(2), cbr(w, 2 * w), nn.MaxPool2d(2),
                                    cbr(2 * w, 2 * w), nn.AdaptiveAvgPool2d(1), nn.Conv2d(2 * w, 1, 1))

    def forward(self, x):
        return self.layers(x)


def from_model(net: nn.Module, model_file: Path) -> nn.Module:
    """``net`` with the weights of an exported model: each batch norm folded into the convolution before it,
    as the export did, so that training goes on from the committed model (at a low learning rate: without
    its batch norms the network is harder to train from far away)."""
    import onnx
    from onnx import numpy_helper

    for block in [m for m in net.modules() if isinstance(m, nn.Sequential)]:
        if len(block) == 3 and isinstance(block[1], nn.BatchNorm2d):
            conv = block[0]
            block[0] = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding)
            block[1] = nn.Identity()
    model = onnx.load(str(model_file))
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    nodes = [node for node in model.graph.node if node.op_type == "Conv"]
    convs = [m for m in net.modules() if isinstance(m, nn.Conv2d)]  # registered in the order they run
    if len(nodes) != len(convs):
        raise SystemExit(f"{model_file} has {len(nodes)} convolutions, the network {len(convs)}")
    for node, conv in zip(nodes, convs):
        weight, bias = (torch.from_numpy(weights[name].copy()) for name in node.input[1:3])
        if conv.out_channels == dice_net.N_CLASSES and weight.shape[0] == dice_net.SYMBOL:
            # a reader exported before it had the symbol class: that class starts out never chosen
            weight = torch.cat([weight, torch.zeros_like(weight[:1])])
            bias = torch.cat([bias, torch.tensor([-20.0])])
        if weight.shape != conv.weight.shape:
            raise SystemExit(f"{model_file}: a convolution of shape {tuple(weight.shape)} where the network has "
                             f"{tuple(conv.weight.shape)}")
        conv.weight.data.copy_(weight)
        conv.bias.data.copy_(bias)
    print(f"starting from {model_file}")
    return net


# ---------------------------------------------------------------- augmentation

def colour_jitter(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Channel shuffle, grey, brightness/contrast, blur, noise: the reader must not lean on one look."""
    out = img
    if rng.random() < 0.5:
        out = out[..., rng.permutation(3)]
    if rng.random() < 0.1:
        out = np.repeat(cv2.cvtColor(np.ascontiguousarray(out), cv2.COLOR_BGR2GRAY)[..., None], 3, axis=2)
    tint = rng.normal(0, 8, size=3).astype(np.float32)  # float32 throughout: a float64 term doubles the cost
    out = out.astype(np.float32) * np.float32(rng.uniform(0.6, 1.4)) + (np.float32(rng.uniform(-40, 40)) + tint)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:
        out += rng.standard_normal(out.shape, dtype=np.float32) * np.float32(rng.uniform(2, 8))
    return np.clip(out, 0, 255).astype(np.uint8)


def random_convolution(rng: np.random.Generator, x: torch.Tensor, share: float) -> torch.Tensor:
    """``x`` (a normalised NCHW batch) with ``share`` of its images seen through a filter of random weights,
    blended with the image by a random amount and brought back to its mean and spread: texture and colour
    change, the shapes stay (random convolutions, a way to learn what carries from renders to photos)."""
    if share <= 0:  # draws nothing, so a run without the option takes the random numbers it always took
        return x
    picked = np.flatnonzero(rng.random(len(x)) < share)
    if not len(picked):
        return x
    size = int(rng.choice(RANDOM_CONV_SIZES))
    channels = x.shape[1]
    weight = torch.from_numpy(rng.normal(0, 1 / math.sqrt(channels * size * size),
                                         (len(picked) * channels, channels, size, size)).astype(np.float32))
    chosen = x[picked]
    seen = F.conv2d(chosen.reshape(1, -1, *x.shape[2:]), weight, padding=size // 2, groups=len(picked)).reshape(chosen.shape)
    mean, spread = chosen.mean((1, 2, 3), keepdim=True), chosen.std((1, 2, 3), keepdim=True)
    seen = (seen - seen.mean((1, 2, 3), keepdim=True)) / (seen.std((1, 2, 3), keepdim=True) + 1e-5) * spread + mean
    blend = torch.from_numpy(rng.uniform(0, 1, (len(picked), 1, 1, 1)).astype(np.float32))
    out = x.clone()
    out[picked] = (blend * chosen + (1 - blend) * seen).clamp(-1, 1)
    return out


def foreshortening(rng: np.random.Generator) -> np.ndarray | None:
    """For OBLIQUE_SHARE of the draws a tilted_view, else None."""
    if rng.random() >= OBLIQUE_SHARE:
        return None
    return tilted_view(rng)


def tilted_view(rng: np.random.Generator) -> np.ndarray:
    """A 2x2 map squashing to cos(tilt) along a random direction, tilt drawn from OBLIQUE_TILT_DEG: the table as a
    tilted camera sees it (the die's long extent, its side, is kept)."""
    theta = rng.uniform(0, math.pi)
    across = np.array([math.cos(theta), math.sin(theta)])
    factor = math.cos(math.radians(rng.uniform(*OBLIQUE_TILT_DEG)))
    return np.eye(2) - (1 - factor) * np.outer(across, across)


def finder_sample(rng: np.random.Generator, photo: Photo, out: int = 256):
    """A random square window of the photo at a random scale, with its targets on the 1/4 grid."""
    rows, cols = photo.image.shape[:2]
    scale = dice_net.FINDER_SIZE / max(rows, cols) * math.exp(rng.uniform(math.log(0.5), math.log(1.8)))
    angle = rng.choice([0, 90, 180, 270]) + (rng.uniform(-20, 20) if rng.random() < 0.5 else 0)
    if photo.dice and rng.random() < 0.7:
        cx, cy = photo.dice[rng.integers(len(photo.dice))][:2]
        cx += rng.uniform(-100, 100) / scale
        cy += rng.uniform(-100, 100) / scale
    else:
        cx, cy = rng.uniform(0, cols), rng.uniform(0, rows)
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    matrix[0, 2] += out / 2 - cx
    matrix[1, 2] += out / 2 - cy
    if rng.random() < 0.5:
        matrix[0] = -matrix[0]
        matrix[0, 2] += out
    squash = foreshortening(rng)
    if squash is not None:
        matrix = dice_net.squashed(matrix, squash, (out / 2, out / 2))
    img = cv2.warpAffine(photo.image, matrix, (out, out), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REFLECT)
    img = colour_jitter(rng, img)
    grid = out // dice_net.FINDER_STRIDE
    heat = np.zeros((grid, grid), np.float32)
    reg = np.zeros((3, grid, grid), np.float32)
    mask = np.zeros((grid, grid), np.float32)
    ys, xs = np.mgrid[0:grid, 0:grid].astype(np.float32)
    for x, y, side, _ in photo.dice:
        px, py = matrix @ np.array([x, y, 1.0])
        gx, gy = px / dice_net.FINDER_STRIDE, py / dice_net.FINDER_STRIDE
        s = side * scale
        if not (0 <= gx < grid and 0 <= gy < grid):
            continue
        sigma = max(0.7, s / dice_net.FINDER_STRIDE / 5.0)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma ** 2)))
        ix, iy = int(gx), int(gy)
        heat[iy, ix] = 1.0
        reg[:, iy, ix] = (math.log(max(s, 1.0)), gx - ix, gy - iy)
        mask[iy, ix] = 1.0
    return img, heat, reg, mask


def drawn_face_sample(rng: np.random.Generator, photo: Photo):
    """A drawn face on a patch of the photo: a real layout (its value) or an impossible one (not-a-die)."""
    rows, cols = photo.image.shape[:2]
    side = rng.uniform(30, 120)
    patch = dice_net.crop_die(photo.image, (rng.uniform(0, cols), rng.uniform(0, rows)), side)
    if rng.random() < 0.5:
        return pip_faces.draw_face(rng, pip_faces.odd_layout(rng), patch), dice_net.NOT_A_DIE
    value = int(rng.integers(1, 7))
    layouts = pip_faces.REAL_LAYOUTS[value]
    return pip_faces.draw_face(rng, layouts[rng.integers(len(layouts))], patch), value - 1


def finder_view_sample(rng: np.random.Generator, photo: Photo, view: tuple[float, float, float, int]):
    """The crop the finder gave of a die, slightly moved, scaled and turned, with the die's value."""
    x, y, side, value = view
    side *= math.exp(rng.uniform(-0.08, 0.08))
    crop = dice_net.crop_die(photo.image, (x + rng.normal(0, 0.03 * side), y + rng.normal(0, 0.03 * side)), side,
                             rng.uniform(0, 360), squash=foreshortening(rng))
    return colour_jitter(rng, crop), value - 1


class DieHardness:
    """Each labelled training die's recent reading loss, so that the dice the reader still gets wrong
    are cropped more often than the ones it already reads (prioritised sampling)."""

    def __init__(self, photos: list[Photo], floor: float = 0.02):
        self.dice = [(photo, i) for photo in photos for i in range(len(photo.dice))]
        self.loss = np.ones(len(self.dice))
        self.floor = floor

    def pick(self, rng: np.random.Generator, count: int) -> list[int]:
        weights = self.loss + self.floor
        return rng.choice(len(self.dice), size=count, p=weights / weights.sum()).tolist()

    def sample(self, rng: np.random.Generator, index: int):
        photo, i = self.dice[index]
        return die_sample(rng, photo, photo.dice[i])

    def update(self, indices: list[int], losses: np.ndarray, keep: float = 0.5) -> None:
        for index, loss in zip(indices, losses):
            self.loss[index] = keep * self.loss[index] + (1 - keep) * float(loss)


def at_low_resolution(rng: np.random.Generator, crop: np.ndarray, side: float) -> np.ndarray:
    """For LOW_RES_SHARE of the crops of a die of ``side`` px, the crop as a die of LOW_RES_SIDE px would give it:
    the same view from fewer pixels, scaled up as the reader's crops are."""
    small_side = rng.uniform(*LOW_RES_SIDE)
    if rng.random() >= LOW_RES_SHARE or small_side >= side:
        return crop
    pixels = max(3, round(crop.shape[0] * small_side / side))
    small = cv2.resize(crop, (pixels, pixels), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, crop.shape[1::-1], interpolation=cv2.INTER_LINEAR)


def die_sample(rng: np.random.Generator, photo: Photo, die: tuple[float, float, float, int]):
    """A crop of a labelled die, slightly moved, scaled, turned and mirrored, with its value."""
    x, y, side, value = die
    shift, theta = rng.uniform(0, 0.12) * side, rng.uniform(0, 2 * math.pi)
    side *= math.exp(rng.uniform(-0.18, 0.18))
    crop = dice_net.crop_die(photo.image, (x + shift * math.cos(theta), y + shift * math.sin(theta)), side,
                             rng.uniform(0, 360), squash=foreshortening(rng))
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return colour_jitter(rng, at_low_resolution(rng, crop, side)), value - 1


def reader_sample(rng: np.random.Generator, photo: Photo):
    """A crop around a die (its value) or around no die (not-a-die), as the finder would hand it over."""
    rows, cols = photo.image.shape[:2]
    angle = rng.uniform(0, 360)
    if rng.random() < DRAWN_FACE_SHARE:
        crop, label = drawn_face_sample(rng, photo)
        return colour_jitter(rng, crop), label
    negative_share = NEGATIVE_FIND_SHARE if photo.source == "negatives" else HARD_NEGATIVE_SHARE
    kind = photo.source if photo.source in ("synth", "negatives") else "real"
    if photo.hard_negatives and kind in FIND_NEGATIVES_FROM and rng.random() < negative_share:
        x, y, side = photo.hard_negatives[rng.integers(len(photo.hard_negatives))]
        side *= math.exp(rng.uniform(-0.15, 0.15))
        crop = dice_net.crop_die(photo.image, (x + rng.normal(0, 0.05 * side), y + rng.normal(0, 0.05 * side)), side,
                                 angle, squash=foreshortening(rng))
        return colour_jitter(rng, crop), dice_net.NOT_A_DIE
    if photo.finder_views and rng.random() < FINDER_VIEW_SHARE:
        return finder_view_sample(rng, photo, photo.finder_views[rng.integers(len(photo.finder_views))])
    if photo.dice and rng.random() < 0.8:
        die = photo.dice[rng.integers(len(photo.dice))]
        odds = rng.random()
        if odds < 0.85:
            return die_sample(rng, photo, die)
        x, y, side, _ = die
        if odds < 0.93:  # beside the die
            shift, scale, label = rng.uniform(0.6, 1.0) * side, math.exp(rng.uniform(-0.18, 0.18)), dice_net.NOT_A_DIE
        else:  # a pip or two of a big die, as a finder looking for small dice may take it
            shift, scale, label = rng.uniform(0.15, 0.35) * side, rng.uniform(0.25, 0.45), dice_net.NOT_A_DIE
        theta = rng.uniform(0, 2 * math.pi)
        cx, cy = x + shift * math.cos(theta), y + shift * math.sin(theta)
        side *= scale
    else:
        sides = [d[2] for d in photo.dice] or [rng.uniform(25, 120)]
        side = float(np.median(sides)) * math.exp(rng.uniform(-0.3, 0.3))
        cx, cy = rng.uniform(0, cols), rng.uniform(0, rows)
        if any(math.hypot(cx - d[0], cy - d[1]) < 0.6 * d[2] for d in photo.dice):
            return None
        label = dice_net.NOT_A_DIE
    crop = dice_net.crop_die(photo.image, (cx, cy), side, angle, squash=foreshortening(rng))
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return colour_jitter(rng, at_low_resolution(rng, crop, side)), label


def dimmed(image: np.ndarray, gain: float) -> np.ndarray:
    """``image`` (uint8) with its brightness times ``gain``, truncated (``vision.variants.dim`` rounds: the committed
    print check was fitted with this, and a fit's draws decide which real die at the margin it drops)."""
    return image if gain == 1.0 else np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def to_tensor(images: list[np.ndarray]) -> torch.Tensor:
    return torch.from_numpy(dice_net.normalise(np.stack(images)))


# ---------------------------------------------------------------- training

def focal_heat_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    pos_loss = -((1 - p) ** 2 * torch.log(p) * pos).sum()
    neg_loss = -((1 - target) ** 4 * p ** 2 * torch.log(1 - p) * (1 - pos)).sum()
    return (pos_loss + neg_loss) / pos.sum().clamp(min=1.0)


class PhotoDraw:
    """Draws photos at random, each source's photos in proportion to the source's weight."""

    def __init__(self, photos: list[Photo], weights: dict[str, float]):
        w = np.array([weights[p.source] for p in photos], np.float64)
        self.photos, self.cumulative = photos, np.cumsum(w / w.sum())

    def __call__(self, rng: np.random.Generator) -> Photo:
        index = int(np.searchsorted(self.cumulative, rng.random(), side="right"))
        return self.photos[min(index, len(self.photos) - 1)]


def resumed(net: nn.Module, path: Path, resume: bool, model_file: Path | None = None) -> nn.Module:
    """``net`` from the checkpoint ``path`` (``resume``), or from the exported ``model_file``, or fresh."""
    if model_file is not None:
        return from_model(net, model_file)
    if resume and path.exists():
        net.load_state_dict(torch.load(path))
        print(f"resuming from {path}")
    return net


def save_checkpoint(net: nn.Module, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), path)


@functools.cache
def native_bfloat16() -> bool:
    """Whether the processor computes bfloat16 itself (AVX-512 BF16 or AMX); asked once per process."""
    return torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported()


def in_bfloat16(enabled: bool) -> contextlib.AbstractContextManager:
    """Forward passes in bfloat16 (weights, optimiser and losses stay float32) when ``enabled`` and the processor
    computes bfloat16 natively: nearly twice the steps a minute on this machine (training/README.md); else float32."""
    return torch.autocast("cpu", dtype=torch.bfloat16, enabled=enabled and native_bfloat16())


def train_finder(photos: list[Photo], minutes: float, rng: np.random.Generator, checkpoint: Path,
                 resume: bool = False, lr_scale: float = 1.0, snapshot: Path | None = None,
                 model_file: Path | None = None, bfloat16: bool = True, random_conv: float = 0.0) -> Finder:
    """``snapshot``, if given, is where the finder as it stands after FINDER_SNAPSHOT_SHARE of its minutes is
    exported, so that a reader trained alongside can learn its finds before it is done; ``random_conv`` is the
    share of its pictures seen through a random filter (random_convolution)."""
    net = resumed(Finder(), checkpoint, resume, model_file).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    draw = PhotoDraw(photos, {"byler_d6": 1.0, "matteop65_wood": 0.8, "aibox_pi_single": 1.5, "synth": 0.6,
                                "negatives": 0.3, "symbols": FINDER_SYMBOL_WEIGHT,
                                "photos without dice": FINDER_NO_DICE_WEIGHT})
    start, step = time.time(), 0
    end = start + minutes * 60
    while time.time() < end:
        frac = (time.time() - start) / (minutes * 60)
        for group in opt.param_groups:
            group["lr"] = lr_scale * 2e-3 * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0)))
        batch = [finder_sample(rng, draw(rng)) for _ in range(12)]
        x = random_convolution(rng, to_tensor([b[0] for b in batch]), random_conv).contiguous(memory_format=torch.channels_last)
        heat = torch.from_numpy(np.stack([b[1] for b in batch]))
        reg = torch.from_numpy(np.stack([b[2] for b in batch]))
        mask = torch.from_numpy(np.stack([b[3] for b in batch]))
        with in_bfloat16(bfloat16):
            out = net(x).float()
        loss_heat = focal_heat_loss(out[:, 0], heat)
        n = mask.sum().clamp(min=1.0)
        loss_reg = (F.l1_loss(out[:, 1:], reg, reduction="none") * mask[:, None]).sum() / n
        loss = loss_heat + 0.5 * loss_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if snapshot is not None and frac >= FINDER_SNAPSHOT_SHARE:
            export(net, snapshot.with_suffix(".tmp"), torch.zeros(1, 3, 256, 256), dynamic_size=True)
            snapshot.with_suffix(".tmp").replace(snapshot)  # whole, before the reader's process sees it
            net.train().to(memory_format=torch.channels_last)
            snapshot = None
        if step % 50 == 0:
            print(f"finder step {step} heat {loss_heat.item():.3f} reg {loss_reg.item():.3f}", flush=True)
    return net


def train_reader(photos: list[Photo], minutes: float, rng: np.random.Generator, checkpoint: Path,
                 resume: bool = False, lr_scale: float = 1.0, pending: Callable[[], bool] | None = None,
                 model_file: Path | None = None, bfloat16: bool = True, random_conv: float = 0.0) -> Reader:
    """``pending``, if given, is called every 100 steps until it returns True (it may add finder finds to
    ``photos``); ``random_conv`` is the share of its crops seen through a random filter (random_convolution)."""
    net = resumed(Reader(), checkpoint, resume, model_file).to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    hardness = DieHardness(photos)
    draw = PhotoDraw(photos, READER_DRAWS)
    start, step = time.time(), 0
    end = start + minutes * 60
    while time.time() < end:
        frac = (time.time() - start) / (minutes * 60)
        for group in opt.param_groups:
            group["lr"] = lr_scale * 3e-3 * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0)))
        hard = hardness.pick(rng, round(HARD_DIE_SHARE * READER_BATCH))
        samples = [hardness.sample(rng, i) for i in hard]
        while len(samples) < READER_BATCH:
            s = reader_sample(rng, draw(rng))
            if s is not None:
                samples.append(s)
        x = random_convolution(rng, to_tensor([s[0] for s in samples]), random_conv).contiguous(memory_format=torch.channels_last)
        y = torch.tensor([s[1] for s in samples])
        with in_bfloat16(bfloat16):
            logits = net(x).float()
        losses = F.cross_entropy(logits.flatten(1), y, label_smoothing=0.05, reduction="none")
        hardness.update(hard, losses[:len(hard)].detach().numpy())
        loss = losses.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 100 == 0 and pending is not None and pending():
            pending = None
        if step % 100 == 0:
            print(f"reader step {step} loss {loss.item():.3f} hardest-decile die loss "
                  f"{np.quantile(hardness.loss, 0.9):.2f}", flush=True)
    return net


def fit_symbol_class(reader: Reader, photos: list[Photo], rng: np.random.Generator, trays: int = SYMBOL_TRAYS,
                     kinds: tuple[str, ...] = synth.SYMBOL_KINDS, steps: int = SYMBOL_STEPS) -> Reader:
    """Teach ``reader`` the symbol class alone: only its row of the last layer learns (from crops of dice on
    symbol trays and the usual reader samples of ``photos``), so the network's every other answer keeps its
    logit and a photo without symbol dice is read as before but for the share the symbol class takes
    (kept small by SYMBOL_PRIOR)."""
    reader.eval()
    symbols = [symbol_tray(i, kinds) for i in range(trays)]
    samples = []
    while len(samples) < SYMBOL_SAMPLES[0]:
        photo = symbols[rng.integers(len(symbols))]
        samples.append(die_sample(rng, photo, photo.dice[rng.integers(len(photo.dice))]))
    draw = PhotoDraw(photos, READER_DRAWS)
    while len(samples) < sum(SYMBOL_SAMPLES):
        sample = reader_sample(rng, draw(rng))
        if sample is not None:
            samples.append(sample)
    with torch.no_grad():
        features = torch.cat([reader.body(to_tensor([s[0] for s in samples[i:i + 512]])).flatten(1)
                              for i in range(0, len(samples), 512)])
    labels = torch.tensor([s[1] for s in samples])
    weight, bias = reader.classify.weight.detach().flatten(1), reader.classify.bias.detach()
    others = features @ weight[: dice_net.SYMBOL].T + bias[: dice_net.SYMBOL]  # kept as they are
    row, row_bias = torch.zeros(weight.shape[1], requires_grad=True), torch.tensor(-5.0, requires_grad=True)
    opt = torch.optim.Adam([row, row_bias], lr=0.01)
    for _ in range(steps):
        loss = F.cross_entropy(torch.cat([others, (features @ row + row_bias)[:, None]], 1), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    reader.classify.weight.data[dice_net.SYMBOL] = row.detach().reshape(reader.classify.weight.shape[1:])
    reader.classify.bias.data[dice_net.SYMBOL] = row_bias.detach() - SYMBOL_PRIOR
    print(f"symbol class fitted on {len(samples)} crops ({SYMBOL_SAMPLES[0]} of {trays} symbol trays), loss {loss.item():.3f}")
    return reader


def mine_reader_dice(photos: list[Photo]) -> None:
    """Put the dice the reader (dice_net's networks, the print check left out) reports on ``photos``, pictures without
    dice, before their finder finds in ``hard_negatives``: the false dice the print check is asked about."""
    from vision.reader import read_frame

    for photo in photos:
        dice = read_frame(photo.image, print_check=1.0).dice
        photo.hard_negatives[:0] = [(*die.center, die.bbox[2]) for die in dice]


def fit_print_check(photos: list[Photo], rng: np.random.Generator, without_dice: list[Photo] = ()) -> PrintCheck:
    """Teach the print check to tell dice from things flat and other things that are no die: the finder's finds on
    PRINT_PICTURES pictures of pip prints, on the pictures without dice in ``photos`` (text, number tokens, stains...)
    and the first PRINT_OTHER_FINDS recorded on each of ``without_dice`` (real photos, things on tables), from its
    finds on dice and elsewhere in the photos and the dice of PRINT_SYMBOL_TRAYS symbol trays, a real photo's die
    weighing PRINT_REAL_DIE_WEIGHT.  The finds are those recorded by mine_finder_finds (the labelled dice where there
    are none), and the pip prints' are mined with the finder it last ran."""
    from vision.synth_negatives import render_negative

    prints = [Photo(render_negative(PRINT_SEED_BASE + i, "pip prints"), [], "prints") for i in range(PRINT_PICTURES)]
    mine_finder_finds(prints, dice_net.FINDER_FILE)
    finds = [(p, x, y, side, 1.0, 1.0) for p in prints for x, y, side in p.hard_negatives]
    finds += [(p, x, y, side, 1.0, 1.0) for p in without_dice for x, y, side in p.hard_negatives[:PRINT_OTHER_FINDS]]
    others = []
    for photo in photos + [symbol_tray(i) for i in range(PRINT_SYMBOL_TRAYS)]:
        flat = float(photo.source == "negatives")
        weight = 1.0 if photo.source in ("synth", "symbols", "negatives") else PRINT_REAL_DIE_WEIGHT
        on_dice = photo.finder_views or photo.dice
        others += [(photo, x, y, side, 0.0, weight) for x, y, side, _ in on_dice]
        others += [(photo, x, y, side, flat, 1.0) for x, y, side in photo.hard_negatives[:PRINT_OTHER_FINDS]]
    finds += [others[i] for i in rng.permutation(len(others))[:PRINT_DIE_CROPS]]
    samples = np.stack([print_sample(rng, p.image, x, y, side, flat == 0.0)
                        for _ in range(PRINT_COPIES) for p, x, y, side, flat, _ in finds])
    labels, weights = (torch.tensor([f[k] for f in finds] * PRINT_COPIES, dtype=torch.float32) for k in (4, 5))
    check = PrintCheck()
    batches = len(samples) // PRINT_BATCH
    opt = torch.optim.AdamW(check.parameters(), lr=PRINT_LR, weight_decay=1e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=PRINT_LR, total_steps=PRINT_EPOCHS * batches)
    check.train()
    for _ in range(PRINT_EPOCHS):
        order = rng.permutation(len(samples))
        for b in range(batches):
            picked = order[b * PRINT_BATCH:(b + 1) * PRINT_BATCH]
            said = check(torch.from_numpy(dice_net.normalise(samples[picked]))).flatten()
            loss = (F.binary_cross_entropy_with_logits(said, labels[picked], reduction="none") * weights[picked]).sum() \
                / weights[picked].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            schedule.step()
    check.eval()
    with torch.no_grad():
        said = torch.cat([check(torch.from_numpy(dice_net.normalise(samples[i:i + 512]))).flatten()
                          for i in range(0, len(samples), 512)]).sigmoid() >= 0.9
    print(f"print check fitted on {len(finds)} finds x {PRINT_COPIES} ({int(labels.sum()) // PRINT_COPIES} on prints "
          f"and pictures without dice), last loss {loss.item():.3f}; those caught {said[labels == 1].float().mean():.3f}, "
          f"others taken for them {int(said[labels == 0].sum())}")
    return check


def print_sample(rng: np.random.Generator, image: np.ndarray, x: float, y: float, side: float, die: bool) -> np.ndarray:
    """One print check sample of a find: its two crops turned, mirrored, dimmed, under a warm or cool light and
    colour-jittered alike, from few pixels in PRINT_FEW_PIXELS of the samples; a die's squashed as by a tilted camera
    in PRINT_SQUASHED of the samples (a slanted die is no print)."""
    tilt = tilted_view(rng) if die and rng.random() < PRINT_SQUASHED else None
    if rng.random() < PRINT_FEW_PIXELS:
        image, x, y, side = few_pixels(image, x, y, side, rng.uniform(*LOW_RES_SIDE))
    pair = dice_net.print_check_input(image, (x, y), side, rng.integers(0, 4) * 90.0, squash=tilt)
    if rng.random() < 0.5:
        pair = pair[:, ::-1]
    if rng.random() < PRINT_DIMMED:
        pair = dimmed(pair, rng.uniform(*PRINT_DIM))
    if rng.random() < PRINT_CAST:
        warmth = rng.uniform(-1, 1)
        blue, green, red = PRINT_CAST_GAINS
        gains = np.array([1 - blue * warmth, 1 - green * abs(warmth), 1 + red * warmth]) * rng.uniform(0.95, 1.05, 3)
        pair = np.clip(pair * np.tile(gains, 2).astype(np.float32), 0, 255).astype(np.uint8)
    if rng.random() < PRINT_JITTER:
        side_by_side = colour_jitter(rng, np.ascontiguousarray(np.hstack([pair[..., :3], pair[..., 3:]])))
        pair = np.concatenate([side_by_side[:, :dice_net.CROP_SIZE], side_by_side[:, dice_net.CROP_SIZE:]], axis=2)
    return pair


def few_pixels(image: np.ndarray, x: float, y: float, side: float, small_side: float):
    """``(image, x, y, side)`` of a find of ``side`` px as a picture taken from farther away shows it, ``small_side`` px
    across: the part of ``image`` around it (as far as the print check's wider crop reaches) scaled down."""
    if small_side >= side:
        return image, x, y, side
    reach = int(2.5 * side) + 1
    x0, y0 = max(int(x) - reach, 0), max(int(y) - reach, 0)
    part = image[y0:int(y) + reach, x0:int(x) + reach]
    scale = small_side / side
    small = cv2.resize(part, (max(round(part.shape[1] * scale), 1), max(round(part.shape[0] * scale), 1)),
                       interpolation=cv2.INTER_AREA)
    return small, (x - x0) * scale, (y - y0) * scale, small_side


def export(net: nn.Module, path: Path, example: torch.Tensor, dynamic_size: bool) -> None:
    net.eval().to(memory_format=torch.contiguous_format)
    path.parent.mkdir(parents=True, exist_ok=True)
    axes = {0: "n", 2: "h", 3: "w"} if dynamic_size else {0: "n"}
    torch.onnx.export(net, example, str(path), dynamo=False, opset_version=13, input_names=["image"],
                      output_names=["out"], dynamic_axes={"image": axes, "out": {0: "n"}})
    print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB)")


def train_side_by_side(a: argparse.Namespace, photos: list[Photo], rng: np.random.Generator) -> None:
    """The finder in a child process and the reader here, one core each.  The reader learns the finds (as
    --hard-negatives does) of the finder's snapshot once it is written, then of the trained finder, and takes
    both cores for the rest of its minutes."""
    if a.reader_minutes < a.finder_minutes + 3:
        raise SystemExit("--side-by-side needs --reader-minutes at least 3 more than --finder-minutes")
    finder_file, snapshot = a.out_dir / dice_net.FINDER_FILE.name, a.checkpoint_dir / "finder_snapshot.onnx"
    snapshot.unlink(missing_ok=True)
    command = [sys.executable, __file__, "--only", "finder", "--threads", "1", "--finder-minutes", str(a.finder_minutes),
               "--synth-frames", str(a.synth_frames), "--seed", str(a.seed), "--checkpoint-dir", str(a.checkpoint_dir),
               "--out-dir", str(a.out_dir), "--lr-scale", str(a.lr_scale), "--finder-snapshot", str(snapshot),
               "--negatives", str(a.negatives), "--finder-symbol-trays", str(a.finder_symbol_trays),
               "--finder-model", str(a.finder_model)] + (["--finder-photos-without-dice"] if a.finder_photos_without_dice else [])
    command += ["--leave-out", *a.leave_out] if a.leave_out else []
    command += ["--random-convolutions", str(a.random_convolutions), "--solid-dice", str(a.solid_dice),
                "--veined", str(a.veined), "--translucent", str(a.translucent)]
    command += ["--float32"] if a.float32 else []
    finder_run = subprocess.Popen(command + (["--resume"] if a.resume else []) + (["--from-models"] if a.from_models else []))
    torch.set_num_threads(1)
    snapshot_mined = False

    def learn_finder_finds() -> bool:
        nonlocal snapshot_mined
        if finder_run.poll() is None:
            if not snapshot_mined and snapshot.exists():
                mine_finder_finds(photos, snapshot)
                snapshot_mined = True
            return False
        if finder_run.returncode:
            raise SystemExit(f"finder training failed (exit {finder_run.returncode})")
        mine_finder_finds(photos, finder_file)
        torch.set_num_threads(2)  # the finder's core is free now
        return True

    reader = train_reader(photos, a.reader_minutes, rng, a.checkpoint_dir / "reader.pt", a.resume, a.lr_scale,
                          pending=learn_finder_finds, model_file=dice_net.READER_FILE if a.from_models else None,
                          bfloat16=not a.float32, random_conv=a.random_convolutions)
    finish_reader(reader, a, photos, rng)
    if finder_run.wait():
        raise SystemExit(f"finder training failed (exit {finder_run.returncode})")


def finish_reader(reader: Reader, a: argparse.Namespace, photos: list[Photo], rng: np.random.Generator,
                  symbol: bool = True) -> None:
    """Fit the symbol class (unless ``symbol`` is False), keep the weights and export; then fit the print check."""
    if symbol:
        fit_symbol_class(reader, photos, rng)
    save_checkpoint(reader, a.checkpoint_dir / "reader.pt")
    reader_file = a.out_dir / dice_net.READER_FILE.name
    export(reader, reader_file, torch.zeros(1, 3, dice_net.CROP_SIZE, dice_net.CROP_SIZE), dynamic_size=False)
    dice_net.READER_FILE = reader_file  # the print check learns the false dice of this reader
    finish_print_check(a, photos, rng)


def finish_print_check(a: argparse.Namespace, photos: list[Photo], rng: np.random.Generator) -> None:
    """Fit the print check (with the false dice and finds on real photos and things without dice) and export it."""
    without_dice = photos_without_dice(a.photos_without_dice, rng) + objects_on_tables(a.object_pictures, OBJECT_TABLES, rng)
    mine_finder_finds(without_dice, dice_net.FINDER_FILE)
    mine_reader_dice(without_dice)
    print(f"{len(without_dice)} pictures without dice (photo views and tables of things), "
          f"{sum(len(p.hard_negatives) for p in without_dice)} finds")
    export(fit_print_check(photos, rng, without_dice), a.out_dir / dice_net.PRINT_CHECK_FILE.name,
           torch.zeros(1, 6, dice_net.CROP_SIZE, dice_net.CROP_SIZE), dynamic_size=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--finder-minutes", type=float, default=9.0)
    ap.add_argument("--reader-minutes", type=float, default=9.0)
    ap.add_argument("--synth-frames", type=int, default=SYNTH_FRAMES)
    ap.add_argument("--only", choices=["finder", "reader", "symbol", "print"],
                    help="train one network; 'symbol': only fit the committed reader's symbol class and print check; "
                         "'print': only fit the print check")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--checkpoint-dir", type=Path, default=CHECKPOINTS,
                    help="where torch weights are kept (to resume) and synthetic trays cached")
    ap.add_argument("--resume", action="store_true", help="start from the checkpoint directory's *.pt")
    ap.add_argument("--lr-scale", type=float, default=1.0, help="multiply the learning rates (e.g. 0.3 to fine-tune)")
    ap.add_argument("--out-dir", type=Path, default=dice_net.MODEL_DIR, help="where the ONNX files are written")
    ap.add_argument("--hard-negatives", action="store_true",
                    help="teach the reader the finder model's finds on the training photos and trays: false ones "
                         "as not-a-die, those on a die as its value (the finder this run trained, if it trained one)")
    ap.add_argument("--find-negatives-from", nargs="*", choices=FIND_SOURCES, default=list(FIND_SOURCES), metavar="KIND",
                    help="with --hard-negatives (or side by side), whose false finds the reader learns as not-a-die: "
                         "real (the public sets' photos), synth (the trays), negatives (pictures without dice); none "
                         "given: none (its finds on dice, and the print check, still use them all). Default: all three")
    ap.add_argument("--finder-model", type=Path, default=dice_net.FINDER_FILE,
                    help="the finder whose finds --hard-negatives and the print check learn when this run trains "
                         "none, and the one --from-models starts a finder from (default: the committed one)")
    ap.add_argument("--finder-snapshot", type=Path,
                    help=f"also export the finder to this file after {round(100 * FINDER_SNAPSHOT_SHARE)}%% of its minutes")
    ap.add_argument("--negatives", type=int, default=0,
                    help="pictures without dice (text, boards, coins, pip prints...) added to the training photos")
    ap.add_argument("--finder-symbol-trays", type=int, default=0,
                    help="symbol trays (every 1 and 6 a maker's symbol) the finder learns to find dice on too")
    ap.add_argument("--finder-photos-without-dice", action="store_true",
                    help="the finder also learns the print check's real photos and tables of things (below) as "
                         "pictures without dice")
    ap.add_argument("--photos-without-dice", type=Path, nargs="*", default=list(PHOTOS_WITHOUT_DICE),
                    help="folders of real photos without dice whose false finds the print check learns are no dice")
    ap.add_argument("--object-pictures", type=Path, default=OBJECT_PICTURES,
                    help="a folder of cut-out pictures of things (PNG) strewn on tables for the print check to learn")
    ap.add_argument("--from-models", action="store_true",
                    help="start from the committed ONNX models (vision/models) instead of fresh weights or --resume")
    ap.add_argument("--side-by-side", action="store_true",
                    help="train the finder (in a child process) and the reader at once, one thread each; the reader "
                         "learns the finds of the finder's snapshot, then of the trained finder, and then takes both threads")
    ap.add_argument("--leave-out", nargs="+", default=[], choices=public_sets.SETS, metavar="SET",
                    help="public sets none of whose photos any network learns: the reader then meets them as it "
                         "would a player's unseen dice and table (" + ", ".join(public_sets.SETS) + ")")
    ap.add_argument("--random-convolutions", type=float, default=0.0, metavar="SHARE",
                    help="the share of both networks' training pictures seen through a filter of random weights "
                         "(texture and colour change, shapes stay), e.g. 0.5")
    ap.add_argument("--solid-dice", type=float, default=0.0, metavar="SHARE",
                    help="the share of the synthetic trays' dice drawn as lit solids (rounded edges, hollow pips, "
                         "gloss: vision/solid_die.py) instead of flat, e.g. 0.5")
    ap.add_argument("--veined", type=float, default=0.0, metavar="SHARE",
                    help="the share of the synthetic trays' flat dice swirled with veins of white, black or another "
                         "body colour (marbled plastic), e.g. 0.3")
    ap.add_argument("--translucent", type=float, default=0.0, metavar="SHARE",
                    help="the share of the synthetic trays' flat dice whose bottom and side faces' pips show faintly "
                         "through clear plastic, e.g. 0.3")
    ap.add_argument("--float32", action="store_true",
                    help="train in float32 throughout (by default the forward passes run in bfloat16 where the "
                         "processor computes it natively, nearly twice the steps a minute)")
    a = ap.parse_args()
    if a.side_by_side and a.only:
        ap.error("--side-by-side trains both networks; leave out --only")
    if a.from_models and a.resume:
        ap.error("--from-models and --resume each say where to start: give one")
    no_photos = public_sets.missing([public_sets.manifest_path(name) for name in public_sets.SETS])
    if no_photos:
        sys.exit(f"train_dice_nets: {no_photos}")
    absent = [str(folder) for folder in (*a.photos_without_dice, a.object_pictures) if not folder.is_dir()]
    if absent and (a.only != "finder" or a.finder_photos_without_dice):
        sys.exit(f"train_dice_nets: no {', '.join(absent)}; apt-get install {' '.join(PICTURE_PACKAGES)}")
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    workers = 2 if a.side_by_side else a.threads
    global SOLID_DICE, VEINED, TRANSLUCENT, FIND_NEGATIVES_FROM
    FIND_NEGATIVES_FROM = set(a.find_negatives_from)
    SOLID_DICE = a.solid_dice  # read by tray_settings, here and in the rendering processes
    VEINED = a.veined
    TRANSLUCENT = a.translucent
    photos = load_photos(tuple(a.leave_out)) + synthetic_photos(a.synth_frames, a.checkpoint_dir, workers) + negative_photos(a.negatives)
    print(f"{len(photos)} photos, {sum(len(p.dice) for p in photos)} dice, prepared in {time.time() - t0:.0f} s")
    if a.side_by_side:
        train_side_by_side(a, photos, rng)
        return
    finder_name = dice_net.FINDER_FILE.name  # what a trained finder is written as
    finder_file = dice_net.FINDER_FILE = a.finder_model  # the reader module's _find runs the finder named here
    if a.only in (None, "finder"):
        finder_checkpoint = a.checkpoint_dir / "finder.pt"
        extra = [symbol_tray(SYMBOL_TRAYS + i) for i in range(a.finder_symbol_trays)]  # not the symbol class's trays
        if a.finder_photos_without_dice:
            extra += photos_without_dice(a.photos_without_dice, rng) + objects_on_tables(a.object_pictures, OBJECT_TABLES, rng)
        finder = train_finder(photos + extra, a.finder_minutes, rng, finder_checkpoint, a.resume, a.lr_scale, a.finder_snapshot,
                              dice_net.FINDER_FILE if a.from_models else None, bfloat16=not a.float32,
                              random_conv=a.random_convolutions)
        save_checkpoint(finder, finder_checkpoint)
        finder_file = a.out_dir / finder_name  # the reader learns this finder's crops
        export(finder, finder_file, torch.zeros(1, 3, 256, 256), dynamic_size=True)
    if a.hard_negatives:
        mine_finder_finds(photos, finder_file)
    if a.only == "symbol":
        finish_reader(from_model(Reader(), dice_net.READER_FILE), a, photos, rng)
    elif a.only == "print":
        finish_print_check(a, photos, rng)
    elif a.only != "finder":
        finish_reader(train_reader(photos, a.reader_minutes, rng, a.checkpoint_dir / "reader.pt", a.resume, a.lr_scale,
                                   model_file=dice_net.READER_FILE if a.from_models else None, bfloat16=not a.float32,
                                   random_conv=a.random_convolutions),
                      a, photos, rng)


if __name__ == "__main__":
    main()
