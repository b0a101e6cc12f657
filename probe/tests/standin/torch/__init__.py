"""Stand-in for the parts of PyTorch that headroom_probe reads, for tests where torch cannot be installed.

Importable as `torch` only when probe/tests/standin is on sys.path (the probe tests and the
end-to-end CLI tests put it there); nothing shipped imports it. Memory is simulated by
`torch.cuda.standin_allocate` / `standin_free` (see cuda.py).
"""

from . import _C, cuda, version
from .cuda import OutOfMemoryError

__version__ = "2.5.1+standin"
__all__ = ["OutOfMemoryError", "_C", "cuda", "version"]
