"""Soak benchmark of the reading loop: ``companion watch --camera sim`` for thousands of rolls.

``companion bench soak`` calls :func:`soak_watch` (and the app's soak in :mod:`ui.soak`).
The command runs as its own process, exactly as a person starts it; every
``sample_every`` rolls its resident memory and open file descriptors are read from
``/proc``, so a leak shows as growth between the samples.  The simulated camera's
truth also gives the share of rolls read exactly right.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

SOAK_ROLLS = 10_000
"""Rolls of the watch soak (about 15 minutes on a 2-core PC)."""
SAMPLE_EVERY = 1_000
"""Rolls between two samples of memory and file descriptors."""


def process_memory_kb(pid: int) -> dict[str, int]:
    """Memory of one process in kB: resident now (VmRSS), resident at its peak (VmHWM) and its
    proportional share (Pss: pages shared with other processes counted once in all); {} once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return {}
    fields = dict(line.split(":", 1) for line in (status + rollup).splitlines() if ":" in line)
    return {key: int(fields[key].split()[0]) for key in ("VmRSS", "VmHWM", "Pss") if key in fields}


def open_descriptors(pid: int) -> int | None:
    """How many file descriptors a process has open (None once it is gone)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def child_pids(pid: int) -> list[int]:
    """The direct children of a process (Linux /proc)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            children += [int(p) for p in task.read_text().split()]
        except OSError:
            continue
    return children


def tree_memory_kb(pid: int) -> dict[str, int]:
    """Memory of a process and its children, added up, in kB (the keys of :func:`process_memory_kb`)."""
    total = {"VmRSS": 0, "VmHWM": 0, "Pss": 0}
    for member in [pid, *child_pids(pid)]:
        for key, value in process_memory_kb(member).items():
            total[key] += value
    return total


def _exact(line: dict) -> bool:
    """The reading names every thrown die's value (as a multiset) and no other."""
    read = sorted(d.get("value") or 0 for d in line.get("dice", []))
    return not line.get("error") and read == sorted(t["value"] for t in line.get("truth", []))


def soak_watch(rolls: int = SOAK_ROLLS, sample_every: int = SAMPLE_EVERY) -> dict:
    """Memory and descriptors of ``companion watch --camera sim`` every ``sample_every`` rolls."""
    command = [sys.executable, "-m", "companion", "watch", "--camera", "sim", "--json", "--rolls", str(rolls)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    samples, done, exact = [], 0, 0
    for raw in process.stdout:
        done += 1
        exact += _exact(json.loads(raw))
        if done == 1 or done % sample_every == 0:
            memory = process_memory_kb(process.pid)
            samples.append({"rolls": done, "seconds": round(time.perf_counter() - started, 1),
                            "pss_mb": round(memory.get("Pss", 0) / 1024, 1),
                            "open_fds": open_descriptors(process.pid)})
    errors = process.stderr.read()
    status = process.wait()
    if status != 0:
        return {"error": f"watch exited {status}: {errors.strip()[-300:]}"}
    settled = samples[1:] or samples          # growth is measured after the first thousand rolls
    return {
        "rolls": done,
        "seconds": round(time.perf_counter() - started, 1),
        "rolls_read_exactly": round(exact / max(done, 1), 4),
        "samples": samples,
        "pss_growth_mb_per_1000_rolls": round((settled[-1]["pss_mb"] - settled[0]["pss_mb"])
                                              / max((settled[-1]["rolls"] - settled[0]["rolls"]) / 1000, 1), 2),
        "fd_change": settled[-1]["open_fds"] - settled[0]["open_fds"],
    }
