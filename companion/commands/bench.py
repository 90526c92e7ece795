"""``companion bench``: the speed and accuracy figures of ``docs/benchmarks.md``.

Each subject's figures come from a benchmark function beside the code it measures; this
command only runs them, on one thread where the subject allows it, and prints the result.
"""
from __future__ import annotations

import importlib
import json
import os
import platform

SUBJECTS = {
    "games": [("companion.bench_games", "dairyman_benchmarks"), ("companion.bench_derby", "derby_games_per_second")],
    "vision": [("companion.bench_vision", "run_all")],
    "camera": [("companion.bench_camera", "settle_to_reading")],
    "sessions": [("companion.session", "bench_sessions")],
    "calibration": [("calibration.bench", "run_all")],
    "learn": [("calibration.bench_learn", "learn_my_dice_gain"), ("calibration.bench_learn", "symbol_face_learnt"),
              ("calibration.bench_learn", "side_faces_learnt")],
    "ui": [("ui.bench", "bench_ui")],
    "soak": [("companion.bench_soak", "soak_watch"), ("ui.soak", "peak_memory_full_hd"), ("ui.soak", "soak_app")],
    "advice": [("companion.bench_advice", "dairyman_tournaments"), ("companion.bench_advice", "derby_tournaments")],
    "pi": [("companion.bench_pi", "reader_cost"), ("companion.bench_pi", "watch_memory"),
           ("companion.bench_pi", "app_memory")],
}
LONG_SUBJECTS = ("soak", "advice")
"""Subjects that take an hour or more: run only when named, never by ``all``."""


def register(sub) -> None:
    parser = sub.add_parser("bench", help="measure speed and accuracy (figures for docs/benchmarks.md)")
    parser.add_argument("subject", choices=[*SUBJECTS, "all"],
                        help="what to measure (all: everything but soak and advice, which take an hour or more each)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def machine() -> dict:
    """The machine the figures were taken on."""
    return {"python": platform.python_version(), "machine": platform.machine(), "system": platform.platform(),
            "cpus": os.cpu_count(), "processor": _cpu_model()}


def _cpu_model() -> str:
    """The CPU's name from /proc/cpuinfo ("model name" on a PC, "Model" on a Raspberry Pi)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            fields = dict(line.split(":", 1) for line in cpuinfo if ":" in line)
    except OSError:
        fields = {}
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    return fields.get("model name") or fields.get("Model") or platform.processor() or "unknown"


def run(args) -> int:
    subjects = [s for s in SUBJECTS if s not in LONG_SUBJECTS] if args.subject == "all" else [args.subject]
    report: dict = {"machine": machine()}
    for subject in subjects:
        for module_name, function_name in SUBJECTS[subject]:
            function = getattr(importlib.import_module(module_name), function_name)
            report[f"{subject}.{function_name}"] = function()
    if args.json:
        print(json.dumps(report))
    else:
        print(json.dumps(report, indent=2))
    return 0
