"""The scenario grid for the H200 memory harness, the scenario format's rules, and the time model.

Importable (measure.py and the tests use it) and runnable:

    python3 bench/gpu/grid.py --list      # the grid in run order, each with its reason and time
    python3 bench/gpu/grid.py --markdown  # the same as the table in bench/gpu/README.md

A scenario is a dict in the format of docs/scenario.md. The grid is chosen, not
exhaustive: most scenarios differ from an earlier one in exactly one field, so each pair isolates
one term of the memory model (data/docs/MEMORY-MODEL.md), and the list is ordered so that the
most informative runs come first: a run cut short by its time budget still has the anchors.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATALOG_PATH = HERE / "catalog-models.json"

# --- The scenario format (docs/scenario.md) -------------------------------------

METHODS = ("full", "lora", "qlora", "freeze")
QUANTIZATIONS = ("none", "int8", "nf4", "nf4-dq", "fp4", "int4-gptq")
PRECISIONS = ("fp32", "fp16-mixed", "bf16-mixed", "fp16-true", "bf16-true")
OPTIMIZERS = ("adamw", "adamw-8bit", "paged-adamw", "paged-adamw-8bit", "sgd", "sgd-momentum", "adafactor", "lion")
CHECKPOINTING = ("none", "full", "selective")
ATTENTIONS = ("eager", "sdpa", "flash")
LOSSES = ("standard", "chunked", "fused")
STRATEGIES = ("single", "ddp", "zero1", "zero2", "zero3", "fsdp", "fsdp-grad-op")
OFFLOAD_TARGETS = ("none", "cpu", "nvme")
# Headroom's optional offload.activations (beyond SCENARIO.md): saved activations in pinned CPU memory.
ACTIVATION_OFFLOAD_TARGETS = ("none", "cpu")

# Headroom's optional true-or-absent fields (beyond SCENARIO.md) that the harness can run.
OPTIONAL_FLAGS = ("fusedOptimizer",)

# Every field's default, as SCENARIO.md shows it ("anything omitted takes the default shown").
DEFAULT_LORA = {"rank": 16, "dropout": 0.0, "targets": ["q_proj", "v_proj"]}
DEFAULT_TRAINABLE_LAYERS = 2
DEFAULTS = {
    "method": "full",
    "quantization": "none",
    "precision": "bf16-mixed",
    "optimizer": "adamw",
    "microBatchSize": 1,
    "seqLen": 2048,
    "gradAccumSteps": 1,
    "gradientCheckpointing": "none",
    "attention": "sdpa",
    "loss": "standard",
    "parallelism": {"strategy": "single", "gpus": 1},
    "offload": {"optimizer": "none", "params": "none"},
}

# The catalog id of the GPU the harness runs on (data/catalog/gpus.json: 'NVIDIA H200 SXM 141GB',
# the part nvidia-smi names plainly 'NVIDIA H200').
GPU_ID = "h200-sxm"


def with_defaults(partial: dict) -> dict:
    """A complete scenario: `partial` with every omitted field set to its SCENARIO.md default.

    Fields come in SCENARIO.md's order. `lora` is kept only for lora/qlora and `trainableLayers` only
    for freeze, so two scenarios that mean the same thing compare equal.
    """
    method = partial.get("method", DEFAULTS["method"])
    scenario = {"model": partial["model"], "method": method}
    if method in ("lora", "qlora"):
        scenario["lora"] = {**DEFAULT_LORA, **partial.get("lora", {})}
    if method == "freeze":
        scenario["trainableLayers"] = partial.get("trainableLayers", DEFAULT_TRAINABLE_LAYERS)
    for field, default in DEFAULTS.items():
        value = partial.get(field, default)
        scenario[field] = {**default, **value} if isinstance(default, dict) else value
    for flag in OPTIONAL_FLAGS:
        if partial.get(flag) is True:
            scenario[flag] = True
    if "gpu" in partial:
        scenario["gpu"] = partial["gpu"]
    return scenario


def _is_positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def validate(scenario: dict) -> list[str]:
    """The ways a complete scenario breaks the SCENARIO.md rules (empty when it is valid)."""
    problems = []
    enums = {
        "method": METHODS,
        "quantization": QUANTIZATIONS,
        "precision": PRECISIONS,
        "optimizer": OPTIMIZERS,
        "gradientCheckpointing": CHECKPOINTING,
        "attention": ATTENTIONS,
        "loss": LOSSES,
    }
    for field, allowed in enums.items():
        if scenario.get(field) not in allowed:
            problems.append(f"{field} {scenario.get(field)!r} is not one of {', '.join(allowed)}")
    for field in ("microBatchSize", "seqLen", "gradAccumSteps"):
        if not _is_positive_int(scenario.get(field)):
            problems.append(f"{field} must be a positive integer")
    if not isinstance(scenario.get("model"), (str, dict)):
        problems.append("model must be a catalog id, a Hugging Face repo id or a config object")
    parallelism = scenario.get("parallelism", {})
    if parallelism.get("strategy") not in STRATEGIES or not _is_positive_int(parallelism.get("gpus")):
        problems.append("parallelism needs a known strategy and a positive gpus count")
    offload = scenario.get("offload", {})
    if any(offload.get(part) not in OFFLOAD_TARGETS for part in ("optimizer", "params")):
        problems.append("offload.optimizer and offload.params must each be none, cpu or nvme")
    if offload.get("activations", "none") not in ACTIVATION_OFFLOAD_TARGETS:
        problems.append("offload.activations must be none or cpu")
    method = scenario.get("method")
    if method in ("lora", "qlora"):
        lora = scenario.get("lora", {})
        targets = lora.get("targets")
        if not _is_positive_int(lora.get("rank")):
            problems.append("lora.rank must be a positive integer")
        if targets != "all-linear" and not (isinstance(targets, list) and targets):
            problems.append("lora.targets must be module names or 'all-linear'")
        if not 0 <= lora.get("dropout", 0) < 1:
            problems.append("lora.dropout must be in [0, 1)")
        if lora.get("adapterDtype", "fp32") not in ("fp32", "model"):
            problems.append("lora.adapterDtype must be fp32 or model")
    if method == "qlora" and scenario.get("quantization") == "none":
        problems.append("method qlora needs a quantized base (quantization other than none)")
    if method == "freeze" and not _is_positive_int(scenario.get("trainableLayers")):
        problems.append("method freeze needs trainableLayers, a positive integer")
    return problems


def describe(scenario: dict) -> str:
    """A one-line summary for progress lines and listings."""
    model = scenario["model"] if isinstance(scenario["model"], str) else "inline-config"
    method = scenario["method"]
    if method in ("lora", "qlora"):
        lora = scenario["lora"]
        targets = lora["targets"]
        targets = "all" if targets == "all-linear" else "+".join(t.removesuffix("_proj") for t in targets)
        method += f"(r{lora['rank']},{targets}" + (f",do{lora['dropout']}" if lora.get("dropout") else "") + (
            ",model-dtype" if lora.get("adapterDtype") == "model" else "") + ")"
    if method == "freeze":
        method += f"(top{scenario['trainableLayers']})"
    if scenario["quantization"] != "none":
        method += f"[{scenario['quantization']}]"
    offloaded = " act->cpu" if scenario["offload"].get("activations") == "cpu" else ""
    return (
        f"{model} {method} {scenario['precision']} {'fused-' if scenario.get('fusedOptimizer') else ''}"
        f"{scenario['optimizer']} "
        f"b{scenario['microBatchSize']}xs{scenario['seqLen']} ckpt={scenario['gradientCheckpointing']} "
        f"{scenario['attention']} loss={scenario['loss']}{offloaded}"
    )


def differing_fields(a: dict, b: dict) -> set[str]:
    """The top-level fields in which two complete scenarios differ.

    When the method differs, the fields that only come with a method (lora, trainableLayers, and a
    quantized base for qlora) are counted as part of that one change.
    """
    fields = {key for key in a.keys() | b.keys() if a.get(key) != b.get(key)}
    if "method" in fields:
        fields -= {"lora", "trainableLayers", "quantization"}
    return fields


# --- The grid --------------------------------------------------------------------------------

# Catalog models the grid uses: dense decoders from 0.5B to 8B. No MoE: the catalog's smallest
# (qwen3-30b-a3b, 30.5B parameters) is too big to initialise at random within the time budget.
GRID_MODELS = (
    "llama-3.2-1b",
    "llama-3.1-8b",
    "qwen2.5-7b",
    "qwen2.5-0.5b",
    "qwen2.5-1.5b",
    "llama-3.2-3b",
    "gemma-2-2b",
)

# Models beyond the grid that check-scenarios.jsonl measures: architectures the grid lacks (Mistral's
# 32k vocabulary, Phi-3's fused qkv/gate_up projections and full multi-head attention, Qwen3's q/k
# norms, Gemma-3's five norms), so the estimator is checked on shapes it was not tuned on.
CHECK_MODELS = ("mistral-7b-v0.3", "phi-3-mini", "qwen3-1.7b", "gemma-3-1b")

LORA_QV = {"rank": 16, "alpha": 32, "dropout": 0.0, "targets": ["q_proj", "v_proj"]}
LORA_ALL = {"rank": 16, "alpha": 32, "dropout": 0.0, "targets": "all-linear"}

# The anchor every tier-1 scenario differs from in one field: a small model (llama-3.2-1b: GQA,
# 128k vocabulary, tied embeddings) in the most common full fine-tuning setup (HF Trainer bf16=True).
BASELINE = {
    "model": "llama-3.2-1b",
    "method": "full",
    "precision": "bf16-mixed",
    "optimizer": "adamw",
    "microBatchSize": 1,
    "seqLen": 2048,
    "gradientCheckpointing": "none",
    "attention": "sdpa",
    "loss": "standard",
    "gpu": GPU_ID,
}


@dataclass(frozen=True)
class GridEntry:
    """One scenario of the grid and why it is there."""

    scenario: dict
    reason: str


def _entry(reason: str, **changes: object) -> GridEntry:
    return GridEntry(with_defaults({**BASELINE, **changes}), reason)


def default_grid() -> list[GridEntry]:
    """The default grid, most informative first."""
    true = {"precision": "bf16-true"}
    l1b_lora = {"method": "lora", "lora": LORA_QV, **true}
    l8b = {"model": "llama-3.1-8b", "method": "lora", "lora": LORA_ALL, **true}
    q7b = {"model": "qwen2.5-7b"}
    q15 = {"model": "qwen2.5-1.5b", **true}
    q05 = {"model": "qwen2.5-0.5b"}
    l3b = {"model": "llama-3.2-3b", **true}
    savings = {"gradientCheckpointing": "full", "loss": "chunked"}
    return [
        # Tier 1: the baseline and its one-field variants, one memory term each.
        _entry("baseline: fp32 weights + fp32 grads + fp32 AdamW (16 B/param), activations, logits"),
        _entry("weights, grads and AdamW states in bf16 (8 B/param): the per-parameter term", **true),
        _entry("SGD without momentum keeps no state: isolates the AdamW states and step temporaries",
               optimizer="sgd"),
        _entry("fused AdamW (fused=True, Hugging Face's default with torch >= 2.8): no foreach temporary",
               fusedOptimizer=True),
        _entry("4x the tokens in one sequence: activation slope and the logits spike at large s", seqLen=8192),
        _entry("4x the tokens as a batch: same tokens as s=8192, so any s^2 residue shows", microBatchSize=4),
        _entry("full checkpointing: activations fall to the layer inputs plus one layer",
               gradientCheckpointing="full"),
        _entry("chunked loss (torchtune): the logits in 8 chunks, each upcast and its gradient made on its own", loss="chunked"),
        _entry("eager attention stores the b*a*s^2 scores and softmax", attention="eager"),
        _entry("short sequence: the fixed part (weights, states, runtime) dominates", seqLen=512),
        _entry("fp32 compute: activations in 4 B instead of 2 B, no autocast weight copies", precision="fp32"),
        _entry("LoRA on a bf16 base: no base grads or states, frozen linears save less", **l1b_lora),
        _entry("LoRA on an fp32 base (litgpt/HF bf16-mixed): base weights 4 B/param",
               **{**l1b_lora, "precision": "bf16-mixed"}),
        _entry("freeze: only the top 2 blocks train (grads and states for 2 of 16 blocks)",
               method="freeze", trainableLayers=2, **true),
        # Tier 2: the setups users run most, at 7-8B.
        _entry("headline: Llama-3.1-8B LoRA all-linear on a bf16 base", **l8b),
        _entry("8B full fine-tune, pure bf16 (8 B/param at scale)", model="llama-3.1-8b", **true),
        _entry("8B LoRA with checkpointing", **l8b, gradientCheckpointing="full"),
        _entry("8B LoRA long context with checkpointing", **l8b, gradientCheckpointing="full", seqLen=8192),
        _entry("the same LoRA on Qwen2.5-7B: wider MLP, 152k vocabulary, qkv bias", **{**l8b, **q7b}),
        _entry("capacity edge: 8B at 16 B/param plus the AdamW foreach temporaries is about 160 GB, "
               "so an OOM at the first optimizer step is likely", model="llama-3.1-8b", seqLen=512),
        # Tier 3: model sweep, full bf16-true at s=2048: per-parameter vs per-architecture terms.
        _entry("model sweep: 0.5B, 152k vocabulary tied: the logits dominate", **q05, **true),
        _entry("model sweep: 1.5B", **q15),
        _entry("model sweep: 3B", **l3b),
        _entry("model sweep: Gemma-2-2B, 256k vocabulary, head_dim 256, 4 norms, eager (HF's advice for "
               "Gemma-2)", model="gemma-2-2b", attention="eager", **true),
        _entry("Gemma-2-2B with sdpa: the eager s^2 term on a 256-wide head", model="gemma-2-2b", **true),
        _entry("model sweep: 7B", **q7b, **true),
        # Tier 4: LoRA details on the 1B model.
        _entry("LoRA rank 64: adapter parameters and their states", **{**l1b_lora, "lora": {**LORA_QV, "rank": 64}}),
        _entry("LoRA all-linear: adapters on all seven projections", **{**l1b_lora, "lora": LORA_ALL}),
        _entry("LoRA dropout 0.05 keeps a dropped-out copy of each adapted input",
               **{**l1b_lora, "lora": {**LORA_QV, "dropout": 0.05}}),
        _entry("LoRA all-linear with checkpointing", **{**l1b_lora, "lora": LORA_ALL}, gradientCheckpointing="full"),
        _entry("LoRA at s=8192: activations of a frozen base", **l1b_lora, seqLen=8192),
        _entry("LoRA with chunked loss", **l1b_lora, loss="chunked"),
        _entry("freeze the top 8 blocks: the slope per trainable block", method="freeze", trainableLayers=8, **true),
        # Tier 5: activation terms on other shapes.
        _entry("Qwen2.5-1.5B at s=8192: activations per token for another h/f/heads ratio", **q15, seqLen=8192),
        _entry("Qwen2.5-1.5B at s=8192 with checkpointing", **q15, seqLen=8192, gradientCheckpointing="full"),
        _entry("Qwen2.5-1.5B at s=8192 with chunked loss (152k vocabulary)", **q15, seqLen=8192, loss="chunked"),
        _entry("Qwen2.5-1.5B batch 4 at s=2048", **q15, microBatchSize=4),
        _entry("eager at s=8192: a large s^2 term (14 heads x 24 layers)",
               **q05, **true, seqLen=8192, attention="eager"),
        _entry("Qwen2.5-0.5B at s=8192 with sdpa, the eager run's pair", **q05, **true, seqLen=8192),
        _entry("fp32 on a small model", **q05, precision="fp32", seqLen=512),
        _entry("the same in bf16-mixed: autocast copies vs fp32 activations", **q05, seqLen=512),
        _entry("3B long context, checkpointing and chunked loss together", **l3b, seqLen=8192, **savings),
        _entry("3B LoRA all-linear at s=8192", **l3b, method="lora", lora=LORA_ALL, seqLen=8192),
        _entry("1B, 32k tokens per step with every saving on", **true, microBatchSize=4, seqLen=8192, **savings),
        _entry("3B long context with the checkpointed layer inputs offloaded to CPU (save_on_cpu): "
               "the layer-input term leaves the GPU", **l3b, seqLen=8192, **savings, offload={"activations": "cpu"}),
        _entry("8B LoRA long context, checkpointed inputs offloaded to CPU",
               **l8b, gradientCheckpointing="full", seqLen=8192, offload={"activations": "cpu"}),
        _entry("8B LoRA on an fp32 base", **{**l8b, "precision": "bf16-mixed"}),
        _entry("8B full bf16 with checkpointing and chunked loss: the usual memory-saving setup",
               model="llama-3.1-8b", **true, **savings),
        _entry("8B LoRA batch 4", **l8b, microBatchSize=4),
        _entry("7B LoRA with eager attention", **{**l8b, **q7b}, attention="eager"),
        _entry("designed OOM: 7B full bf16 with 32k tokens and no savings runs out in the forward pass",
               **q7b, **true, microBatchSize=4, seqLen=8192),
        # Tier 6: need bitsandbytes (skipped where it does not import).
        _entry("8-bit AdamW states (about 2 B/param)", **true, optimizer="adamw-8bit"),
        _entry("QLoRA NF4 on the 1B model", **{**l1b_lora, "method": "qlora", "quantization": "nf4"}),
        _entry("QLoRA NF4 on the 8B model: the usual consumer-GPU setup",
               **{**l8b, "method": "qlora", "quantization": "nf4"}),
        _entry("QLoRA NF4 with double quantization", **{**l8b, "method": "qlora", "quantization": "nf4-dq"}),
    ]


# --- Catalog ---------------------------------------------------------------------------------


def load_catalog(path: Path = CATALOG_PATH) -> dict:
    """The models of catalog-models.json: id -> {hfRepo, params, config}."""
    return json.loads(path.read_text())["models"]


def approximate_params(config: dict) -> int:
    """Parameters of a dense decoder from its Hugging Face config, by the shared catalog's formula
    (embeddings, per-layer attention and gated MLP, untied lm_head; norms and biases left out)."""
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    head_dim = config.get("head_dim") or hidden // heads
    kv_heads = config.get("num_key_value_heads") or heads
    attention = 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim
    layer = attention + 3 * hidden * config["intermediate_size"]
    embeddings = config["vocab_size"] * hidden * (1 if config.get("tie_word_embeddings") else 2)
    return embeddings + config["num_hidden_layers"] * layer


def resolve_model(model: str | dict, catalog: dict) -> dict | None:
    """The {params, config} a scenario's `model` names: a catalog id, a catalog model's Hugging Face
    repo id, or an inline config object. None when the harness cannot build it (any other repo id
    would need a download)."""
    if isinstance(model, dict):
        return {"params": approximate_params(model), "config": model}
    if model in catalog:
        return catalog[model]
    return next((entry for entry in catalog.values() if entry["hfRepo"] == model), None)


# --- Time model ------------------------------------------------------------------------------
# Seconds for one scenario = process overhead + model initialisation + 3 training steps.
# The constants are first guesses, to be recalibrated from the wall times the harness records in
# each row (source.harness.wallS); measure.py also rescales them on the fly (see Calibration).

STEPS = 3
# Forking from a parent that already imported torch/transformers/peft: CUDA context, NVML, the
# modeling module, first cuBLAS calls, and freeing the memory at exit. A fresh interpreter
# ('spawn') pays the imports too.
PROCESS_OVERHEAD_S = {"fork": 3.0, "spawn": 10.0}
# Random initialisation directly on the GPU, per 1e9 parameters (module construction plus the
# Hugging Face init pass; memory-bound work, dominated by Python per-module overhead).
INIT_S_PER_GPARAM = 1.0
# H200 dense bf16 matrix rate measured on the device machine (KINDS.md: 769-798 TFLOP/s on random
# data); fp32 without TF32 (PyTorch's default for matmul) is the datasheet's 67 TFLOP/s (H200.md).
PEAK_FLOPS = {"bf16": 790e12, "fp32": 67e12}
MODEL_FLOPS_UTILIZATION = 0.4
# Sustained HBM rate for memory-bound work (KINDS.md measured a 4.3 TB/s device copy).
HBM_BYTES_PER_S = 3.0e12
# Eager attention moves each of the b*a*s*s scores several times per training step (scores,
# softmax in fp32, cast, saved copy; their gradients): about 24 bytes per score per layer.
EAGER_BYTES_PER_SCORE = 24
# Kernel launches per layer per training step (forward, backward, optimizer), about 1-2 ms.
LAUNCH_S_PER_LAYER_STEP = 2e-3
# AdamW step traffic per trainable parameter: read param, grad, m, v; write param, m, v.
OPTIMIZER_TENSOR_PASSES = 7
# bitsandbytes 4-bit layers dequantise each weight for every matmul.
QLORA_SLOWDOWN = 1.5


def _training_flops(scenario: dict, params: int, layers: int) -> float:
    """Matrix FLOPs of one optimizer step: 2*N*T forward, 4*N*T backward for full fine-tuning.

    Frozen weights need no weight gradient (backward 2*N*T); checkpointing adds a forward.
    """
    tokens = scenario["microBatchSize"] * scenario["seqLen"] * scenario["gradAccumSteps"]
    forward = 2 * params * tokens
    method = scenario["method"]
    if method == "full":
        backward = 2 * forward
    elif method == "freeze":
        backward = forward * (1 + scenario["trainableLayers"] / layers)
    else:
        backward = forward
    recompute = forward if scenario["gradientCheckpointing"] != "none" else 0
    return forward + backward + recompute


def _attention_flops(scenario: dict, config: dict) -> float:
    """The s^2 matrix FLOPs of attention for one step (QK^T and AV: 4*b*s^2*a*d forward, x3 with
    backward); a causal kernel (sdpa) skips the masked half, eager computes it all."""
    heads = config["num_attention_heads"]
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    b, s = scenario["microBatchSize"] * scenario["gradAccumSteps"], scenario["seqLen"]
    flops = 12 * b * s * s * heads * head_dim * config["num_hidden_layers"]
    return flops if scenario["attention"] == "eager" else flops / 2


def estimate_seconds(scenario: dict, model: dict, start_method: str = "fork") -> float:
    """Estimated wall time of one scenario in its own process (model: a catalog-models.json entry)."""
    config = model["config"]
    params, layers = model["params"], config["num_hidden_layers"]
    rate = PEAK_FLOPS["fp32" if scenario["precision"] == "fp32" else "bf16"] * MODEL_FLOPS_UTILIZATION
    compute = (_training_flops(scenario, params, layers) + _attention_flops(scenario, config)) / rate
    if scenario["method"] == "qlora":
        compute *= QLORA_SLOWDOWN
    if scenario["attention"] == "eager":
        b, s = scenario["microBatchSize"] * scenario["gradAccumSteps"], scenario["seqLen"]
        scores = b * config["num_attention_heads"] * s * s * layers
        compute += scores * EAGER_BYTES_PER_SCORE / HBM_BYTES_PER_S
    trainable = {"full": params, "freeze": params * scenario.get("trainableLayers", 0) / layers}.get(
        scenario["method"], 0
    )
    state_bytes = 2 if scenario["precision"].endswith("-true") else 4
    optimizer = trainable * OPTIMIZER_TENSOR_PASSES * state_bytes / HBM_BYTES_PER_S
    step = compute + optimizer + LAUNCH_S_PER_LAYER_STEP * layers
    return PROCESS_OVERHEAD_S[start_method] + INIT_S_PER_GPARAM * params / 1e9 + STEPS * step


# --- CLI -------------------------------------------------------------------------------------


def _one_field_partners(entries: list[GridEntry]) -> list[list[str]]:
    """For each entry, up to three earlier entries it differs from in exactly one field ('#3 seqLen')."""
    partners = []
    for index, entry in enumerate(entries):
        found = []
        for earlier in range(index):
            fields = differing_fields(entry.scenario, entries[earlier].scenario)
            if len(fields) == 1:
                found.append(f"#{earlier + 1} {fields.pop()}")
        partners.append(found[:3])
    return partners


def markdown_table(start_method: str = "fork") -> str:
    """The grid as the Markdown table in README.md (`grid.py --markdown` prints it)."""
    catalog = load_catalog()
    entries = default_grid()
    lines = ["| # | scenario | est. s | why it is there | one field from |", "|---|---|---|---|---|"]
    for number, (entry, partners) in enumerate(zip(entries, _one_field_partners(entries)), start=1):
        seconds = estimate_seconds(entry.scenario, catalog[entry.scenario["model"]], start_method)
        cells = [str(number), f"`{describe(entry.scenario)}`", f"{seconds:.1f}", entry.reason, ", ".join(partners)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print the grid with reasons and time estimates")
    parser.add_argument("--markdown", action="store_true", help="print the grid as README.md's table")
    parser.add_argument("--start-method", choices=sorted(PROCESS_OVERHEAD_S), default="fork")
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown_table(args.start_method))
        return
    if not args.list:
        parser.print_help()
        return
    catalog = load_catalog()
    entries = default_grid()
    total = 0.0
    for number, (entry, partners) in enumerate(zip(entries, _one_field_partners(entries)), start=1):
        seconds = estimate_seconds(entry.scenario, catalog[entry.scenario["model"]], args.start_method)
        total += seconds
        print(f"#{number:<3} {seconds:6.1f} s  {describe(entry.scenario)}")
        pairs = f"  [differs in one field from {', '.join(partners)}]" if partners else ""
        print(f"      why: {entry.reason}{pairs}")
    print(f"{len(entries)} scenarios, estimated {total:.0f} s ({total / 60:.1f} min) "
          f"with start method {args.start_method}")


if __name__ == "__main__":
    main()
