"""Stand-in for the parts of PyTorch that measure.py's child process uses.

For the tests only (bench/gpu/test_measure.py), which run where neither torch nor a GPU exists. It is
importable as `torch` only when bench/gpu/standin is put on sys.path; the real harness never does.
"""

from . import cuda, version

__version__ = "0.0+standin"
__all__ = ["cuda", "version"]
