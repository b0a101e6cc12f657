"""Stand-in for pynvml (nvidia-ml-py): NVML's view of the stand-in GPU, for the tests.

The calling process appears once it has allocated, using what the stand-in allocator reserved plus
a CUDA context of CONTEXT_BYTES, as nvidia-smi shows reserved memory plus the context.
"""

import os
from types import SimpleNamespace

import torch

# A CUDA context of a few hundred MiB (data/docs/MEMORY-MODEL.md: ~300-500 MiB with lazy loading).
CONTEXT_BYTES = 500 * 2**20


def nvmlInit() -> None:
    """Nothing to start."""


def nvmlShutdown() -> None:
    """Nothing to stop."""


def nvmlDeviceGetHandleByIndex(index: int) -> int:
    return index


def _used() -> int:
    return torch.cuda.memory_reserved() + CONTEXT_BYTES if torch.cuda.is_initialized() else 0


def nvmlDeviceGetComputeRunningProcesses(handle: int) -> list:
    if not torch.cuda.is_initialized():
        return []
    return [SimpleNamespace(pid=os.getpid(), usedGpuMemory=_used())]


def nvmlDeviceGetMemoryInfo(handle: int) -> SimpleNamespace:
    return SimpleNamespace(used=_used(), total=torch.cuda.DEFAULT_CAPACITY_BYTES)
