"""The training workload measure.py runs in each child process (needs torch, transformers, peft, a GPU).

`run(scenario, model_config, recorder)` builds the model from its Hugging Face config with random
weights directly on the GPU (nothing is downloaded), applies the scenario's method, precision,
optimizer, checkpointing, attention and loss, and runs grid.STEPS full training steps on random
tokens of exactly microBatchSize x seqLen. It reports phases and facts through `recorder`
(measure.Recorder); measure.py reads the memory peaks around it.

Choices that decide what the numbers mean (each also written into the rows' notes):
- No attention mask is passed (every token is real, as with packing), so sdpa can take its causal
  path without a mask tensor; labels are the inputs (Hugging Face shifts them inside the loss).
- bf16-mixed / fp16-mixed: fp32 weights under torch.autocast (fp16 adds a GradScaler); -true: the
  weights are created in 16 bits and trained without a master copy; fp32: no autocast.
- freeze trains only the top `trainableLayers` decoder blocks (not the final norm or lm_head).
- Optimizers use torch.optim's defaults (AdamW: the foreach implementation on CUDA), or fused=True
  for AdamW and SGD when the scenario says fusedOptimizer.
- The chunked loss is torchtune's CEWithChunkedOutputLoss: LOSS_CHUNKS 16-bit logit chunks made in
  forward, each upcast to fp32 on its own for the cross-entropy; the chunks are dropped before backward.
- LoRA adapters are fp32 (peft's autocast_adapter_dtype=True) unless the scenario's
  lora.adapterDtype is "model" (torchtune's and litgpt's bf16 adapters): then they keep the base's dtype.
"""

from __future__ import annotations

import contextlib
import statistics
import time

import peft
import torch
import torch.nn.functional as F
import transformers

from grid import STEPS

# torchtune's chunked cross-entropy splits the logits into 8 chunks (CEWithChunkedOutputLoss
# num_output_chunks = 8, the same number Headroom's estimator assumes for loss "chunked").
LOSS_CHUNKS = 8
# The label value cross-entropy ignores (PyTorch's and Hugging Face's default).
IGNORE_INDEX = -100
# Learning rate and SGD momentum change no memory; any finite values do.
LEARNING_RATE = 1e-5
SGD_MOMENTUM = 0.9
# bitsandbytes' 4-bit block size (its default; QLoRA paper: one absmax per 64 weights).
QUANT_BLOCKSIZE = 64

WEIGHT_DTYPE = {
    "fp32": torch.float32,
    "bf16-mixed": torch.float32,
    "fp16-mixed": torch.float32,
    "bf16-true": torch.bfloat16,
    "fp16-true": torch.float16,
}
AUTOCAST_DTYPE = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}
ATTENTION_IMPLEMENTATION = {"eager": "eager", "sdpa": "sdpa", "flash": "flash_attention_2"}
# transformers 4.56 renamed from_config's `torch_dtype` to `dtype` (the old name warns in 5.x).
TRANSFORMERS_VERSION = tuple(int(part) for part in transformers.__version__.split(".")[:2])
DTYPE_KEYWORD = "dtype" if TRANSFORMERS_VERSION >= (4, 56) else "torch_dtype"


def build_model(scenario: dict, model_config: dict) -> torch.nn.Module:
    """The causal LM with random weights, created on the GPU in the scenario's weight dtype."""
    fields = dict(model_config)
    config = transformers.AutoConfig.for_model(fields.pop("model_type"), **fields)
    config.use_cache = False  # training keeps no KV cache
    options = {
        DTYPE_KEYWORD: WEIGHT_DTYPE[scenario["precision"]],
        "attn_implementation": ATTENTION_IMPLEMENTATION[scenario["attention"]],
    }
    with torch.device("cuda"):
        model = transformers.AutoModelForCausalLM.from_config(config, **options)
    return model.train()


def quantize_linears(model: torch.nn.Module, quantization: str, compute_dtype: torch.dtype) -> None:
    """Replaces every linear layer of the decoder blocks with a bitsandbytes 4-bit layer, in place.

    Embeddings, norms and lm_head stay as they are (the usual QLoRA setup). The 16-bit weights of
    each layer are freed as soon as it is quantized.
    """
    import bitsandbytes as bnb

    quant_type = "fp4" if quantization == "fp4" else "nf4"
    double = quantization == "nf4-dq"
    for parent in list(model.get_decoder().layers.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is not torch.nn.Linear:
                continue
            packed, state = bnb.functional.quantize_4bit(
                child.weight.data, blocksize=QUANT_BLOCKSIZE, compress_statistics=double, quant_type=quant_type
            )
            layer = bnb.nn.Linear4bit(
                child.in_features,
                child.out_features,
                bias=child.bias is not None,
                compute_dtype=compute_dtype,
                compress_statistics=double,
                quant_type=quant_type,
                device="meta",
            )
            layer.weight = bnb.nn.Params4bit(
                packed,
                requires_grad=False,
                quant_state=state,
                blocksize=QUANT_BLOCKSIZE,
                compress_statistics=double,
                quant_type=quant_type,
                bnb_quantized=True,
            )
            layer.bias = child.bias
            setattr(parent, name, layer)
    # peft wraps bitsandbytes layers with its 4-bit LoRA layer when the model says it is 4-bit.
    model.is_loaded_in_4bit = True


def offload_checkpointed_inputs(model: torch.nn.Module) -> None:
    """Runs every checkpointed layer under save_on_cpu, so what it saves (its inputs) waits in pinned
    host memory until backward: the wrap transformers PR #48444 applies for gradient_checkpointing_kwargs
    {"offload": True}, done here on the checkpoint function so it works on any transformers version."""
    for module in model.modules():
        checkpointed = getattr(module, "_gradient_checkpointing_func", None)
        if checkpointed is None:
            continue

        def offloaded(*args, _checkpointed=checkpointed, **kwargs):
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                return _checkpointed(*args, **kwargs)

        module._gradient_checkpointing_func = offloaded


def apply_method(model: torch.nn.Module, scenario: dict, recorder) -> torch.nn.Module:
    """Marks what trains: everything (full), the top blocks (freeze), or LoRA adapters (peft)."""
    method = scenario["method"]
    if method == "full":
        return model
    if method == "freeze":
        model.requires_grad_(False)
        for block in model.get_decoder().layers[-scenario["trainableLayers"] :]:
            block.requires_grad_(True)
        return model
    if method == "qlora":
        compute_dtype = AUTOCAST_DTYPE.get(scenario["precision"], WEIGHT_DTYPE[scenario["precision"]])
        quantize_linears(model, scenario["quantization"], compute_dtype)
        recorder.restart_peaks(
            "QLoRA: the base is built in 16 bits and quantized in place, which from_pretrained never "
            "holds at once, so the peaks restart after quantization (load covers the quantized model)"
        )
    lora = scenario["lora"]
    config = peft.LoraConfig(
        r=lora["rank"],
        lora_dropout=lora.get("dropout", 0.0),
        target_modules=lora["targets"],
        modules_to_save=lora.get("modulesToSave") or None,
        task_type="CAUSAL_LM",
        **({"lora_alpha": lora["alpha"]} if "alpha" in lora else {}),
    )
    # peft upcasts adapters on a 16-bit base to fp32 unless told not to (autocast_adapter_dtype).
    return peft.get_peft_model(model, config, autocast_adapter_dtype=lora.get("adapterDtype", "fp32") != "model")


def make_optimizer(name: str, params: list[torch.nn.Parameter], fused: bool = False) -> torch.optim.Optimizer:
    """The scenario's optimizer over the trainable parameters, with library defaults (foreach), or
    torch's fused kernel for AdamW and SGD when the scenario says fusedOptimizer."""
    kernel = {"fused": True} if fused else {}
    if name == "adamw":
        return torch.optim.AdamW(params, lr=LEARNING_RATE, **kernel)
    if name == "sgd":
        return torch.optim.SGD(params, lr=LEARNING_RATE, **kernel)
    if name == "sgd-momentum":
        return torch.optim.SGD(params, lr=LEARNING_RATE, momentum=SGD_MOMENTUM, **kernel)
    if name == "adafactor":
        return torch.optim.Adafactor(params, lr=LEARNING_RATE)
    import bitsandbytes as bnb

    bnb_optimizers = {
        "adamw-8bit": bnb.optim.AdamW8bit,
        "paged-adamw": bnb.optim.PagedAdamW,
        "paged-adamw-8bit": bnb.optim.PagedAdamW8bit,
    }
    return bnb_optimizers[name](params, lr=LEARNING_RATE)


def chunked_loss(model: torch.nn.Module, input_ids: torch.Tensor) -> torch.Tensor:
    """Next-token cross-entropy as torchtune's CEWithChunkedOutputLoss computes it: the decoder's
    final hidden states go through the head in LOSS_CHUNKS chunks along the sequence (16-bit logit
    chunks, all made in forward), and each chunk is upcast to fp32 on its own for the cross-entropy.
    Only the loss leaves this function, so the logit chunks are freed before backward, as torchtune's
    recipes `del logits` before `loss.backward()`."""
    causal_lm = model.get_base_model() if isinstance(model, peft.PeftModel) else model
    hidden = causal_lm.get_decoder()(input_ids=input_ids).last_hidden_state
    head = causal_lm.get_output_embeddings()
    softcap = getattr(causal_lm.config, "final_logit_softcapping", None)
    targets = F.pad(input_ids[:, 1:], (0, 1), value=IGNORE_INDEX)
    logits = [head(chunk) for chunk in hidden.chunk(LOSS_CHUNKS, dim=1)]
    if softcap:  # Gemma-2's final logit soft-capping, as its forward applies it
        logits = [torch.tanh(chunk / softcap) * softcap for chunk in logits]
    total = sum(
        F.cross_entropy(chunk.float().flatten(0, 1), labels.flatten(), ignore_index=IGNORE_INDEX, reduction="sum")
        for chunk, labels in zip(logits, targets.chunk(LOSS_CHUNKS, dim=1))
    )
    return total / (targets != IGNORE_INDEX).sum()


def standard_loss(model: torch.nn.Module, input_ids: torch.Tensor) -> torch.Tensor:
    """The model's own loss: full logits, upcast to fp32 inside Hugging Face's loss function."""
    return model(input_ids=input_ids, labels=input_ids).loss


def run(scenario: dict, model_config: dict, recorder) -> None:
    """Builds, then trains grid.STEPS steps; facts go to recorder.info (see module docstring)."""
    torch.manual_seed(0)
    recorder.phase("load")
    load_started = time.perf_counter()
    model = build_model(scenario, model_config)
    if scenario["gradientCheckpointing"] == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        if scenario["offload"].get("activations") == "cpu":
            offload_checkpointed_inputs(model)
            recorder.notes.append(
                "activation offload: each checkpointed layer runs under torch.autograd.graph.save_on_cpu("
                "pin_memory=True), as transformers' gradient_checkpointing_kwargs offload does"
            )
    model = apply_method(model, scenario, recorder)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = make_optimizer(scenario["optimizer"], trainable, fused=scenario.get("fusedOptimizer") is True)
    torch.cuda.synchronize()
    recorder.info.update(
        initS=round(time.perf_counter() - load_started, 3),
        totalParams=sum(p.numel() for p in model.parameters()),
        trainableParams=sum(p.numel() for p in trainable),
        trainableDtype=str(trainable[0].dtype).removeprefix("torch.") if trainable else None,
        attnImplementation=model.config._attn_implementation,
        optimizerClass=type(optimizer).__name__,
    )
    recorder.notes.append("no attention mask (all tokens real); random token ids over the full vocabulary")
    if scenario["loss"] == "chunked":
        recorder.notes.append(f"chunked loss: torchtune's CEWithChunkedOutputLoss, {LOSS_CHUNKS} chunks, "
                              "logit chunks dropped before backward")

    precision = scenario["precision"]

    def autocast() -> contextlib.AbstractContextManager:
        if precision in AUTOCAST_DTYPE:
            return torch.autocast("cuda", dtype=AUTOCAST_DTYPE[precision])
        return contextlib.nullcontext()

    scaler = torch.amp.GradScaler("cuda") if precision == "fp16-mixed" else None
    loss_fn = chunked_loss if scenario["loss"] == "chunked" else standard_loss
    shape = (scenario["microBatchSize"], scenario["seqLen"])
    accumulation = scenario["gradAccumSteps"]
    step_times = []
    for _ in range(STEPS):
        torch.cuda.synchronize()
        step_started = time.perf_counter()
        for _ in range(accumulation):
            input_ids = torch.randint(0, model.config.vocab_size, shape, device="cuda")
            recorder.phase("forward")
            with autocast():
                loss = loss_fn(model, input_ids) / accumulation
            recorder.phase("backward")
            (scaler.scale(loss) if scaler else loss).backward()
            # Free the graph now, as the Hugging Face Trainer does: a loop that keeps `loss` keeps the
            # previous step's graph through the next forward, and with bitsandbytes before 0.43.2 every
            # input its 4-bit layers kept (Headroom's quantizedInputsKept: "next-forward" vs "step").
            del loss
        recorder.phase("optimizer-step")
        if scaler:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        step_times.append(time.perf_counter() - step_started)
        recorder.info["stepTimesS"] = [round(seconds, 4) for seconds in step_times]
    recorder.info["medianStepS"] = round(statistics.median(step_times), 4)
