"""Work done once per identical input, while a caller asks for it.

"Learn my dice" reads the same few rolls under dozens of settings (slants, thresholds, the wider look): most
of the settings hand the networks and the pip count exactly the same pixels again.  Inside
:func:`remembering`, a network's answer for one input (a finder view, one die's crop) and a die's pip count
are worked out once and looked up after; outside it nothing is kept, so a camera's stream of new frames pays
nothing.  What is remembered belongs to the thread that asked for it: the app's live reading beside a lesson
in the background keeps none.  The networks answer each crop of a batch alike whatever else the batch holds, so
answers looked up are the ones worked out again would be.
"""
from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

_local = threading.local()


@contextmanager
def remembering() -> Iterator[None]:
    """Within this block (in this thread), answers for identical inputs are worked out once; nested blocks share
    the outermost one's memory, which is dropped when it ends."""
    if _store() is not None:
        yield
        return
    _local.store = {}
    try:
        yield
    finally:
        _local.store = None


def _store() -> dict | None:
    return getattr(_local, "store", None)


def fingerprint(array: np.ndarray) -> bytes:
    """A digest of an array's pixels, shape and type: equal for equal arrays."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((array.shape, array.dtype.str)).encode())
    digest.update(np.ascontiguousarray(array).data)
    return digest.digest()


def once(kind: Hashable, array: np.ndarray, work: Callable[[], Any]) -> Any:
    """``work()``, the answer for ``array`` of this ``kind`` (what is asked of it, with every setting that changes
    the answer), looked up when it was worked out before within :func:`remembering`."""
    store = _store()
    if store is None:
        return work()
    key = (kind, fingerprint(array))
    if key not in store:
        store[key] = work()
    return store[key]


def per_item(kind: Hashable, items: np.ndarray, work: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``work(items)`` (one answer row per item of the stack ``items``), the rows of items seen before within
    :func:`remembering` looked up and only the others worked out."""
    store = _store()
    if store is None:
        return work(items)
    keys = [(kind, fingerprint(item)) for item in items]
    first_seen: dict = {}
    for i, key in enumerate(keys):
        if key not in store:
            first_seen.setdefault(key, i)
    new = list(first_seen.values())
    if new:
        for i, row in zip(new, work(items[new])):
            store[keys[i]] = row
    return np.stack([store[key] for key in keys])
