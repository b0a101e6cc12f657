"""Measures the peak GPU memory of fine-tuning scenarios on a real GPU, one fresh process each.

Runs where PyTorch and a CUDA GPU exist (the H200 device machine). For every scenario of a grid
(grid.py) or of a JSON Lines file in the docs/scenario.md format, a child process
builds the model from its catalog config with random weights on the GPU, trains it for three steps
(workload.py) and reports three peaks:

  allocated  torch.cuda.max_memory_allocated  (live tensors)
  reserved   torch.cuda.max_memory_reserved   (the caching allocator's segments)
  device     this process's GPU memory as NVML reports it (what nvidia-smi shows), sampled every
             10 ms on a background thread and once more at the end

They are written as measurements.jsonl rows (data/validation/README.md), one per metric, with ids
<prefix>-NNN{a,r,d} where NNN is the scenario's 1-based position in the grid. A scenario that runs
out of memory gives ONE row, metric "device", outcome "oom", peakBytes null: running out is a fact
about the device's capacity, and one row keeps an OOM from counting three times. Scenarios that are
skipped (a feature the harness does not build, a package that does not import), crash, time out or
are not started because of the time budget go to a separate errors file, never into the rows.

Rows are appended and flushed one by one, so a run that is killed keeps what it measured. Progress
goes to stderr. Example (device machine):

    PYTHONUNBUFFERED=1 python3 bench/gpu/measure.py --grid default \\
        --out $OUT/h200-measurements.jsonl --budget-seconds 420
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import grid

HARNESS_REF = "headroom bench/gpu/measure.py"
DATASET = "headroom H200 harness"
FRAMEWORK = "PyTorch + Hugging Face transformers + peft (random weights)"
METRIC_SUFFIX = {"allocated": "a", "reserved": "r", "device": "d"}
ORIGINAL_METRIC = {
    "allocated": "torch.cuda.max_memory_allocated (bytes)",
    "reserved": "torch.cuda.max_memory_reserved (bytes)",
    "device": "NVML per-process usedGpuMemory, max of 10 ms samples (bytes)",
}
# Packages reported in each row's notes (versions read from the installed distributions).
REPORTED_PACKAGES = ("torch", "transformers", "peft", "accelerate", "bitsandbytes", "nvidia-ml-py")

NVML_INTERVAL_S = 0.010
# Per-scenario timeout when none is given: a multiple of the estimate, never under the floor.
TIMEOUT_FACTOR = 4.0
TIMEOUT_FLOOR_S = 60.0
# Actual/estimated wall time over the finished scenarios rescales the remaining estimates, kept
# within this range so that one odd scenario cannot stop or flood the run.
CALIBRATION_RANGE = (0.5, 2.0)
# Besides torch.cuda.OutOfMemoryError, errors whose text says the device ran out (cuBLAS handle
# or workspace allocation, bitsandbytes' paged memory).
OOM_MARKERS = ("out of memory", "CUBLAS_STATUS_ALLOC_FAILED")
STDERR_TAIL_CHARS = 4000
# A run whose first this-many started scenarios all fail (error or timeout, no row) stops: the
# workload itself is broken there, and the device time is better spent on fixing it.
GIVE_UP_AFTER_FAILURES = 3
# The fork probe only creates a CUDA context (about a second).
PROBE_TIMEOUT_S = 60


# --- The child: one scenario, one process ------------------------------------------------------


class NvmlSampler:
    """Samples this process's GPU memory as NVML reports it, on a background thread.

    Uses the process's own entry of nvmlDeviceGetComputeRunningProcesses; where NVML does not list
    it (or gives no figure), falls back to the device's used memory minus what was used before this
    process touched the GPU. The method used is reported with the peak.
    """

    def __init__(self, device_index: int, interval_s: float = NVML_INTERVAL_S) -> None:
        self.pid = os.getpid()
        self.interval_s = interval_s
        self.peak = {"process": None, "device-delta": None}
        self.samples = 0
        self.unavailable = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="nvml-sampler", daemon=True)
        try:
            import pynvml

            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
            self._baseline = pynvml.nvmlDeviceGetMemoryInfo(self._handle).used
        except Exception as exc:  # no pynvml, no driver: the device metric is then not measured
            self.unavailable = f"NVML unavailable: {exc!r}"

    def start(self) -> None:
        if self.unavailable is None:
            self._thread.start()

    def sample(self) -> None:
        """Takes one reading and keeps the maximum per method."""
        processes = self._nvml.nvmlDeviceGetComputeRunningProcesses(self._handle)
        own = [p.usedGpuMemory for p in processes if p.pid == self.pid and p.usedGpuMemory is not None]
        if own:
            method, value = "process", max(own)
        else:
            method, value = "device-delta", self._nvml.nvmlDeviceGetMemoryInfo(self._handle).used - self._baseline
        self.peak[method] = max(self.peak[method] or 0, value)
        self.samples += 1

    def reset(self) -> None:
        """Forgets the peaks so far (see Recorder.restart_peaks)."""
        self.peak = {"process": None, "device-delta": None}

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()

    def stop(self) -> dict:
        """Stops sampling, takes a last reading, and returns the peak and how it was read."""
        if self.unavailable is not None:
            return {"deviceBytes": None, "deviceMethod": self.unavailable, "nvmlSamples": 0}
        self._stop.set()
        self._thread.join()
        self.sample()
        self._nvml.nvmlShutdown()
        method = "process" if self.peak["process"] is not None else "device-delta"
        return {"deviceBytes": self.peak[method], "deviceMethod": f"nvml-{method}", "nvmlSamples": self.samples}


class Recorder:
    """What a workload reports while it runs: its phase, facts (`info`) and notes.

    Each phase change closes a segment: the allocator's peaks since the previous change are kept
    for the phase being left, then reset. The overall peak, the maximum over segments, equals what
    torch.cuda.max_memory_allocated / max_memory_reserved would show for the whole process.
    Phase names follow SCENARIO.md's peakPhase: load, forward, backward, optimizer-step.
    """

    def __init__(self, cuda, sampler: NvmlSampler) -> None:
        self._cuda = cuda
        self._sampler = sampler
        self.current = "load"
        self.phase_peaks: dict[str, dict[str, int]] = {}
        self.info: dict = {}
        self.notes: list[str] = []

    def phase(self, name: str) -> None:
        self._close_segment()
        self.current = name

    def restart_peaks(self, reason: str) -> None:
        """Drops every peak so far (allocator and NVML), for setups whose load differs from what
        the real tool would do; the reason goes into the notes."""
        self._cuda.empty_cache()
        self._cuda.reset_peak_memory_stats()
        self._sampler.reset()
        self.phase_peaks.clear()
        self.notes.append(reason)

    def _close_segment(self) -> None:
        peaks = self.phase_peaks.setdefault(self.current, {"allocated": 0, "reserved": 0})
        peaks["allocated"] = max(peaks["allocated"], self._cuda.max_memory_allocated())
        peaks["reserved"] = max(peaks["reserved"], self._cuda.max_memory_reserved())
        self._cuda.reset_peak_memory_stats()

    def finish(self) -> dict:
        """Closes the last segment; returns the overall peaks and the phase that reached each."""
        self._close_segment()
        result = {}
        for metric in ("allocated", "reserved"):
            phase = max(self.phase_peaks, key=lambda name: self.phase_peaks[name][metric])
            result[f"{metric}Bytes"] = self.phase_peaks[phase][metric]
            result[f"{metric}PeakPhase"] = phase
        return result


def _is_oom(exc: BaseException, torch) -> bool:
    return isinstance(exc, torch.cuda.OutOfMemoryError) or (
        isinstance(exc, RuntimeError) and any(marker in str(exc) for marker in OOM_MARKERS)
    )


def _package_versions() -> dict:
    versions = {}
    for package in REPORTED_PACKAGES:
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    return versions


def measure_in_child(job: dict) -> dict:
    """Runs one scenario in this process and returns what was measured (never raises)."""
    import torch

    workload = importlib.import_module(job["workload"])
    sampler = NvmlSampler(job["nvmlIndex"])
    recorder = Recorder(torch.cuda, sampler)
    result = {"outcome": "ok", "error": None}
    sampler.start()
    try:
        workload.run(job["scenario"], job["modelConfig"], recorder)
        torch.cuda.synchronize()
    except Exception as exc:
        if _is_oom(exc, torch):
            result.update(outcome="oom", error=str(exc).splitlines()[0][:500], oomPhase=recorder.current)
        else:
            result.update(outcome="error", error=traceback.format_exc())
    result.update(recorder.finish())
    result.update(sampler.stop())
    result.update(
        phasePeaks=recorder.phase_peaks,
        info=recorder.info,
        notes=recorder.notes,
        gpu=torch.cuda.get_device_name(),
        cuda=torch.version.cuda,
        allocConf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "default"),
        packages=_package_versions(),
    )
    return result


def child_main(job: dict, result_path: str, log_path: str) -> None:
    """Entry point of the child process: output to `log_path`, the result as JSON to `result_path`."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    result = measure_in_child(job)
    partial = result_path + ".partial"
    with open(partial, "w") as handle:
        json.dump(result, handle)
    os.replace(partial, result_path)


# --- The parent: scheduling, rows, progress ----------------------------------------------------


@dataclass
class Case:
    """One scenario to run: its id, the scenario, what builds it, and its time estimate."""

    case_id: str
    scenario: dict
    model: dict | None
    estimate_s: float


@dataclass
class Summary:
    """Counts of a run, printed at the end."""

    counts: dict = field(default_factory=dict)
    rows: int = 0

    def add(self, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1


def blocker(scenario: dict, model: dict | None) -> str | None:
    """Why the harness cannot measure a scenario on one GPU here, or None when it can."""
    if model is None:
        return f"model {scenario['model']!r} is neither in catalog-models.json nor an inline config"
    if scenario["parallelism"] != {"strategy": "single", "gpus": 1}:
        return "multi-GPU strategies need several GPUs; the harness runs one"
    offload = scenario["offload"]
    if offload.get("optimizer") != "none" or offload.get("params") != "none":
        return "optimizer and parameter offload are not implemented in the harness"
    if offload.get("activations", "none") != "none" and scenario["gradientCheckpointing"] != "full":
        return "activations are offloaded around checkpointed layers only (save_on_cpu, as Hugging Face does)"
    if scenario["gradientCheckpointing"] == "selective":
        return "selective checkpointing has no Hugging Face switch"
    if scenario["loss"] == "fused":
        return "fused loss (a fused linear cross-entropy kernel) is not implemented in the harness"
    if scenario["optimizer"] == "lion":
        return "torch.optim has no Lion"
    if scenario["quantization"] != "none" and scenario["method"] != "qlora":
        return "a quantized base is measured only with method qlora"
    if scenario["quantization"] in ("int8", "int4-gptq"):
        return f"quantization {scenario['quantization']} is not implemented in the harness"
    needed = []
    if scenario["method"] == "qlora" or scenario["optimizer"] in ("adamw-8bit", "paged-adamw", "paged-adamw-8bit"):
        needed.append("bitsandbytes")
    if scenario["attention"] == "flash":
        needed.append("flash_attn")
    missing = [package for package in needed if importlib.util.find_spec(package) is None]
    if missing:
        return f"needs {', '.join(missing)}, which is not installed"
    return None


def make_row(case: Case, metric: str, peak: int | None, outcome: str, result: dict, wall_s: float) -> dict:
    """One measurements.jsonl row (data/validation/README.md) for one metric of one case."""
    info = result.get("info", {})
    packages = result.get("packages", {})
    versions = ", ".join(f"{name} {version}" for name, version in packages.items() if version)
    step = info.get("medianStepS")
    notes = [
        f"Random-init {case.scenario['model']} trained {grid.STEPS} steps on one {result.get('gpu')} "
        f"(CUDA {result.get('cuda')}); {versions or 'package versions unknown'}",
        f"median step {step:.3f} s" if step is not None else "no step completed",
        f"allocated peak in phase {result.get('allocatedPeakPhase')}, "
        f"reserved peak in {result.get('reservedPeakPhase')}",
        f"device metric: {result.get('deviceMethod')} over {result.get('nvmlSamples')} samples",
        f"PYTORCH_CUDA_ALLOC_CONF={result.get('allocConf')}",
        *result.get("notes", []),
    ]
    if outcome == "oom":
        notes.append(f"OOM in phase {result.get('oomPhase')}: {result.get('error')}")
    harness = {
        "gpu": result.get("gpu"),
        "cuda": result.get("cuda"),
        "packages": packages,
        "wallS": round(wall_s, 3),
        "estimateS": round(case.estimate_s, 3),
        "phasePeaks": result.get("phasePeaks"),
        "deviceMethod": result.get("deviceMethod"),
        "nvmlSamples": result.get("nvmlSamples"),
        **info,
    }
    if outcome == "oom":
        harness.update(oomPhase=result.get("oomPhase"), oomMessage=result.get("error"))
    return {
        "id": case.case_id + METRIC_SUFFIX[metric],
        "scenario": case.scenario,
        "measured": {"metric": metric, "peakBytes": peak, "outcome": outcome, "unitAmbiguous": False},
        "source": {
            "ref": HARNESS_REF,
            "quality": "high",
            "dataset": DATASET,
            "notes": "; ".join(notes),
            "originalValue": peak,
            "originalUnit": "bytes",
            "originalMetric": ORIGINAL_METRIC[metric],
            "framework": FRAMEWORK,
            "harness": harness,
        },
    }


def rows_for(case: Case, result: dict, wall_s: float) -> list[dict]:
    """Three rows for a scenario that ran (fewer where a metric was not measured), one for an OOM."""
    if result["outcome"] == "oom":
        return [make_row(case, "device", None, "oom", result, wall_s)]
    peaks = {
        "allocated": result["allocatedBytes"],
        "reserved": result["reservedBytes"],
        "device": result["deviceBytes"],
    }
    return [make_row(case, metric, peak, "ok", result, wall_s) for metric, peak in peaks.items() if peak is not None]


def run_child(case: Case, context, options: argparse.Namespace, workdir: Path, timeout_s: float) -> tuple[str, dict]:
    """Runs one case in a fresh process. Returns (status, result) with status ok, oom, error or
    timeout; for error and timeout the result holds the reason and the tail of the child's output."""
    result_path = workdir / f"{case.case_id}.json"
    log_path = workdir / f"{case.case_id}.log"
    job = {
        "scenario": case.scenario,
        "modelConfig": case.model["config"],
        "workload": options.workload,
        "nvmlIndex": options.nvml_index,
    }
    sys.stdout.flush()
    sys.stderr.flush()
    process = context.Process(target=child_main, args=(job, str(result_path), str(log_path)), name=case.case_id)
    process.start()
    process.join(timeout_s)
    timed_out = process.is_alive()
    if timed_out:
        process.kill()
        process.join()
    tail = log_path.read_text(errors="replace")[-STDERR_TAIL_CHARS:] if log_path.exists() else ""
    if timed_out:
        return "timeout", {"reason": f"no result within {timeout_s:.0f} s; killed", "outputTail": tail}
    if not result_path.exists():
        return "error", {"reason": f"child exited with code {process.exitcode} and no result", "outputTail": tail}
    result = json.loads(result_path.read_text())
    if result["outcome"] == "error":
        return "error", {"reason": result["error"], "outputTail": tail}
    return result["outcome"], result


def load_cases(options: argparse.Namespace, start_method: str) -> list[Case]:
    """The scenarios to run, completed with defaults, with ids and estimates."""
    catalog = grid.load_catalog(options.catalog)
    if options.scenarios:
        text = Path(options.scenarios).read_text()
        if text.lstrip().startswith("["):
            partials = json.loads(text)
        else:
            partials = [json.loads(line) for line in text.splitlines() if line.strip()]
        scenarios = [grid.with_defaults(partial) for partial in partials]
    else:
        scenarios = [entry.scenario for entry in grid.default_grid()]
    # The rows describe the GPU the run measured, whatever a scenario file named.
    scenarios = [{**scenario, "gpu": options.gpu_id} for scenario in scenarios]
    if options.first:
        scenarios = scenarios[: options.first]
    cases = []
    for number, scenario in enumerate(scenarios, start=1):
        problems = grid.validate(scenario)
        if problems:
            raise SystemExit(f"scenario {number} is not valid: {'; '.join(problems)}")
        model = grid.resolve_model(scenario["model"], catalog)
        estimate = grid.estimate_seconds(scenario, model, start_method) if model else 0.0
        cases.append(Case(f"{options.id_prefix}-{number:03d}", scenario, model, estimate))
    return cases


def _clock(seconds: float) -> str:
    return f"{int(seconds) // 60}:{int(seconds) % 60:02d}"


def _gib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**30:.2f} GiB"


def _probe_cuda() -> None:
    """The fork probe's child: exits non-zero where CUDA cannot start in a forked process."""
    import torch

    torch.cuda.init()
    torch.cuda.synchronize()


def _prepare_parent(options: argparse.Namespace) -> str:
    """The start method to use. For 'fork', imports the workload (torch, transformers, peft) once
    here, so that each child starts without the imports, then checks with one forked probe that a
    child can still start CUDA (it cannot if an import initialised CUDA here); if not, 'spawn'."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if options.start_method != "fork":
        return options.start_method
    # torch.cuda.is_available() through NVML, so an import that asks does not initialise CUDA.
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    importlib.import_module(options.workload)
    sys.stderr.flush()
    probe = multiprocessing.get_context("fork").Process(target=_probe_cuda, name="cuda-probe")
    probe.start()
    probe.join(PROBE_TIMEOUT_S)
    if probe.is_alive():
        probe.kill()
        probe.join()
    if probe.exitcode == 0:
        return "fork"
    print(f"measure: a forked child could not start CUDA (exit code {probe.exitcode}); using spawn",
          file=sys.stderr, flush=True)
    return "spawn"


def run(options: argparse.Namespace) -> Summary:
    """Runs the cases, writing rows and error records as they come; returns the counts.

    The budget counts from here, so the parent's imports and the fork probe are inside it."""
    started = time.monotonic()
    start_method = _prepare_parent(options)
    context = multiprocessing.get_context(start_method)
    cases = load_cases(options, start_method)
    out_path = Path(options.out)
    errors_path = Path(options.errors) if options.errors else out_path.with_suffix(".errors.jsonl")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="headroom-measure-"))
    summary = Summary()
    total_estimate = sum(case.estimate_s for case in cases)
    budget = f"{options.budget_seconds:.0f} s" if options.budget_seconds else "none"
    log = sys.stderr
    print(
        f"measure: {len(cases)} scenarios, estimated {total_estimate:.0f} s, budget {budget}, "
        f"start method {start_method}, rows -> {out_path}, errors -> {errors_path}",
        file=log,
        flush=True,
    )
    measured_actual = measured_estimate = 0.0
    succeeded = failed = 0

    def calibration() -> float:
        """Actual/estimated wall time of the scenarios measured so far, within CALIBRATION_RANGE."""
        ratio = measured_actual / measured_estimate if measured_estimate else 1.0
        return min(max(ratio, CALIBRATION_RANGE[0]), CALIBRATION_RANGE[1])

    with out_path.open("w") as rows_file, errors_path.open("w") as errors_file:

        def record_error(case: Case, status: str, reason: str, tail: str = "") -> None:
            summary.add(status)
            record = {"id": case.case_id, "status": status, "reason": reason, "scenario": case.scenario}
            if tail:
                record["outputTail"] = tail
            errors_file.write(json.dumps(record) + "\n")
            errors_file.flush()

        for index, case in enumerate(cases):
            label = f"[{index + 1}/{len(cases)}] {case.case_id} {grid.describe(case.scenario)}"
            reason = blocker(case.scenario, case.model)
            if reason:
                record_error(case, "skipped", reason)
                print(f"{label} -> skipped: {reason}", file=log, flush=True)
                continue
            elapsed = time.monotonic() - started
            if options.budget_seconds and elapsed + case.estimate_s * calibration() > options.budget_seconds:
                reason = f"not started: {elapsed:.0f} s elapsed of a {options.budget_seconds:.0f} s budget"
                for rest in cases[index:]:
                    record_error(rest, "budget", reason)
                print(f"{label} -> budget reached; {len(cases) - index} scenarios not started", file=log, flush=True)
                break
            timeout_s = options.timeout_seconds or max(TIMEOUT_FLOOR_S, TIMEOUT_FACTOR * case.estimate_s)
            case_started = time.monotonic()
            status, result = run_child(case, context, options, workdir, timeout_s)
            wall_s = time.monotonic() - case_started
            if status in ("ok", "oom"):
                succeeded += 1
                rows = rows_for(case, result, wall_s)
                for row in rows:
                    rows_file.write(json.dumps(row) + "\n")
                    rows_file.flush()
                summary.add(status)
                summary.rows += len(rows)
                step = result.get("info", {}).get("medianStepS")
                outcome = (
                    f"ok alloc {_gib(result['allocatedBytes'])} res {_gib(result['reservedBytes'])} "
                    f"dev {_gib(result['deviceBytes'])} step {'n/a' if step is None else f'{step:.3f} s'}"
                    if status == "ok"
                    else f"OOM in {result.get('oomPhase')}"
                )
            else:
                failed += 1
                record_error(case, status, result["reason"], result["outputTail"])
                outcome = f"{status.upper()}: {result['reason'].strip().splitlines()[-1][:200]}"
            if status == "ok":
                measured_actual += wall_s
                measured_estimate += case.estimate_s
            elapsed = time.monotonic() - started
            remaining = sum(later.estimate_s for later in cases[index + 1 :]) * calibration()
            print(
                f"{label} -> {outcome} | {wall_s:.1f} s (est {case.estimate_s:.1f}) | "
                f"elapsed {_clock(elapsed)} ETA {_clock(remaining)}",
                file=log,
                flush=True,
            )
            if options.give_up_after and not succeeded and failed >= options.give_up_after:
                reason = f"not started: the first {failed} scenarios all failed, so the workload is broken here"
                for rest in cases[index + 1 :]:
                    record_error(rest, "given-up", reason)
                print(f"measure: giving up: {reason}; see {errors_path}", file=log, flush=True)
                break
    shutil.rmtree(workdir, ignore_errors=True)
    counts = ", ".join(f"{count} {status}" for status, count in summary.counts.items())
    print(f"measure: done in {_clock(time.monotonic() - started)}: {counts}; {summary.rows} rows", file=log, flush=True)
    return summary


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--grid", choices=["default"], default="default", help="the built-in grid (grid.py)")
    source.add_argument("--scenarios", help="a JSON Lines file (or JSON array) of SCENARIO.md scenarios instead")
    parser.add_argument("--out", required=True, help="measurements.jsonl rows, written as they come")
    parser.add_argument("--errors", help="skipped/failed/not-started records (default: OUT with .errors.jsonl)")
    parser.add_argument("--budget-seconds", type=float, help="start no scenario whose estimate would end past this")
    parser.add_argument("--timeout-seconds", type=float,
                        help=f"per scenario (default: {TIMEOUT_FACTOR:g}x its estimate, "
                        f"at least {TIMEOUT_FLOOR_S:g} s)")
    parser.add_argument("--give-up-after", type=int, default=GIVE_UP_AFTER_FAILURES,
                        help="stop when this many scenarios have failed before any gave a row (0: never)")
    parser.add_argument("--first", type=int, help="run only the first N scenarios")
    parser.add_argument("--start-method", choices=sorted(grid.PROCESS_OVERHEAD_S), default="fork",
                        help="how each fresh child process starts")
    parser.add_argument("--workload", default="workload", help="module that builds and trains (tests use a stand-in)")
    parser.add_argument("--id-prefix", default="h200", help="row ids are PREFIX-NNN{a,r,d}")
    parser.add_argument("--gpu-id", default=grid.GPU_ID, help="catalog GPU id written into each scenario")
    parser.add_argument("--nvml-index", type=int, default=0, help="NVML index of the GPU the children use")
    parser.add_argument("--catalog", type=Path, default=grid.CATALOG_PATH, help="catalog-models.json")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> Summary:
    return run(parse_args(argv))


if __name__ == "__main__":
    main()
