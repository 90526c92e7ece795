"""Benchmark of the camera path, for ``companion bench``: simulated rolls from throw to reading.

:func:`settle_to_reading` runs the seeded simulated camera (30 frames a second on its
virtual clock) through the settler and the real reader, as ``companion watch --camera
sim`` does, and reports the median time from the dice coming to rest to the reading being
ready, the reader's own time, and how many rolls were read exactly as the sim drew them.
"""
from __future__ import annotations

import statistics
from dataclasses import replace

import cv2

from hardware.camera import SimCamera
from vision.settle import DEFAULT_SETTLE


def matches_truth(reading, truth, tolerance: float = 0.35) -> bool:
    """True when every drawn die was read with its value and colour near its centre, and nothing else."""
    if reading.error or len(reading.dice) != len(truth):
        return False
    unused = list(reading.dice)
    for die in truth:
        reach = tolerance * die.side
        near = [d for d in unused if abs(d.center[0] - die.center[0]) <= reach
                and abs(d.center[1] - die.center[1]) <= reach]
        if not near or near[0].value != die.value or near[0].colour != die.colour:
            return False
        unused.remove(near[0])
    return True


def settle_to_reading(rolls: int = 100, seed: int = 0, threads: int = 1) -> dict:
    """Median settle-to-reading ms over ``rolls`` simulated rolls of 5 dice at 640x480."""
    from companion.commands.watch import camera_frames, settled_readings
    from vision.reader import CameraReader

    cv2.setNumThreads(threads)
    camera = SimCamera(seed=seed, auto_throw=True)
    waits, reads, right = [], [], 0
    settings = replace(DEFAULT_SETTLE, report_empty=True)
    for reading, settle_ms, truth in settled_readings(camera_frames(camera), CameraReader().read, rolls=rolls,
                                                      settings=settings):
        if settle_ms is not None:
            waits.append(settle_ms)
            reads.append(reading.ms)
        right += matches_truth(reading, truth)
    return {
        "rolls": rolls,
        "threads": threads,
        "fps": camera.fps,
        "still_seconds": DEFAULT_SETTLE.still_seconds,
        "agreeing_readings": DEFAULT_SETTLE.agreeing_readings,
        "median_settle_to_reading_ms": round(statistics.median(waits), 1) if waits else None,
        "median_reader_ms": round(statistics.median(reads), 1) if reads else None,
        "rolls_read_right": right,
    }
