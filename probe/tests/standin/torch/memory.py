"""Stand-in for torch.cuda.memory's history API (torch/cuda/memory.py, torch >= 2.1).

`_record_memory_history` remembers its arguments; `_snapshot()` returns the shape
`torch.cuda.memory._snapshot()` returns — segments with blocks, and device_traces of alloc/free
events — built from the stand-in allocator's totals, so the probe's dump can be read back by
headroom's snapshot reader. STANDIN_LEGACY_HISTORY=1 makes it take only torch 2.0's signature.
"""

import os

history = {"calls": [], "enabled": None, "max_entries": None}
_trace = []


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=None, device=None, **legacy):
    if os.environ.get("STANDIN_LEGACY_HISTORY") == "1" and not isinstance(enabled, bool):
        raise TypeError("_record_memory_history() takes a bool in torch 2.0")
    history["calls"].append({"enabled": enabled, "max_entries": max_entries, **legacy})
    history["enabled"] = enabled
    history["max_entries"] = max_entries if max_entries is not None else legacy.get("trace_alloc_max_entries")
    if enabled in (None, False):
        _trace.clear()


def standin_trace(action, addr, size, frames=None):
    """Appends one trace event while recording is on (called by the stand-in allocator)."""
    if history["enabled"] in (None, False):
        return
    limit = history["max_entries"]
    _trace.append(
        {
            "action": action,
            "addr": addr,
            "size": size,
            "stream": 0,
            "time_us": len(_trace),
            "frames": list(frames) if frames else [{"filename": "train.py", "line": 1, "name": "train_step"}],
        }
    )
    if limit is not None and len(_trace) > limit:
        del _trace[0]


def _snapshot(device=None):
    from . import cuda

    d = cuda._device(0)
    segment = {
        "device": 0,
        "address": 0,
        "total_size": d.reserved,
        "allocated_size": d.allocated,
        "active_size": d.allocated,
        "requested_size": d.allocated,
        "stream": 0,
        "segment_type": "large",
        "blocks": [
            {"address": 0, "size": d.allocated, "requested_size": d.allocated, "state": "active_allocated", "frames": []},
            {"address": d.allocated, "size": d.reserved - d.allocated, "requested_size": 0, "state": "inactive", "frames": []},
        ],
    }
    return {"segments": [segment] if d.reserved > 0 else [], "device_traces": [list(_trace)]}


def _dump_snapshot(filename="dump_snapshot.pickle"):
    import pickle

    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)


def standin_reset():
    history["calls"].clear()
    history["enabled"] = None
    history["max_entries"] = None
    _trace.clear()
