"""What Hugging Face's SDPA path hands PyTorch, and which kernel PyTorch picks, per dtype (device only).

The harness's rows disagree with the estimator where the attention kernel decides what is saved for
backward, so this records the facts instead of guessing them: for a 2-layer model of each given
catalog config, in bf16 and fp32, the arguments of every torch.nn.functional.scaled_dot_product_attention
call (mask or none, is_causal, enable_gqa, the shapes of q/k/v), the CUDA kernels the forward and
backward ran (torch.profiler), and the bytes the forward left saved for backward beyond the weights.
One JSON line per (model, dtype) on stdout. Run: python3 bench/gpu/probe_attention.py [SEQ_LEN]
"""

from __future__ import annotations

import json
import sys

import torch
import torch.nn.functional as F
import transformers

import grid

SEQ_LEN = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
MODELS = ("llama-3.2-1b", "qwen2.5-0.5b", "gemma-2-2b")
KERNEL_WORDS = ("flash", "fmha", "efficient", "cudnn", "cutlass", "softmax", "gemm", "bmm")

calls: list[dict] = []
original_sdpa = F.scaled_dot_product_attention


def recording_sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **kwargs):
    calls.append({
        "q": list(query.shape), "k": list(key.shape), "v": list(value.shape),
        "mask": None if attn_mask is None else [list(attn_mask.shape), str(attn_mask.dtype)],
        "isCausal": bool(is_causal), **{name: bool(value) for name, value in kwargs.items()},
    })
    return original_sdpa(query, key, value, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
                         scale=scale, **kwargs)


def main() -> None:
    F.scaled_dot_product_attention = recording_sdpa
    torch.nn.functional.scaled_dot_product_attention = recording_sdpa
    catalog = grid.load_catalog()
    for name in MODELS:
        fields = dict(catalog[name]["config"])
        fields["num_hidden_layers"] = 2
        config = transformers.AutoConfig.for_model(fields.pop("model_type"), **fields)
        config.use_cache = False
        for dtype in (torch.bfloat16, torch.float32):
            calls.clear()
            with torch.device("cuda"):
                model = transformers.AutoModelForCausalLM.from_config(config, dtype=dtype, attn_implementation="sdpa")
            model.train()
            decoder = model.get_decoder()
            ids = torch.randint(0, config.vocab_size, (1, SEQ_LEN), device="cuda")
            torch.cuda.synchronize()
            before = torch.cuda.memory_allocated()
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                hidden = decoder(input_ids=ids).last_hidden_state
                torch.cuda.synchronize()
                saved = torch.cuda.memory_allocated() - before
                hidden.float().pow(2).mean().backward()
                torch.cuda.synchronize()
            kernels = sorted({event.key for event in prof.key_averages()
                              if any(word in event.key.lower() for word in KERNEL_WORDS)})
            print(json.dumps({
                "model": name, "dtype": str(dtype).removeprefix("torch."), "seqLen": SEQ_LEN, "layers": 2,
                "savedBytesAfterForward": saved, "sdpaCalls": calls[:1], "kernels": [k[:120] for k in kernels],
                "torch": torch.__version__, "transformers": transformers.__version__,
            }), flush=True)
            del model, decoder, hidden
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
