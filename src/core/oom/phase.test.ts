/** The phase of every corpus case, then tracebacks and logs built in code for each signature. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../../test/data.js';
import { findOomMessages } from './find-oom-messages.js';
import { findPrimaryOom } from './parse-oom-message.js';
import { detectPhase, type OomPhase } from './phase.js';

interface CorpusCase {
  readonly id: string;
  readonly text: string;
  readonly expectedPhase: OomPhase;
  readonly acceptablePhases?: readonly OomPhase[];
}

const CORPUS: readonly CorpusCase[] = readFileSync(dataFile('validation', 'oom_corpus.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as CorpusCase);

const read = (text: string) => detectPhase(text, findPrimaryOom(text), findOomMessages(text));
const byId = (id: string) => CORPUS.find((c) => c.id === id)!.text;

/**
 * Cases the text alone cannot place (bench:diagnose lists them too): the corpus knows their phase from
 * the issue thread, not from the pasted text. No rule is written for one case's wording.
 */
const KNOWN_MISSES: Readonly<Record<string, OomPhase>> = {
  'zerodce-52-test': 'forward', // evaluation in the thread; the message alone shows one huge request
  'alphafold-1023': 'unknown', // XLA message only; inference per the thread
  'dcrnn-33-tf-leak': 'unknown', // TensorFlow allocator dump; "after several epochs" is in the thread
  'taggui-188-expandable': 'unknown', // 2.x figures with 2.35 GiB free; inference per the thread
  'slime-1951-logits-fp32': 'unknown', // one line; "steps 20-50" is in the thread
  'internvl-154-eval-reload-gpu0': 'unknown', // a sentence about loading the model again
};

describe('detectPhase on the corpus', () => {
  it.each(CORPUS.map((c) => [c.id, c] as const))('%s', (id, c) => {
    const got = read(c.text).phase;
    const miss = KNOWN_MISSES[id];
    if (miss !== undefined) expect(got).toBe(miss);
    else expect([c.expectedPhase, ...(c.acceptablePhases ?? [])]).toContain(got);
  });

  it('places 30 of the 36 cases whose phase is known (83.3 %)', () => {
    const known = CORPUS.filter((c) => c.expectedPhase !== 'unknown');
    const right = known.filter((c) =>
      [c.expectedPhase, ...(c.acceptablePhases ?? [])].includes(read(c.text).phase),
    );
    expect([right.length, known.length]).toEqual([30, 36]);
  });

  it('says what it read the phase from, and the rule’s reason', () => {
    const cases: readonly (readonly [string, Partial<ReturnType<typeof read>>])[] = [
      ['grpo-2776-optimizer-step', { phase: 'optimizer-step', basis: 'traceback', reason: 'traced-frame' }],
      ['fsdp-70b-optimizer-step', { phase: 'optimizer-step', basis: 'traceback', reason: 'traced-code' }],
      ['alpaca-65-fsdp-save', { phase: 'checkpoint-save', basis: 'log', reason: 'traced-text' }],
      [
        'graf-6-slow-growth',
        {
          phase: 'mid-run',
          basis: 'log',
          reason: 'log-steps',
          quote: '`[cub_64 epoch 7, it 7990, t 1.099] g_loss = 1.0365, d_loss = 1.1345, reg=0.0230`,',
        },
      ],
      ['kaito-976-private-pools', { phase: 'forward', basis: 'log', reason: 'log-engine' }],
      ['semseg-60-validation', { phase: 'evaluation', basis: 'log', reason: 'words' }],
      ['pt-152135-hours-in', { phase: 'mid-run', basis: 'numbers', reason: 'fragmented-cache' }],
      ['nccl-1284-1EB', { phase: 'mid-run', basis: 'numbers', reason: 'request-unbounded' }],
      ['mygirlgpt-11-4gb', { phase: 'load', basis: 'numbers', reason: 'nothing-cached' }],
      ['lora-vit-6-batch', { phase: 'forward', basis: 'numbers', reason: 'card-full' }],
      ['cads-4-reserved-unalloc', { phase: 'forward', basis: 'numbers', reason: 'single-huge-request' }],
      ['alpaca-546-host-oom-loading', { phase: 'host-memory', basis: 'message', reason: 'host-kill' }],
      ['trixie-92-stopped-process', { phase: 'other-process', basis: 'smi', reason: 'smi-leftover' }],
      ['mxnet-4242-zombie', { phase: 'other-process', basis: 'smi', reason: 'smi-leftover' }],
      ['visedit-5-ghost-process', { phase: 'other-process', basis: 'smi', reason: 'smi-used-no-process' }],
      ['pt-1.0-cached-format', { phase: 'unknown', basis: 'none', reason: null }],
    ];
    for (const [id, want] of cases) expect([id, read(byId(id))]).toMatchObject([id, want]);
  });
});

const OOM =
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 512.00 MiB is free. Including non-PyTorch memory, this process has 78.60 GiB memory in use. Of the allocated memory 60.00 GiB is allocated by PyTorch, and 18.00 GiB is reserved by PyTorch but unallocated.';
const frame = (file: string, line: number, name: string, code: string) =>
  `  File "${file}", line ${line}, in ${name}\n    ${code}`;
const traceback = (...frames: string[]) => `Traceback (most recent call last):\n${frames.join('\n')}\n${OOM}`;
const SITE = '/opt/conda/lib/python3.11/site-packages';

describe('detectPhase on tracebacks built in code', () => {
  it.each([
    [
      'backward, through torch/autograd',
      traceback(
        frame('train.py', 88, 'main', 'loss.backward()'),
        frame(`${SITE}/torch/_tensor.py`, 581, 'backward', 'torch.autograd.backward('),
        frame(`${SITE}/torch/autograd/__init__.py`, 347, 'backward', '_engine_run_backward('),
      ),
      'backward',
    ],
    [
      'evaluation called from inside the training loop',
      traceback(
        frame(
          `${SITE}/transformers/trainer.py`,
          2279,
          '_inner_training_loop',
          'self._maybe_log_save_evaluate(',
        ),
        frame(`${SITE}/transformers/trainer.py`, 3001, 'evaluate', 'output = eval_loop('),
        frame(`${SITE}/transformers/trainer.py`, 4090, 'prediction_step', 'outputs = model(**inputs)'),
        frame(
          `${SITE}/torch/nn/modules/module.py`,
          1747,
          '_call_impl',
          'return forward_call(*args, **kwargs)',
        ),
      ),
      'evaluation',
    ],
    [
      'a checkpoint save inside the training loop',
      traceback(
        frame(
          `${SITE}/transformers/trainer.py`,
          2279,
          '_inner_training_loop',
          'self._maybe_log_save_evaluate(',
        ),
        frame(`${SITE}/transformers/trainer.py`, 3105, '_save_checkpoint', 'self.save_model(output_dir)'),
        frame(`${SITE}/accelerate/accelerator.py`, 3401, 'get_state_dict', 'state_dict = model.state_dict()'),
      ),
      'checkpoint-save',
    ],
    [
      'a ZeRO-3 gather in backward',
      traceback(
        frame(
          `${SITE}/deepspeed/runtime/zero/parameter_offload.py`,
          410,
          '_run_before_backward_function',
          'pre_sub_module_backward_function(sub_module)',
        ),
        frame(
          `${SITE}/deepspeed/runtime/zero/partitioned_param_coordinator.py`,
          290,
          'fetch_sub_module',
          'param_coordinator.fetch_sub_module(sub_module, forward=False)',
        ),
      ),
      'backward',
    ],
    [
      'the optimizer step of DeepSpeed ZeRO-2',
      traceback(
        frame('train.py', 120, 'main', 'model_engine.step()'),
        frame(`${SITE}/deepspeed/runtime/zero/stage_1_and_2.py`, 1834, 'step', 'self._optimizer_step(i)'),
      ),
      'optimizer-step',
    ],
    [
      'loading: from_pretrained',
      traceback(
        frame(
          'train.py',
          30,
          '<module>',
          'model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.bfloat16)',
        ),
        frame(
          `${SITE}/transformers/modeling_utils.py`,
          4225,
          '_load_pretrained_model',
          'state_dict = load_state_dict(shard_file)',
        ),
      ),
      'load',
    ],
    [
      'loading: model.to(device), seen as nn.Module._apply',
      traceback(
        frame('infer.py', 12, '<module>', 'model.to("cuda")'),
        frame(`${SITE}/torch/nn/modules/module.py`, 927, '_apply', 'param_applied = fn(param)'),
      ),
      'load',
    ],
    [
      'a forward failure after 500 logged steps is mid-run',
      `{'loss': 1.21, 'grad_norm': 0.9, 'learning_rate': 2e-05, 'epoch': 0.48}\n 38%|███▊      | 500/1300 [20:11<32:18,  2.42s/it]\n${traceback(
        frame(
          `${SITE}/torch/nn/modules/module.py`,
          1747,
          '_call_impl',
          'return forward_call(*args, **kwargs)',
        ),
        frame(
          `${SITE}/transformers/models/llama/modeling_llama.py`,
          600,
          'forward',
          'logits = self.lm_head(hidden_states)',
        ),
      )}`,
      'mid-run',
    ],
    [
      'IPython / Jupyter frames',
      `/usr/local/lib/python3.11/dist-packages/torch/optim/adam.py in _init_group(self, group, params_with_grad)\n    173                     # Exponential moving average of gradient values\n--> 174                     state["exp_avg"] = torch.zeros_like(\n\n${OOM}`,
      'optimizer-step',
    ],
  ] as const)('%s', (_name, text, phase) => {
    expect(read(text).phase).toBe(phase);
  });

  it('reads rank-tagged tracebacks', () => {
    const text = traceback(
      frame(
        `${SITE}/torch/optim/adamw.py`,
        480,
        '_multi_tensor_adamw',
        'exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)',
      ),
    )
      .split('\n')
      .map((l) => `[rank7]: ${l}`)
      .join('\n');
    expect(read(text)).toMatchObject({ phase: 'optimizer-step', basis: 'traceback' });
  });
});

describe('detectPhase from processes and ranks', () => {
  it('small processes next to this one are other ranks’ contexts: imbalance', () => {
    const text =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.00 GiB is free. Including non-PyTorch memory, this process has 74.00 GiB memory in use. Process 3101 has 524.00 MiB memory in use. Process 3102 has 524.00 MiB memory in use. Process 3103 has 524.00 MiB memory in use. Of the allocated memory 70.00 GiB is allocated by PyTorch, and 2.00 GiB is reserved by PyTorch but unallocated.';
    expect(read(text)).toMatchObject({
      phase: 'multi-gpu-imbalance',
      basis: 'processes',
      reason: 'rank-contexts',
    });
  });

  it('a large foreign process is another job', () => {
    const text =
      'CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.00 GiB is free. Process 9 has 40.00 GiB memory in use. Including non-PyTorch memory, this process has 38.00 GiB memory in use. Of the allocated memory 36.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.';
    expect(read(text)).toMatchObject({ phase: 'other-process', reason: 'foreign-process' });
  });

  it('one rank of four failing is imbalance', () => {
    const text = [
      '[rank0]: step 3 loss 2.1',
      '[rank1]: step 3 loss 2.1',
      '[rank2]: step 3 loss 2.1',
      '[rank3]: step 3 loss 2.1',
      '[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.',
    ].join('\n');
    expect(read(text)).toMatchObject({ phase: 'multi-gpu-imbalance', reason: 'one-rank-failed' });
  });
});
