"""float32 rounding and the optional numpy import, shared by the builders."""

from __future__ import annotations

import array
import functools
from types import ModuleType
from typing import Optional


def f32(value: float) -> float:
    """The float32 nearest to `value`, as a Python float.

    Every number on the wire is a float32. The builders round their inputs
    and results with this so that derived values (x + w, c - h) are what the
    C++ client and the seeds compute in float32: the double sum of two
    float32 values rounded once to float32 is the float32 sum. Values past
    float32's range become +-inf (the server rejects them), as protobuf does.
    """
    return array.array("f", (value,))[0]


@functools.lru_cache(maxsize=None)
def numpy_or_none() -> Optional[ModuleType]:
    """numpy when it is importable, else None."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def use_numpy(as_numpy: Optional[bool]) -> Optional[ModuleType]:
    """numpy when the caller wants arrays (None: when numpy is importable)."""
    if as_numpy is False:
        return None
    np = numpy_or_none()
    if as_numpy and np is None:
        raise ImportError("as_numpy=True needs numpy: pip install "
                          "'collision-client[numpy]'")
    return np


def is_ndarray(value: object) -> bool:
    np = numpy_or_none()
    return np is not None and isinstance(value, np.ndarray)
