"""Stand-in for torch.cuda: a simulated caching allocator with a capacity.

Allocations go through `standin_allocate` / `standin_free` (used by standin_workload.py). As in
PyTorch's caching allocator, freed memory stays reserved: reserved memory only grows, to the
allocated total rounded up to whole SEGMENT_BYTES, until `empty_cache`. An allocation past the
capacity raises OutOfMemoryError, like the real one.
"""

import os

# The capacity, from the environment so that a test can make a scenario run out; by default the
# H200's memory as the driver reports it (data/catalog/gpus.json, h200-sxm memoryBytes).
CAPACITY_ENV = "STANDIN_CAPACITY_BYTES"
DEFAULT_CAPACITY_BYTES = 150754820096
# Reserved memory grows in segments of this size (a simplification of PyTorch's segment sizes).
SEGMENT_BYTES = 20 * 2**20
# When set, `init` fails as real CUDA does in a child forked after its parent initialised CUDA.
INIT_FAILS_ENV = "STANDIN_CUDA_INIT_FAILS"

_state = {"allocated": 0, "reserved": 0, "peak_allocated": 0, "peak_reserved": 0, "initialized": False}


class OutOfMemoryError(RuntimeError):
    """Raised when an allocation would pass the capacity."""


def _round_up(nbytes: int) -> int:
    return -(-nbytes // SEGMENT_BYTES) * SEGMENT_BYTES


def standin_allocate(nbytes: int) -> None:
    """Allocates `nbytes` (raises OutOfMemoryError past the capacity)."""
    _state["initialized"] = True
    capacity = int(os.environ.get(CAPACITY_ENV, DEFAULT_CAPACITY_BYTES))
    if _round_up(_state["allocated"] + nbytes) > capacity:
        raise OutOfMemoryError(f"CUDA out of memory. Tried to allocate {nbytes} bytes (stand-in)")
    _state["allocated"] += nbytes
    _state["reserved"] = max(_state["reserved"], _round_up(_state["allocated"]))
    _state["peak_allocated"] = max(_state["peak_allocated"], _state["allocated"])
    _state["peak_reserved"] = max(_state["peak_reserved"], _state["reserved"])


def standin_free(nbytes: int) -> None:
    """Frees `nbytes`; they stay reserved."""
    _state["allocated"] -= nbytes


def init() -> None:
    if os.environ.get(INIT_FAILS_ENV):
        raise RuntimeError("CUDA error: initialization error (stand-in)")


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return _state["initialized"]


def get_device_name(device: object = None) -> str:
    return "Stand-in GPU"


def synchronize() -> None:
    """Nothing runs asynchronously here."""


def memory_allocated() -> int:
    return _state["allocated"]


def memory_reserved() -> int:
    return _state["reserved"]


def max_memory_allocated() -> int:
    return _state["peak_allocated"]


def max_memory_reserved() -> int:
    return _state["peak_reserved"]


def reset_peak_memory_stats() -> None:
    _state["peak_allocated"] = _state["allocated"]
    _state["peak_reserved"] = _state["reserved"]


def empty_cache() -> None:
    _state["reserved"] = _round_up(_state["allocated"])
