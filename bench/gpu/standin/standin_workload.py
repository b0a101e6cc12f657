"""Stand-in for workload.py in the tests: the allocations of a training run, simulated through the
stand-in torch.cuda, and the faults a real child can meet.

The byte counts are a simple plan (not a memory model): weights W, activations A, gradients G and
optimizer states S. Each step allocates A (forward), then G and frees A (backward), then creates S
on the first step and frees G (optimizer step), so the peaks are W + A + G + S from the second step
on; `expected_peaks` gives the exact bytes the harness must report.

Faults come from the environment: STANDIN_FAULTS is a JSON object from a fault key
("<model>:<seqLen>") to "crash" (the process dies without a result), "raise" (an ordinary
exception) or "hang" (never finishes).
"""

import json
import os
import time

import grid
import torch
from pynvml import CONTEXT_BYTES

FAULTS_ENV = "STANDIN_FAULTS"
CRASH_EXIT_CODE = 3
HANG_S = 3600
# Simulated bytes: 2 per parameter for 16-bit weights, 4 otherwise; states twice the gradients;
# activations per token per layer per hidden unit; a LoRA trains this fraction of the parameters.
ACTIVATION_BYTES_PER_TOKEN_HIDDEN = 16
LORA_TRAINABLE_FRACTION = 0.01
SIMULATED_STEP_S = 0.01


def fault_key(scenario: dict) -> str:
    return f"{scenario['model']}:{scenario['seqLen']}"


def plan(scenario: dict, model_config: dict) -> dict:
    """The simulated bytes of weights, activations, gradients and optimizer states."""
    params = grid.approximate_params(model_config)
    weight_bytes = 2 if scenario["precision"].endswith("-true") else 4
    trainable = params if scenario["method"] == "full" else int(params * LORA_TRAINABLE_FRACTION)
    tokens = scenario["microBatchSize"] * scenario["seqLen"]
    per_token = model_config["hidden_size"] * model_config["num_hidden_layers"] * ACTIVATION_BYTES_PER_TOKEN_HIDDEN
    activations = tokens * per_token
    return {
        "weights": params * weight_bytes,
        "activations": activations,
        "grads": trainable * weight_bytes,
        "states": 2 * trainable * weight_bytes,
    }


def expected_peaks(scenario: dict, model_config: dict) -> dict:
    """The allocated, reserved and device peaks the stand-in run produces."""
    allocated = sum(plan(scenario, model_config).values())
    reserved = -(-allocated // torch.cuda.SEGMENT_BYTES) * torch.cuda.SEGMENT_BYTES
    return {"allocated": allocated, "reserved": reserved, "device": reserved + CONTEXT_BYTES}


def run(scenario: dict, model_config: dict, recorder) -> None:
    """Same interface as workload.run."""
    fault = json.loads(os.environ.get(FAULTS_ENV, "{}")).get(fault_key(scenario))
    sizes = plan(scenario, model_config)
    recorder.phase("load")
    torch.cuda.standin_allocate(sizes["weights"])
    if fault == "crash":
        os._exit(CRASH_EXIT_CODE)
    if fault == "raise":
        raise ValueError("stand-in failure while building the model")
    if fault == "hang":
        time.sleep(HANG_S)
    recorder.info.update(initS=0.0, trainableParams=sizes["grads"], totalParams=sizes["weights"])
    step_times = []
    for step in range(grid.STEPS):
        recorder.phase("forward")
        torch.cuda.standin_allocate(sizes["activations"])
        recorder.phase("backward")
        torch.cuda.standin_allocate(sizes["grads"])
        torch.cuda.standin_free(sizes["activations"])
        recorder.phase("optimizer-step")
        if step == 0:
            torch.cuda.standin_allocate(sizes["states"])
        torch.cuda.standin_free(sizes["grads"])
        time.sleep(SIMULATED_STEP_S)
        step_times.append(SIMULATED_STEP_S)
    recorder.info.update(stepTimesS=step_times, medianStepS=SIMULATED_STEP_S)
