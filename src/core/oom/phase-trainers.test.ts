/**
 * The frames and words of the trainers people fine-tune with (HF Trainer, TRL, accelerate, DeepSpeed,
 * Lightning, torchtune, litgpt, vLLM), each rule on the shape of a public report named in the test and on
 * a variant that shares the mechanism, not the wording; the corpus cases these rules could touch keep
 * their phase.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataFile } from '../../../test/data.js';
import { findOomMessages } from './find-oom-messages.js';
import { findPrimaryOom } from './parse-oom-message.js';
import { detectPhase } from './phase.js';

const read = (text: string) => detectPhase(text, findPrimaryOom(text), findOomMessages(text));
const corpus: ReadonlyMap<string, string> = new Map(
  readFileSync(dataFile('validation', 'oom_corpus.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; text: string })
    .map((c) => [c.id, c.text] as const),
);
const caseText = (id: string) => corpus.get(id)!;

const frame = (file: string, line: number, name: string, code: string) =>
  `  File "${file}", line ${line}, in ${name}\n    ${code}`;
const SITE = '/opt/conda/lib/python3.11/site-packages';
const traceback = (oom: string, ...frames: string[]) =>
  `Traceback (most recent call last):\n${frames.join('\n')}\n${oom}`;
const OOM =
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 47.53 GiB of which 600.00 MiB is free. Including non-PyTorch memory, this process has 46.90 GiB memory in use. Of the allocated memory 45.10 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.';
const CALL_IMPL = frame(
  `${SITE}/torch/nn/modules/module.py`,
  1527,
  '_call_impl',
  'return forward_call(*args, **kwargs)',
);

describe('an optimizer that runs a closure', () => {
  // state-spaces/mamba #112 (hyena-dna on Lightning): optimizer_step → torch's step → closure() →
  // _wrap_closure → the closure → training_step → the model.
  const outer = [
    frame(
      `${SITE}/pytorch_lightning/plugins/precision/precision_plugin.py`,
      121,
      'optimizer_step',
      'return optimizer.step(closure=closure, **kwargs)',
    ),
    frame(`${SITE}/torch/optim/optimizer.py`, 373, 'wrapper', 'out = func(*args, **kwargs)'),
    frame(`${SITE}/torch/optim/optimizer.py`, 76, '_use_grad', 'ret = func(self, *args, **kwargs)'),
    frame(`${SITE}/torch/optim/adamw.py`, 161, 'step', 'loss = closure()'),
    frame(
      `${SITE}/pytorch_lightning/plugins/precision/precision_plugin.py`,
      107,
      '_wrap_closure',
      'closure_result = closure()',
    ),
    frame(
      `${SITE}/pytorch_lightning/loops/optimization/optimizer_loop.py`,
      147,
      '__call__',
      'self._result = self.closure(*args, **kwargs)',
    ),
    frame(
      `${SITE}/pytorch_lightning/loops/optimization/optimizer_loop.py`,
      133,
      'closure',
      'step_output = self._step_fn()',
    ),
  ];

  it('a forward inside the closure is the forward, not the optimizer step around it', () => {
    const text = traceback(
      OOM,
      ...outer,
      frame('src/tasks/seq.py', 330, 'training_step', 'loss = self._shared_step(batch)'),
      CALL_IMPL,
    );
    expect(read(text)).toMatchObject({ phase: 'forward', basis: 'traceback' });
  });

  it('…a backward inside it is the backward', () => {
    const text = traceback(
      OOM,
      ...outer,
      frame(`${SITE}/pytorch_lightning/core/module.py`, 1054, 'backward', 'loss.backward(*args, **kwargs)'),
      frame(
        `${SITE}/torch/autograd/__init__.py`,
        251,
        'backward',
        'Variable._execution_engine.run_backward(',
      ),
    );
    expect(read(text).phase).toBe('backward');
  });

  it('…and the update after the closure returned is the optimizer step', () => {
    // The closure has returned: its frames are gone and the foreach kernel runs (trl PR #2776's frames).
    const text = traceback(
      OOM,
      ...outer.slice(0, 4).map((f) => f.replace('loss = closure()', 'adamw(')),
      frame(
        `${SITE}/torch/optim/adamw.py`,
        606,
        '_multi_tensor_adamw',
        'exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)',
      ),
    );
    expect(read(text).phase).toBe('optimizer-step');
  });

  it('a Trainer that passes a closure argument without calling it is still the optimizer (sentence-transformers #3214)', () => {
    expect(read(caseText('sentence-transformers-3214-hpo'))).toMatchObject({
      phase: 'optimizer-step',
      reason: 'traced-code',
    });
  });
});

describe('generation inside a training step', () => {
  // huggingface/trl PR #3248 (GRPO): training_step → _prepare_inputs → _generate_and_score_completions
  // → unwrapped_model.generate → transformers' _sample.
  const rollout = [
    frame(
      `${SITE}/transformers/trainer.py`,
      2531,
      '_inner_training_loop',
      'tr_loss_step = self.training_step(model, inputs, num_items_in_batch)',
    ),
    frame(`${SITE}/transformers/trainer.py`, 3669, 'training_step', 'inputs = self._prepare_inputs(inputs)'),
    frame(
      `${SITE}/trl/trainer/grpo_trainer.py`,
      726,
      '_prepare_inputs',
      'inputs = self._generate_and_score_completions(inputs)',
    ),
    frame(
      `${SITE}/trl/trainer/grpo_trainer.py`,
      798,
      '_generate_and_score_completions',
      'prompt_completion_ids = unwrapped_model.generate(',
    ),
    frame(`${SITE}/transformers/generation/utils.py`, 2326, 'generate', 'result = self._sample('),
    frame(
      `${SITE}/transformers/generation/utils.py`,
      3277,
      '_sample',
      'outputs = self(**model_inputs, return_dict=True)',
    ),
    CALL_IMPL,
  ];

  it('an RL rollout’s generation is the step’s forward passes, not an evaluation', () => {
    expect(read(traceback(OOM, ...rollout))).toMatchObject({
      phase: 'forward',
      basis: 'traceback',
      reason: 'rollout-generation',
    });
    // OpenRLHF's experience maker: the same mechanism under other names.
    const openrlhf = traceback(
      OOM,
      frame(
        'openrlhf/trainer/ppo_trainer.py',
        210,
        'fit',
        'experience = self.experience_maker.make_experience(rand_prompts)',
      ),
      frame(
        'openrlhf/trainer/ppo_utils/experience_maker.py',
        300,
        'make_experience',
        'sequences, attention_mask = self.actor.generate(**inputs)',
      ),
      frame('openrlhf/models/actor.py', 120, 'generate', 'sequences = self.model.generate(**generate_args)'),
      frame(`${SITE}/transformers/generation/utils.py`, 3277, '_sample', 'outputs = self(**model_inputs)'),
    );
    expect(read(openrlhf)).toMatchObject({ phase: 'forward', reason: 'rollout-generation' });
  });

  it('generation called by an evaluation, or on its own, stays evaluation', () => {
    const predict = traceback(
      OOM,
      frame(`${SITE}/transformers/trainer.py`, 3000, 'evaluate', 'output = eval_loop('),
      frame(
        `${SITE}/transformers/trainer.py`,
        3150,
        'evaluation_loop',
        'losses, logits, labels = self.prediction_step(',
      ),
      frame(
        `${SITE}/transformers/trainer_seq2seq.py`,
        310,
        'prediction_step',
        'generated_tokens = self.model.generate(**generation_inputs)',
      ),
      frame(`${SITE}/transformers/generation/utils.py`, 2326, 'generate', 'result = self._sample('),
    );
    expect(read(predict)).toMatchObject({ phase: 'evaluation', reason: 'traced-frame' });
    const alone = traceback(
      OOM,
      frame('chat.py', 40, 'main', 'out = model.generate(**inputs, max_new_tokens=2048)'),
      frame(`${SITE}/transformers/generation/utils.py`, 2326, 'generate', 'result = self._sample('),
    );
    expect(read(alone)).toMatchObject({ phase: 'evaluation' });
  });

  it('TRL’s unwrap_model_for_generation is the policy generating in its step: forward, even cut off after the line', () => {
    // huggingface/trl #2250's shape: a custom RLOO loop's `train` opens the context and the paste ends there.
    const cut = traceback(
      OOM,
      frame('/export/scripts/training.py', 243, '<module>', 'trainer.train()'),
      frame(
        '/export/trainer/rloo.py',
        195,
        'train',
        'with torch.no_grad(), unwrap_model_for_generation(model, self.accelerator) as unwrapped_model:',
      ),
    );
    expect(read(cut)).toMatchObject({ phase: 'forward', reason: 'rollout-generation' });
    // The context's own frame under ZeRO-3, gathering every parameter (trl/models/utils.py).
    const gathered = traceback(
      OOM,
      frame(`${SITE}/trl/trainer/ppo_trainer.py`, 480, 'train', 'with unwrap_model_for_generation('),
      frame(
        `${SITE}/trl/models/utils.py`,
        190,
        'unwrap_model_for_generation',
        'with deepspeed.zero.GatheredParameters(',
      ),
      frame(
        `${SITE}/deepspeed/runtime/zero/partition_parameters.py`,
        2200,
        '__enter__',
        'self.params[0].all_gather(',
      ),
    );
    expect(read(gathered)).toMatchObject({ phase: 'forward', reason: 'rollout-generation' });
    // A win-rate callback generating under `evaluate` is an evaluation: that frame is read first.
    const judged = traceback(
      OOM,
      frame(
        `${SITE}/transformers/trainer.py`,
        3000,
        'evaluate',
        'self.control = self.callback_handler.on_evaluate(',
      ),
      frame(
        `${SITE}/trl/trainer/callbacks.py`,
        300,
        'on_evaluate',
        'with unwrap_model_for_generation(model, accelerator) as m:',
      ),
    );
    expect(read(judged)).toMatchObject({ phase: 'evaluation' });
  });
});

describe('the trainers’ own frames', () => {
  it('a serving engine reserving its KV cache at start-up is load (gensyn rl-swarm #314, Qwen #458)', () => {
    const text = [
      '[rank0]: Traceback (most recent call last):',
      ...[
        frame(`${SITE}/trl/trainer/grpo_trainer.py`, 404, '__init__', 'self.llm = LLM('),
        frame(`${SITE}/vllm/engine/llm_engine.py`, 276, '__init__', 'self._initialize_kv_caches()'),
        frame(
          `${SITE}/vllm/engine/llm_engine.py`,
          434,
          '_initialize_kv_caches',
          'self.model_executor.initialize_cache(num_gpu_blocks, num_cpu_blocks)',
        ),
        frame(`${SITE}/vllm/worker/worker.py`, 274, 'initialize_cache', 'self._init_cache_engine()'),
        frame(
          `${SITE}/vllm/worker/cache_engine.py`,
          103,
          '_allocate_kv_cache',
          'layer_kv_cache = torch.zeros(alloc_shape,',
        ),
      ]
        .join('\n')
        .split('\n')
        .map((l) => `[rank0]: ${l}`),
      `[rank0]: ${OOM}`,
    ].join('\n');
    expect(read(text)).toMatchObject({ phase: 'load', basis: 'traceback', reason: 'traced-frame' });
    // Qwen #458, copied from JupyterLab: each frame's path is a link.
    const jupyter = [
      'File [~/miniconda3/envs/qwen_env/lib/python3.11/site-packages/vllm/worker/cache_engine.py:49](http://10.0.0.1:8888/lab/tree/cache_engine.py#line=48), in CacheEngine.__init__(self, cache_config, model_config, parallel_config)',
      '---> 49 self.gpu_cache = self._allocate_kv_cache(self.num_gpu_blocks, "cuda")',
      'File [~/miniconda3/envs/qwen_env/lib/python3.11/site-packages/vllm/worker/cache_engine.py:64](http://10.0.0.1:8888/lab/tree/cache_engine.py#line=63), in CacheEngine._allocate_kv_cache(self, num_blocks, device)',
      '---> 64         torch.empty(kv_cache_shape,',
      'OutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB. GPU',
    ].join('\n');
    expect(read(jupyter)).toMatchObject({ phase: 'load', basis: 'traceback', reason: 'traced-frame' });
    // The engine serving requests is still its forward passes.
    const serving = traceback(
      OOM,
      frame(
        `${SITE}/vllm/worker/model_runner.py`,
        1700,
        'execute_model',
        'hidden_or_intermediate_states = model_executable(',
      ),
    );
    expect(read(serving).phase).toBe('forward');
  });

  it('clipping and unscaling the gradients is the optimizer step’s stage; DeepSpeed’s engine.step too', () => {
    const clip = traceback(
      OOM,
      frame(
        `${SITE}/transformers/trainer.py`,
        2570,
        '_inner_training_loop',
        '_grad_norm = self.accelerator.clip_grad_norm_(',
      ),
      frame(
        `${SITE}/accelerate/accelerator.py`,
        2396,
        'clip_grad_norm_',
        'return torch.nn.utils.clip_grad_norm_(parameters, max_norm, norm_type=norm_type)',
      ),
      frame(
        `${SITE}/torch/nn/utils/clip_grad.py`,
        220,
        '_get_total_norm',
        'norms.extend(torch._foreach_norm(device_tensors, norm_type))',
      ),
    );
    expect(read(clip)).toMatchObject({ phase: 'optimizer-step', reason: 'traced-frame' });
    const ds = traceback(
      OOM,
      frame(`${SITE}/deepspeed/runtime/engine.py`, 2213, 'step', 'self._take_model_step(lr_kwargs)'),
      frame(`${SITE}/deepspeed/runtime/engine.py`, 2119, '_take_model_step', 'self.optimizer.step()'),
    );
    expect(read(ds).phase).toBe('optimizer-step');
  });

  it('ZeRO’s gradient hooks run in backward, even in a paste cut below autograd', () => {
    const text = traceback(
      OOM,
      frame(
        `${SITE}/deepspeed/runtime/zero/stage_1_and_2.py`,
        1356,
        'reduce_ipg_grads',
        'self.average_tensor(self.ipg_buffer[self.ipg_index])',
      ),
      frame(
        `${SITE}/deepspeed/runtime/zero/stage_1_and_2.py`,
        1080,
        'average_tensor',
        'tensor.div_(dist.get_world_size(group=self.dp_process_group))',
      ),
    );
    expect(read(text)).toMatchObject({ phase: 'backward', reason: 'traced-frame' });
  });

  it('the loss and the log-probabilities a preference or RL trainer takes are the forward (TRL DPO, litgpt)', () => {
    const dpo = traceback(
      OOM,
      frame(
        `${SITE}/trl/trainer/dpo_trainer.py`,
        1400,
        'compute_loss',
        'loss, metrics = self.get_batch_loss_metrics(model, inputs)',
      ),
      frame(
        `${SITE}/trl/trainer/dpo_trainer.py`,
        1340,
        'get_batch_loss_metrics',
        'model_output = self.concatenated_forward(model, batch)',
      ),
      frame(`${SITE}/trl/trainer/dpo_trainer.py`, 1290, 'concatenated_forward', 'logits = logits.float()'),
    );
    expect(read(dpo)).toMatchObject({ phase: 'forward', reason: 'traced-frame' });
    const litgpt = traceback(
      OOM,
      frame(
        `${SITE}/litgpt/finetune/lora.py`,
        340,
        'fit',
        'loss = chunked_cross_entropy(logits, targets[..., 1:])',
      ),
      frame(
        `${SITE}/litgpt/utils.py`,
        310,
        'chunked_cross_entropy',
        'torch.nn.functional.cross_entropy(logit_chunk, target_chunk, ignore_index=ignore_index, reduction="none")',
      ),
    );
    expect(read(litgpt).phase).toBe('forward');
  });

  it('accelerate restoring a checkpoint is load; Lightning writing one is a save', () => {
    const restore = traceback(
      OOM,
      frame('train.py', 80, 'main', 'accelerator.load_state(args.resume_from_checkpoint)'),
      frame(`${SITE}/accelerate/accelerator.py`, 3100, 'load_state', 'load_accelerator_state('),
    );
    expect(read(restore).phase).toBe('load');
    const save = traceback(
      OOM,
      frame(
        `${SITE}/lightning/pytorch/trainer/connectors/checkpoint_connector.py`,
        440,
        'dump_checkpoint',
        'optimizer_state = trainer.strategy.optimizer_state(optimizer)',
      ),
    );
    expect(read(save).phase).toBe('checkpoint-save');
  });
});

describe('the words people write', () => {
  const bare = OOM;
  it('the call they name: optimizer.step(), loss.backward(), save_pretrained()', () => {
    expect(read(`${bare}\nIt always fails at optimizer.step() on the second GPU.`).phase).toBe(
      'optimizer-step',
    );
    expect(read(`${bare}\nThe error happens when calling loss.backward().`).phase).toBe('backward');
    expect(read(`I get this during backward:\n${bare}`).phase).toBe('backward');
    expect(
      read(`Training finished, then it crashed at trainer.model.save_pretrained(out_dir):\n${bare}`).phase,
    ).toBe('checkpoint-save');
    // "backward compatible" is not a phase.
    expect(read(`${bare}\nIs the new release in backward compatibility mode?`).phase).not.toBe('backward');
  });

  it('an epoch or a while ran, or memory kept growing: mid-run — unless negated', () => {
    expect(read(`${bare}\nThis happens after the first epoch.`).phase).toBe('mid-run');
    expect(read(`Training runs fine, but after a while:\n${bare}`).phase).toBe('mid-run');
    expect(read(`GPU memory keeps increasing every step until\n${bare}`).phase).toBe('mid-run');
    expect(read(`Looks like a memory leak:\n${bare}`).phase).toBe('mid-run');
    expect(read(`There is no memory leak here, it fails at once:\n${bare}`).phase).not.toBe('mid-run');
  });

  it('moving or initialising the model is load', () => {
    expect(read(`${bare}\nIt fails while moving the model to the GPU.`).phase).toBe('load');
    expect(read(`OOM during model initialization:\n${bare}`).phase).toBe('load');
  });

  it('the corpus’s worded cases keep their phase', () => {
    expect(read(caseText('semseg-60-validation')).phase).toBe('evaluation');
    expect(read(caseText('graf-6-slow-growth')).phase).toBe('mid-run');
    expect(read(caseText('llama-cookbook-45-save-1EB')).phase).toBe('checkpoint-save');
  });
});
