"""headroom_probe: records what PyTorch's allocator holds at every training step, for `headroom run`.

Single file, no dependencies; torch is never imported by this module (it reads the `torch` your
script already imported). Everything is a no-op unless the environment variable HEADROOM_LOG names
a file, which `headroom run` sets for you.

    import headroom_probe                      # installs the OOM / exception hook (if HEADROOM_LOG is set)

    for step, batch in enumerate(loader, 1):
        loss = train_step(batch)
        headroom_probe.step(step, loss=loss.item(), lr=sched.get_last_lr()[0],
                            batch_size=len(batch), seq_len=batch["input_ids"].shape[1])
        if step % 500 == 0:
            with headroom_probe.phase("eval"):
                evaluate()

    # Hugging Face Trainer (also TRL's trainers):
    trainer = Trainer(..., callbacks=[headroom_probe.HeadroomCallback()])

Each event is one JSON object on one line, written with a single unbuffered write as it happens, so
a process that dies loses nothing already recorded (the format: README, "The probe log"; the
reader: src/core/probe-log.ts). With several ranks (torchrun's RANK,
LOCAL_RANK and WORLD_SIZE, WORLD_SIZE > 1), each rank writes its own file: `probe.jsonl` becomes
`probe.rank0.jsonl`, `probe.rank1.jsonl`, ...

Peaks: every event that carries device figures reports the peak allocated and reserved bytes since
the previous such event of this process, then resets PyTorch's peak counters
(`torch.cuda.reset_peak_memory_stats`); so the `step` event holds the peak of that step, and an OOM
event the peak between the last step and the failure. Code of yours that reads
`max_memory_allocated()` sees these per-step resets.

Allocator snapshots: with HEADROOM_SNAPSHOT=1 (or a number: the most trace entries kept; `headroom
run --snapshot` sets it) the probe turns on PyTorch's memory-history recording
(`torch.cuda.memory._record_memory_history`, torch >= 2.1; the legacy form on 2.0) when the probe is
imported (it imports torch then, if the script has not yet), and when an allocation fails it writes the snapshot (`torch.cuda.memory._snapshot()`) next
to the log as `memory-snapshot.pickle` (`memory-snapshot.rankN.pickle` per rank), from PyTorch's own
out-of-memory observer, before the exception unwinds and frees what filled the card. The log then
holds a `snapshot` event naming the file, which `headroom diagnose RUN` and `headroom snapshot` read.
`headroom_probe.dump_snapshot()` writes one whenever you ask; a process that wrote none writes one
at exit (reason `exit`: its trace still holds the last peak). Cost: PyTorch's notes put the trace
collection at about 2 us per allocation (docs/source/torch_cuda_memory.rst, "Understanding CUDA Memory
Usage": "fast (2us per trace), so you may consider enabling this on production jobs"), and the trace
is a ring of at most HEADROOM_SNAPSHOT entries (default 100,000), so its host memory is bounded.

Overhead: per step one `torch.cuda.memory_stats(d)` and one `reset_peak_memory_stats(d)` per device
this process uses (host-side reads of allocator counters, no device synchronisation), one
`json.dumps` and one `os.write`. A loss passed as a tensor is converted with `float()`, which does
synchronise; pass `loss.item()` where you already call it.
"""

import atexit
import contextlib
import json
import math
import os
import socket
import sys
import threading
import time
import traceback

__all__ = [
    "HeadroomCallback",
    "LOG_ENV",
    "enabled",
    "log_path",
    "phase",
    "record_exception",
    "set_phase",
    "step",
    "dump_snapshot",
    "SNAPSHOT_ENV",
]

PROBE_VERSION = "1"

# The packages whose versions decide a framework profile (headroom's src/core/env.ts FRAMEWORK_PACKAGES,
# distribution names): the start record carries each installed one, read from its metadata.
FRAMEWORK_PACKAGES = (
    "torch",
    "transformers",
    "peft",
    "trl",
    "accelerate",
    "deepspeed",
    "bitsandbytes",
    "torchao",
    "flash-attn",
    "torchtune",
    "litgpt",
    "lightning",
    "axolotl",
    "llamafactory",
    "ms-swift",
    "unsloth",
    "torchtitan",
)


def _installed_version(distribution):
    """A package's installed version from its metadata, without importing it; None when it is absent."""
    try:
        from importlib import metadata

        return metadata.version(distribution)
    except Exception:  # not installed, or metadata unreadable: absent either way
        return None


def _installed_packages():
    """The installed versions of FRAMEWORK_PACKAGES by distribution name; those not installed left out."""
    found = {}
    for name in FRAMEWORK_PACKAGES:
        version = _installed_version(name)
        if version is not None:
            found[name] = version
    return found


SCHEMA_VERSION = 1
LOG_ENV = "HEADROOM_LOG"
SNAPSHOT_ENV = "HEADROOM_SNAPSHOT"
# Trace entries kept when HEADROOM_SNAPSHOT=1: the figure PyTorch's own example uses
# (docs/source/torch_cuda_memory.rst, `_record_memory_history(max_entries=100000)`).
DEFAULT_SNAPSHOT_ENTRIES = 100_000
# A bound on what a user may ask for: ten million entries is hours of a large run's allocations.
MAX_SNAPSHOT_ENTRIES = 10_000_000
# Tracebacks and messages are cut to this many characters (a line must stay well under the reader's
# 1 MiB line limit, MAX_PROBE_LINE_BYTES in src/core/probe-log.ts).
MAX_TEXT_CHARS = 200_000

# Keys of torch.cuda.memory_stats(device) (torch/cuda/memory.py, memory_stats docstring).
_STAT_KEYS = (
    ("allocatedBytes", "allocated_bytes.all.current"),
    ("reservedBytes", "reserved_bytes.all.current"),
    ("peakAllocatedBytes", "allocated_bytes.all.peak"),
    ("peakReservedBytes", "reserved_bytes.all.peak"),
    ("inactiveSplitBytes", "inactive_split_bytes.all.current"),
    ("numAllocRetries", "num_alloc_retries"),
    ("numOoms", "num_ooms"),
)


def _env_int(env, *names):
    for name in names:
        value = env.get(name)
        if value is not None and value.strip().lstrip("-").isdigit():
            return int(value)
    return None


def _rank_info(env):
    """Rank, local rank and world size from torchrun's variables (then MPI's and Slurm's)."""
    rank = _env_int(env, "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")
    local = _env_int(env, "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID")
    world = _env_int(env, "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS")
    return (rank or 0, local if local is not None else (rank or 0), world or 1)


def snapshot_entries(env=None):
    """How many trace entries HEADROOM_SNAPSHOT asks for: None when recording is off."""
    env = os.environ if env is None else env
    value = (env.get(SNAPSHOT_ENV) or "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return None
    if value in ("1", "true", "yes", "on"):
        return DEFAULT_SNAPSHOT_ENTRIES
    if value.isdigit():
        return max(1, min(int(value), MAX_SNAPSHOT_ENTRIES))
    return DEFAULT_SNAPSHOT_ENTRIES


def snapshot_path(log, env=None):
    """Where a snapshot of this process goes: memory-snapshot.pickle beside its log (per rank)."""
    env = os.environ if env is None else env
    rank, _, world = _rank_info(env)
    name = "memory-snapshot.rank%d.pickle" % rank if world > 1 else "memory-snapshot.pickle"
    return os.path.join(os.path.dirname(os.path.abspath(log)), name)


def log_path(base=None, env=None):
    """The file this process writes: HEADROOM_LOG, or its per-rank sibling when WORLD_SIZE > 1."""
    env = os.environ if env is None else env
    base = env.get(LOG_ENV) if base is None else base
    if not base:
        return None
    rank, _, world = _rank_info(env)
    if world <= 1:
        return base
    root, ext = os.path.splitext(base)
    return "%s.rank%d%s" % (root, rank, ext)


def _finite_or_none(value):
    if value is None:
        return None, None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None, str(value)[:100]
    if math.isnan(number) or math.isinf(number):
        return None, repr(number)
    return number, None


def _int_or_none(value):
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _cut(text):
    if len(text) <= MAX_TEXT_CHARS:
        return text
    half = MAX_TEXT_CHARS // 2
    return text[:half] + "\n[... %d characters cut by headroom_probe ...]\n" % (len(text) - 2 * half) + text[-half:]


def _is_oom(exc):
    """True when the exception, or one it was raised from, is a CUDA out-of-memory error."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if any(cls.__name__ == "OutOfMemoryError" for cls in type(exc).__mro__):
            return True
        if "out of memory" in str(exc).lower():
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class _Probe:
    """The writer behind the module functions; one per process."""

    def __init__(self, path, env):
        self.path = path
        self.rank, self.local_rank, self.world_size = _rank_info(env)
        self.cuda_visible_devices = env.get("CUDA_VISIBLE_DEVICES")
        self.snapshot_entries = snapshot_entries(env)
        self.snapshot_file = snapshot_path(path, env)
        self.recording = False
        # The out-of-memory snapshot is written once: by the observer, else by the exception hook.
        self.oom_dumped = False
        # Whether this process wrote any snapshot: without one, the exit writes its last (the trace's peak).
        self.dumped = False
        self.lock = threading.RLock()
        self.fd = None
        self.broken = False
        self._reset_process_state()

    def _reset_process_state(self):
        self.pid = os.getpid()
        self.started = False
        self.phase = "train"
        self.last_step = None
        self.last_step_t = None
        self.steps = 0
        self.devices_seen = set()
        self.uncaught = None
        self.fd = None

    # -- writing ------------------------------------------------------------------------------

    def _open(self):
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        # A writer that died mid-line left no newline: start on a fresh line so that our first
        # record is not glued to the broken one (the reader reports the broken line and goes on).
        size = os.fstat(fd).st_size
        if size > 0:
            with open(self.path, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    os.write(fd, b"\n")
        return fd

    def write(self, record):
        """Writes one event as one line with one write call; never raises into the training code."""
        if self.broken:
            return
        with self.lock:
            try:
                if self.fd is None:
                    self.fd = self._open()
                data = (json.dumps(record, separators=(",", ":"), allow_nan=False, default=str) + "\n").encode(
                    "utf-8", "replace"
                )
                view = memoryview(data)
                while view:
                    written = os.write(self.fd, view)
                    view = view[written:]
            except Exception as error:  # disk full, permissions, a value json cannot encode...
                self.broken = True
                try:
                    sys.stderr.write("headroom_probe: cannot write %s (%s); recording stopped\n" % (self.path, error))
                except Exception:
                    pass

    def base(self, event):
        return {
            "v": SCHEMA_VERSION,
            "event": event,
            "t": round(time.time(), 6),
            "pid": os.getpid(),
            "rank": self.rank,
            "localRank": self.local_rank,
            "worldSize": self.world_size,
        }

    def ensure_started(self):
        if os.getpid() != self.pid:  # a forked child: it gets its own start record
            self._reset_process_state()
        self.start_recording()
        if self.started:
            return
        self.started = True
        torch = sys.modules.get("torch")
        record = self.base("start")
        record.update(
            {
                "probeVersion": PROBE_VERSION,
                "host": socket.gethostname(),
                "argv": list(sys.argv),
                "python": sys.version.split()[0],
                "torch": getattr(torch, "__version__", None) if torch is not None else None,
                "cuda": getattr(getattr(torch, "version", None), "cuda", None) if torch is not None else None,
                # Before 0.43.2 every 4-bit layer keeps its input: the diagnosis counts it.
                "bitsandbytes": _installed_version("bitsandbytes"),
                # Every installed package of a framework profile (headroom run records them with the run).
                "packages": _installed_packages(),
                "cudaVisibleDevices": self.cuda_visible_devices,
            }
        )
        self.write(record)

    # -- reading the allocator ----------------------------------------------------------------------

    def devices(self, reset):
        """Allocator figures of each device this process uses; resets the peaks after reading them."""
        torch = sys.modules.get("torch")
        cuda = getattr(torch, "cuda", None) if torch is not None else None
        if cuda is None:
            return []
        try:
            if not cuda.is_initialized():
                return []
            count = cuda.device_count()
            current = cuda.current_device()
        except Exception:
            return []
        out = []
        for index in range(count):
            try:
                stats = cuda.memory_stats(index)
            except Exception:
                continue
            if index != current and not stats.get("reserved_bytes.all.peak", 0):
                continue  # a device this process never allocated on
            entry = {"index": index}
            for key, stat in _STAT_KEYS:
                entry[key] = int(stats.get(stat, 0))
            out.append(entry)
            if index not in self.devices_seen:
                self.devices_seen.add(index)
                self.describe_device(cuda, index)
            if reset:
                try:
                    cuda.reset_peak_memory_stats(index)
                except Exception:
                    pass
        return out

    def describe_device(self, cuda, index):
        record = self.base("device")
        record.update({"index": index, "name": None, "totalBytes": None, "uuid": None})
        try:
            props = cuda.get_device_properties(index)
            record["name"] = getattr(props, "name", None)
            record["totalBytes"] = _int_or_none(getattr(props, "total_memory", None))
            uuid = getattr(props, "uuid", None)
            record["uuid"] = None if uuid is None else str(uuid)
        except Exception:
            pass
        self.write(record)

    # -- events ------------------------------------------------------------------------------------

    def step(self, step, loss, lr, batch_size, seq_len):
        with self.lock:
            self.ensure_started()
            now = time.time()
            loss_value, loss_text = _finite_or_none(loss)
            lr_value, _ = _finite_or_none(lr)
            record = self.base("step")
            record.update(
                {
                    "step": _int_or_none(step),
                    "phase": self.phase,
                    "loss": loss_value,
                    "lr": lr_value,
                    "batchSize": _int_or_none(batch_size),
                    "seqLen": _int_or_none(seq_len),
                    "durationS": None if self.last_step_t is None else round(now - self.last_step_t, 6),
                }
            )
            if loss_text is not None:
                record["lossText"] = loss_text
            devices = self.devices(reset=True)
            record["devices"] = devices
            self.write(record)
            self.last_step = record["step"]
            self.last_step_t = now
            self.steps += 1

    def set_phase(self, name):
        with self.lock:
            self.ensure_started()
            previous = self.phase
            record = self.base("phase")
            record.update({"phase": str(name), "previous": previous, "step": self.last_step})
            record["devices"] = self.devices(reset=True)
            self.write(record)
            self.phase = str(name)

    def exception(self, exc, tb=None, thread=None, phase=None):
        with self.lock:
            self.ensure_started()
            oom = _is_oom(exc)
            record = self.base("oom" if oom else "exception")
            text = "".join(traceback.format_exception(type(exc), exc, tb if tb is not None else exc.__traceback__))
            cls = type(exc)
            record.update(
                {
                    "type": "%s.%s" % (cls.__module__, cls.__qualname__) if cls.__module__ != "builtins" else cls.__qualname__,
                    "message": _cut(str(exc)),
                    "traceback": _cut(text),
                    "phase": phase or getattr(exc, "_headroom_phase", None) or self.phase,
                    "step": self.last_step,
                    "thread": thread,
                }
            )
            # Peaks since the last step are where an out-of-memory happens; no reset, nothing follows.
            record["devices"] = self.devices(reset=False)
            self.write(record)
            if thread is None:
                self.uncaught = "oom" if oom else "exception"
            # Without PyTorch's out-of-memory observer (older torch), the hook is the last moment.
            if oom and self.recording and not self.oom_dumped:
                self.dump_snapshot("oom")

    # -- allocator snapshots --------------------------------------------------------------------------

    def start_recording(self):
        """Turns on PyTorch's memory history once torch is imported; never raises into training."""
        if self.snapshot_entries is None or self.recording:
            return
        torch = sys.modules.get("torch")
        memory = getattr(getattr(torch, "cuda", None), "memory", None) if torch is not None else None
        record = getattr(memory, "_record_memory_history", None)
        if record is None:
            return
        self.recording = True
        try:
            try:
                # torch >= 2.1 (torch/cuda/memory.py): enabled="all" keeps alloc/free events with stacks.
                record(enabled="all", max_entries=self.snapshot_entries)
            except TypeError:
                # torch 2.0: the legacy signature (enabled: bool, trace_alloc_max_entries, ...).
                record(True, trace_alloc_max_entries=self.snapshot_entries, trace_alloc_record_context=True)
            attach = getattr(getattr(torch, "_C", None), "_cuda_attach_out_of_memory_observer", None)
            if attach is not None:
                # Called by the allocator when an allocation fails, before the exception unwinds.
                attach(lambda *args: self.dump_snapshot("oom"))
        except Exception as error:
            self.recording = False
            try:
                sys.stderr.write("headroom_probe: cannot record memory history (%s)\n" % error)
            except Exception:
                pass

    def dump_snapshot(self, reason):
        """Writes the allocator snapshot beside the log and records a `snapshot` event; returns the path."""
        torch = sys.modules.get("torch")
        memory = getattr(getattr(torch, "cuda", None), "memory", None) if torch is not None else None
        snapshot = getattr(memory, "_snapshot", None)
        if snapshot is None:
            return None
        with self.lock:
            try:
                import pickle

                data = snapshot()
                tmp = "%s.%d.tmp" % (self.snapshot_file, os.getpid())
                with open(tmp, "wb") as f:
                    pickle.dump(data, f)
                os.replace(tmp, self.snapshot_file)
                size = os.path.getsize(self.snapshot_file)
            except Exception as error:
                try:
                    sys.stderr.write("headroom_probe: cannot write the memory snapshot (%s)\n" % error)
                except Exception:
                    pass
                return None
            self.dumped = True
            if reason == "oom":
                self.oom_dumped = True
            self.ensure_started()
            record = self.base("snapshot")
            record.update(
                {
                    "path": self.snapshot_file,
                    "bytes": size,
                    "reason": reason,
                    "entries": self.snapshot_entries,
                    "step": self.last_step,
                }
            )
            self.write(record)
            return self.snapshot_file

    def end(self):
        if not self.started or os.getpid() != self.pid:
            return
        # Recording and nothing written yet: the trace's ring still holds the run's last peak.
        if self.recording and not self.dumped:
            self.dump_snapshot("exit")
        record = self.base("end")
        record.update({"reason": self.uncaught or "exit", "steps": self.steps})
        self.write(record)


_probe = None
_previous_excepthook = None
_previous_threading_excepthook = None


def _excepthook(exc_type, exc, tb):
    try:
        if _probe is not None and exc is not None:
            _probe.exception(exc, tb)
    except Exception:
        pass
    (_previous_excepthook or sys.__excepthook__)(exc_type, exc, tb)


def _threading_excepthook(args):
    try:
        if _probe is not None and args.exc_value is not None and not isinstance(args.exc_value, SystemExit):
            name = args.thread.name if args.thread is not None else None
            _probe.exception(args.exc_value, args.exc_traceback, thread=name)
    except Exception:
        pass
    if _previous_threading_excepthook is not None:
        _previous_threading_excepthook(args)


def _install(env=None):
    """Sets up the writer and the hooks when HEADROOM_LOG is set; called once on import."""
    global _probe, _previous_excepthook, _previous_threading_excepthook
    env = os.environ if env is None else env
    path = log_path(env=env)
    if path is None:
        return None
    _probe = _Probe(path, env)
    _previous_excepthook = sys.excepthook
    sys.excepthook = _excepthook
    if hasattr(threading, "excepthook"):
        _previous_threading_excepthook = threading.excepthook
        threading.excepthook = _threading_excepthook
    atexit.register(_probe.end)
    # Recording asked for and the probe imported before torch: import it now, so the history starts
    # before the script loads its weights (otherwise the first probe call would start it, and
    # everything allocated before would have no stack). Importing torch initialises no device.
    if _probe.snapshot_entries is not None and "torch" not in sys.modules:
        try:
            import torch  # noqa: F401
        except Exception:
            pass
    # torch imported before the probe (the usual order): record from now on, weights included.
    _probe.start_recording()
    return _probe


def dump_snapshot():
    """Writes the allocator snapshot now (HEADROOM_SNAPSHOT must be set); returns its path or None."""
    if _probe is None or not _probe.recording:
        return None
    return _probe.dump_snapshot("manual")


def enabled():
    """True when events are being recorded (HEADROOM_LOG was set when the probe was imported)."""
    return _probe is not None and not _probe.broken


def step(step, loss=None, lr=None, batch_size=None, seq_len=None):
    """Records one finished training step: loss, learning rate, batch shape and the step's memory."""
    if _probe is None:
        return
    _probe.step(step, loss, lr, batch_size, seq_len)


def set_phase(name):
    """Marks the start of a phase ("train", "eval", "save", or any name) from here on."""
    if _probe is None:
        return
    _probe.set_phase(name)


@contextlib.contextmanager
def phase(name):
    """`with phase("eval"):` records the phase for the block, then returns to the previous one."""
    if _probe is None:
        yield
        return
    previous = _probe.phase
    _probe.set_phase(name)
    try:
        yield
    except BaseException as exc:
        # Leave the peaks for the exception record, and remember where it happened.
        try:
            if getattr(exc, "_headroom_phase", None) is None:
                exc._headroom_phase = str(name)
        except Exception:
            pass
        _probe.phase = previous
        raise
    _probe.set_phase(previous)


def record_exception(exc, phase=None):
    """Records an exception you caught (e.g. an OOM you recover from) with the memory at that moment."""
    if _probe is None:
        return
    _probe.exception(exc, exc.__traceback__, thread=threading.current_thread().name, phase=phase)


def _callback_class():
    try:
        from transformers import TrainerCallback as base  # noqa: PLC0415 - only when asked for
    except Exception:  # transformers missing or broken: a plain class that ignores other events
        base = object

    class HeadroomCallback(base):
        """Hugging Face Trainer callback (TRL's trainers too): a step event per optimizer step, with the
        latest logged loss and learning rate; eval and save phases."""

        def __init__(self):
            self._loss = None
            self._lr = None
            self._in_eval = False

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs:
                self._loss = logs.get("loss", self._loss)
                self._lr = logs.get("learning_rate", self._lr)

        def on_step_end(self, args, state, control, **kwargs):
            step(
                state.global_step,
                loss=self._loss,
                lr=self._lr,
                batch_size=getattr(args, "per_device_train_batch_size", None),
            )

        def on_prediction_step(self, args, state, control, **kwargs):
            if not self._in_eval:
                self._in_eval = True
                set_phase("eval")

        def on_evaluate(self, args, state, control, **kwargs):
            if self._in_eval:
                self._in_eval = False
                set_phase("train")

        def on_save(self, args, state, control, **kwargs):
            # The Trainer calls this after saving: the "save" event carries the peak since the last step,
            # which includes the save.
            set_phase("save")
            set_phase("train")

        if base is object:

            def __getattr__(self, name):
                if name.startswith("on_"):
                    return lambda *args, **kwargs: None
                raise AttributeError(name)

    return HeadroomCallback


_callback_cls = None


def __getattr__(name):
    # HeadroomCallback subclasses transformers.TrainerCallback, imported only when first asked for.
    global _callback_cls
    if name == "HeadroomCallback":
        if _callback_cls is None:
            _callback_cls = _callback_class()
        return _callback_cls
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


_install()
