"""Raspberry Pi figures measured on this machine, for ``companion bench pi``.

- :func:`reader_cost`: the reader's work per frame in floating-point operations (from the
  ONNX graphs, as OpenCV's dnn module counts them), the time here on one thread split into
  the networks and the rest, and the Pi 4 / Pi 5 estimate derived from them;
- :func:`watch_memory`: the peak resident memory of ``companion watch`` on 1920x1080 frames;
- :func:`app_memory`: the peak resident memory of the app and its reader process on 1920x1080
  frames, and where the networks are loaded (only in the reader process), measured in a process of its own.

An emulated arm64 system runs every instruction through qemu, so its timings say nothing about
a Pi; the estimate is derived from the cores' published make-up instead (see PI_CORES).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from companion.bench_soak import process_memory_kb
from companion.bench_vision import synthetic_frame
from vision import dice_net
from vision.reader import _net, read_frame

FRAME_SIZES = ((640, 480), (1920, 1080), (4032, 3024))
DICE_COUNTS = (6, 20)

HERE_CORE = {"name": "this machine's core (AMD EPYC, Zen 3)", "ghz": 3.0, "simd_flops_per_cycle": 32}
"""Zen 3: two 256-bit FMA pipes = 2 x 8 lanes x 2 = 32 single-precision FLOP a cycle; about 3 GHz
under load in this VM (the VM does not show the clock: taken as the EPYC 7003's all-core boost)."""

PI_CORES = {
    "Pi 4 (Cortex-A72, 1.5 GHz)": {"ghz": 1.5, "simd_flops_per_cycle": 8, "scalar_ratio": 4.0},
    "Pi 5 (Cortex-A76, 2.4 GHz)": {"ghz": 2.4, "simd_flops_per_cycle": 16, "scalar_ratio": 1.7},
}
"""Per core: clock; single-precision SIMD FLOP a cycle (A72: 128-bit NEON FMA on two 64-bit pipes =
8, as measured by vfpbench; A76: two 128-bit FMA pipes = 16); how many times longer plain
(non-vector) code takes than here (clock ratio times a lower instructions-per-cycle: 2 x 2 for the
A72 at 1.5 GHz, 1.25 x 1.35 for the A76 at 2.4 GHz). The networks are vector work, scaled by the
SIMD ratio; everything else (Python, resizing, colour) is scaled by the scalar ratio."""


def _frame(size: tuple[int, int], dice: int, seed: int = 11) -> np.ndarray:
    """A rendered tray whose dice grow with the frame (a twelfth of its short side)."""
    side = max(24, min(size) // 12)
    return synthetic_frame(size, dice, seed, die_size=(side, int(side * 1.3)))[0]


def network_flops(size: tuple[int, int], dice: int) -> dict:
    """Floating-point operations of the finder on a frame of ``size`` and of the face reader on ``dice`` crops."""
    finder_view, _ = dice_net.finder_input(np.zeros((size[1], size[0], 3), np.uint8))
    finder = _net(dice_net.FINDER_FILE).getFLOPS((1, 3, *finder_view.shape[:2]))
    reader = _net(dice_net.READER_FILE).getFLOPS((1, 3, dice_net.CROP_SIZE, dice_net.CROP_SIZE))
    return {"finder_mflop": round(finder / 1e6, 1), "reader_mflop_per_die": round(reader / 1e6, 1),
            "total_mflop": round((finder + dice * reader) / 1e6, 1)}


class _CountedNet:
    """A network that adds up the crops it is given and the time its forward passes take."""

    def __init__(self, net: cv2.dnn.Net, tally: dict):
        self.net, self.tally = net, tally

    def setInput(self, blob: np.ndarray) -> None:
        self.tally["inputs"].append(blob.shape)
        self.net.setInput(blob)

    def forward(self, *output_names):
        start = time.perf_counter()
        out = self.net.forward(*output_names)
        self.tally["seconds"] += time.perf_counter() - start
        return out


def measured_read(frame: np.ndarray) -> dict:
    """One reading of ``frame`` as it is (as a camera's frames are read once its slant is known; a search
    for the slant reads a doubted frame 6-8 times) with its networks' share: ms in all, ms in forward
    passes, MFLOP run."""
    from vision import reader

    tally: dict = {"inputs": [], "seconds": 0.0}
    plain = reader._net
    reader._net = lambda path: _CountedNet(plain(path), tally)
    try:
        total = read_frame(frame, slant_doubtful=0.0).ms
    finally:
        reader._net = plain
    flops = sum(_flops(shape) for shape in tally["inputs"])
    return {"ms": total, "network_ms": tally["seconds"] * 1000, "mflop": flops / 1e6}


def _flops(shape: tuple) -> float:
    """FLOPs of one forward pass on an input of NCHW ``shape``: 40 px crops go to the face reader (3 channels) or the
    print check (6: a crop and a wider one), any other size to the finder."""
    batch, channels, height, width = shape
    if (height, width) == (dice_net.CROP_SIZE, dice_net.CROP_SIZE):
        model = dice_net.READER_FILE if channels == 3 else dice_net.PRINT_CHECK_FILE
        return batch * _net(model).getFLOPS((1, channels, height, width))
    return batch * _net(dice_net.FINDER_FILE).getFLOPS((1, 3, height, width))


def reader_cost(repeats: int = 9) -> dict:
    """FLOPs and ms per frame here (one thread), and the Pi 4 / Pi 5 estimates, by frame size and dice count."""
    cv2.setNumThreads(1)
    here_gflops = HERE_CORE["ghz"] * HERE_CORE["simd_flops_per_cycle"]
    ratios = {name: {"networks": round(here_gflops / (core["ghz"] * core["simd_flops_per_cycle"]), 2),
                     "rest": core["scalar_ratio"]} for name, core in PI_CORES.items()}
    rows = []
    for size in FRAME_SIZES:
        for dice in DICE_COUNTS:
            frame = _frame(size, dice)
            read_frame(frame, slant_doubtful=0.0)
            runs = [measured_read(frame) for _ in range(repeats)]
            total = statistics.median(r["ms"] for r in runs)
            networks = statistics.median(r["network_ms"] for r in runs)
            row = {"frame": f"{size[0]}x{size[1]}", "dice": dice, **network_flops(size, dice),
                   "mflop_run": round(statistics.median(r["mflop"] for r in runs), 1),
                   "ms_here": round(total, 1), "network_ms_here": round(networks, 1)}
            for name, ratio in ratios.items():
                row[f"ms_{name}"] = round(networks * ratio["networks"] + (total - networks) * ratio["rest"])
            rows.append(row)
    return {"threads": 1, "load_average": round(os.getloadavg()[0], 2), "rows": rows, "ratios": ratios}


def _peak_rss_mb(pid: int) -> float:
    return process_memory_kb(pid).get("VmHWM", 0) / 1024


def watch_memory(rolls: int = 12) -> dict:
    """Peak resident memory of ``companion watch`` reading ``rolls`` 1920x1080 trays (a replay of renders)."""
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(rolls):
            cv2.imwrite(str(Path(tmp) / f"tray-{n:02d}.jpg"), _frame((1920, 1080), 8, seed=n))
        command = [sys.executable, "-m", "companion", "watch", "--camera", f"replay:{tmp}", "--json", "--frames",
                   "--rolls", str(rolls)]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        peak = 0.0
        while process.poll() is None:
            peak = max(peak, _peak_rss_mb(process.pid))
            time.sleep(0.2)
        errors = process.stderr.read().strip()
    if process.returncode != 0:
        raise RuntimeError(f"companion watch failed: {errors}")
    return {"frame": "1920x1080", "rolls": rolls, "peak_rss_mb": round(peak, 1)}


def app_memory(seconds: float = 60.0) -> dict:
    """Peak resident memory of the app and of its reader process, 1920x1080 frames read back to back, in a process of
    its own: what this one holds (reader_cost's networks and frames) is not the app's."""
    code = f"import json; from ui.soak import peak_memory_full_hd; print(json.dumps(peak_memory_full_hd({seconds!r})))"
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1])
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"the app's memory could not be measured: {last[0]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
