"""Stand-in for torch.cuda: a simulated caching allocator per device, with a capacity.

As in PyTorch's caching allocator, freed memory stays reserved: reserved memory only grows, to the
allocated total rounded up to whole SEGMENT_BYTES (plus what `standin_fragment` left unusable),
until `empty_cache`. An allocation that would pass the capacity raises OutOfMemoryError with PyTorch
2.x's message layout (the text of c10/cuda/CUDACachingAllocator.cpp, as in
data/validation/oom_corpus.jsonl's torch-v2 cases).

When STANDIN_NVSMI_STATE_DIR is set, every change is mirrored to `<dir>/<pid>.json` (reserved bytes
plus a CUDA context per device) so that the stand-in nvidia-smi (test/fixtures/bin/nvidia-smi)
can list this process with the memory nvidia-smi would show for it.

Tests count calls: `calls["synchronize"]` must stay 0 under the probe.
"""

import json
import os
import sys

from . import memory

CAPACITY_ENV = "STANDIN_CAPACITY_BYTES"
DEVICES_ENV = "STANDIN_DEVICE_COUNT"
STATE_DIR_ENV = "STANDIN_NVSMI_STATE_DIR"
# An H200 as nvidia-smi reports it: 143771 MiB (data/validation/nvidia-smi/12_h200_query_gpu_full.csv).
DEFAULT_CAPACITY_BYTES = 143771 * 2**20
# Reserved memory grows in segments of this size (PyTorch's large-segment size: kLargeBuffer = 20 MiB
# in c10/cuda/CUDACachingAllocator.cpp).
SEGMENT_BYTES = 20 * 2**20
# What a CUDA context adds to nvidia-smi's figure (the estimator's CUDA_CONTEXT_BYTES, src/core/estimate.ts).
CONTEXT_BYTES = 500 * 2**20

calls = {"synchronize": 0, "memory_stats": 0, "reset_peak_memory_stats": 0}


class OutOfMemoryError(RuntimeError):
    """Raised when an allocation would pass the capacity (torch.cuda.OutOfMemoryError)."""


OutOfMemoryError.__module__ = "torch.cuda"


class _Device:
    def __init__(self):
        self.allocated = 0
        self.reserved = 0
        self.peak_allocated = 0
        self.peak_reserved = 0
        self.inactive_split = 0
        self.alloc_retries = 0
        self.ooms = 0
        # Cached bytes left split and unusable (standin_fragment): later allocations cannot reuse them.
        self.unusable = 0
        # Whether this process made a CUDA context here: only by allocating on the device; reading
        # its properties or its (empty) memory stats creates none, so nvidia-smi does not list it there.
        self.context = False


_initialized = False
_current = 0
_devices = {}


def _count():
    return int(os.environ.get(DEVICES_ENV, "1"))


def _device(index=None):
    index = _current if index is None else int(getattr(index, "index", index))
    if index >= _count():
        raise RuntimeError("CUDA error: invalid device ordinal (stand-in)")
    return _devices.setdefault(index, _Device())


def _round_up(nbytes):
    return -(-nbytes // SEGMENT_BYTES) * SEGMENT_BYTES


def _gib(nbytes):
    return "%.2f GiB" % (nbytes / 2**30) if nbytes >= 2**30 else "%.2f MiB" % (nbytes / 2**20)


def _start_time(pid):
    """The process's start time in clock ticks (proc(5), /proc/PID/stat field 22), or None off Linux:
    with the pid it names one process, so a pid the kernel hands out again is not taken for this one."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _mirror():
    folder = os.environ.get(STATE_DIR_ENV)
    if not folder:
        return
    state = {
        "pid": os.getpid(),
        "start": _start_time(os.getpid()),
        "name": os.path.basename(sys.executable) or "python3",
        "devices": {str(i): d.reserved + CONTEXT_BYTES for i, d in sorted(_devices.items()) if d.context},
    }
    path = os.path.join(folder, "%d.json" % os.getpid())
    with open(path + ".tmp", "w") as f:
        json.dump(state, f)
    os.replace(path + ".tmp", path)


def standin_allocate(nbytes, device=None, frames=None):
    """Allocates `nbytes` on a device (raises OutOfMemoryError past the capacity). `frames`: the stack
    the trace records for it, innermost first, as torch records them (default: train.py train_step)."""
    global _initialized
    _initialized = True
    d = _device(device)
    index = _current if device is None else int(device)
    capacity = int(os.environ.get(CAPACITY_ENV, DEFAULT_CAPACITY_BYTES))
    needed = _round_up(d.allocated + nbytes) + d.unusable
    if needed > capacity - CONTEXT_BYTES:
        d.ooms += 1
        # PyTorch records the OOM in the trace, then calls its out-of-memory observers, then raises
        # (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator::malloc).
        memory.standin_trace("oom", 0, nbytes, frames)
        from . import _C

        for observer in list(_C.observers):
            observer(index, nbytes, capacity, max(0, capacity - CONTEXT_BYTES - d.reserved))
        free = max(0, capacity - CONTEXT_BYTES - d.reserved)
        raise OutOfMemoryError(
            "CUDA out of memory. Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. "
            "Including non-PyTorch memory, this process has %s memory in use. Of the allocated memory %s is "
            "allocated by PyTorch, and %s is reserved by PyTorch but unallocated. If reserved but unallocated "
            "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
            "fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (
                _gib(nbytes),
                index,
                _gib(capacity),
                _gib(free),
                _gib(d.reserved + CONTEXT_BYTES),
                _gib(d.allocated),
                _gib(d.reserved - d.allocated),
            )
        )
    memory.standin_trace("alloc", d.allocated, nbytes, frames)
    d.context = True
    d.allocated += nbytes
    if needed > d.reserved:
        d.reserved = needed
    d.inactive_split = d.reserved - d.allocated
    d.peak_allocated = max(d.peak_allocated, d.allocated)
    d.peak_reserved = max(d.peak_reserved, d.reserved)
    _mirror()


def standin_fragment(nbytes, device=None):
    """Leaves `nbytes` (rounded up to whole segments) of the cache split and unusable, as variable-sized
    blocks do: reserved grows by them and no later allocation reuses them, until `empty_cache`."""
    global _initialized
    _initialized = True
    d = _device(device)
    d.context = True
    d.unusable += _round_up(nbytes)
    d.reserved = max(d.reserved, _round_up(d.allocated) + d.unusable)
    d.inactive_split = d.reserved - d.allocated
    d.peak_reserved = max(d.peak_reserved, d.reserved)
    _mirror()


def standin_free(nbytes, device=None):
    """Frees `nbytes`; they stay reserved (cached)."""
    d = _device(device)
    d.allocated -= nbytes
    memory.standin_trace("free_requested", d.allocated, nbytes)
    memory.standin_trace("free_completed", d.allocated, nbytes)
    d.inactive_split = d.reserved - d.allocated
    _mirror()


def is_available():
    return True


def is_initialized():
    return _initialized


def init():
    global _initialized
    _initialized = True


def device_count():
    return _count()


def current_device():
    return _current


def set_device(index):
    global _current
    _current = int(index)


def synchronize(device=None):
    calls["synchronize"] += 1


class _Props:
    def __init__(self, index):
        self.name = "NVIDIA H200"
        self.total_memory = int(os.environ.get(CAPACITY_ENV, DEFAULT_CAPACITY_BYTES))
        self.uuid = "GPU-00000000-0000-0000-0000-%012d" % index  # as the stand-in nvidia-smi lists device N


def get_device_properties(device=None):
    return _Props(_current if device is None else int(device))


def memory_stats(device=None):
    calls["memory_stats"] += 1
    if not _initialized:
        return {}
    d = _device(device)
    return {
        "allocated_bytes.all.current": d.allocated,
        "allocated_bytes.all.peak": d.peak_allocated,
        "reserved_bytes.all.current": d.reserved,
        "reserved_bytes.all.peak": d.peak_reserved,
        "inactive_split_bytes.all.current": d.inactive_split,
        "num_alloc_retries": d.alloc_retries,
        "num_ooms": d.ooms,
    }


def memory_allocated(device=None):
    return _device(device).allocated


def memory_reserved(device=None):
    return _device(device).reserved


def max_memory_allocated(device=None):
    return _device(device).peak_allocated


def max_memory_reserved(device=None):
    return _device(device).peak_reserved


def reset_peak_memory_stats(device=None):
    calls["reset_peak_memory_stats"] += 1
    d = _device(device)
    d.peak_allocated = d.allocated
    d.peak_reserved = d.reserved


def empty_cache():
    for d in _devices.values():
        d.unusable = 0
        d.reserved = _round_up(d.allocated)
        d.inactive_split = d.reserved - d.allocated
    _mirror()


def standin_reset():
    """Forgets every device (tests only)."""
    global _initialized, _current
    _devices.clear()
    _initialized = False
    _current = 0
    for key in calls:
        calls[key] = 0
    memory.standin_reset()
    from . import _C

    _C.standin_reset()
