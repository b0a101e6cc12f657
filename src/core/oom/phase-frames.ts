/**
 * The phase a traceback's frames name. A frame is on the stack only while its function runs, so a
 * frame of `evaluation_loop`, `save_pretrained` or `_multi_tensor_adamw` says the allocation that failed
 * happened inside it (data/docs/MONITORING.md, "Rules the corpus suggests" 3). Signs are function names
 * (exact), files (a frame anywhere in torch/autograd, transformers/generation …), code lines the
 * traceback printed, and the words of user functions (`evaluate_predictions`, `run_validation`). Two
 * nestings turn the plain precedence around: an optimizer that calls a closure runs the forward and
 * backward inside its step (CLOSURE_FRAMES), and a training step that generates is a rollout, not an
 * evaluation (ROLLOUT_FRAMES).
 */
import type { LogEntry } from './traceback.js';

export type FramePhase =
  | 'checkpoint-save'
  | 'evaluation'
  | 'load'
  | 'optimizer-step'
  | 'backward'
  | 'forward';

export type FrameReason =
  | 'traced-frame'
  | 'traced-file'
  | 'traced-code'
  | 'traced-text'
  | 'named-function'
  | 'rollout-generation';

interface Sign {
  /** Function names of frames (exact). */
  readonly frames?: readonly string[];
  /** A frame's file path. */
  readonly files?: RegExp;
  /** A frame's name when its file also matches. */
  readonly framesInFiles?: { readonly names: readonly string[]; readonly file: RegExp };
  /** Source code the traceback printed (lines under a frame, IPython `-->` lines, indented calls). */
  readonly code?: RegExp;
  /** Words of any line (warnings that name the phase). */
  readonly text?: RegExp;
}

/**
 * Signatures per phase; the first phase in this list that any entry matches wins, so an outer context
 * (evaluation, a save) beats the forward pass it runs, and the optimizer step beats backward.
 */
const SIGNS: readonly (readonly [FramePhase, Sign])[] = [
  [
    'checkpoint-save',
    {
      frames: [
        'save_pretrained',
        'save_model',
        '_save',
        '_save_checkpoint',
        'save_checkpoint',
        'save_state',
        '_save_optimizer_and_scheduler',
        'save_16bit_model',
        '_save_zero_checkpoint',
        'save_model_and_optimizer_sharded',
        'save_model_checkpoint',
        'save_fsdp_model',
        'save_fsdp_optimizer',
        'state_dict',
        '_save_to_state_dict', // nn.Module.state_dict() visiting each module (bitsandbytes overrides it)
        'get_peft_model_state_dict',
        'full_state_dict',
        'consolidate_state_dict',
        '_full_post_state_dict_hook',
        'full_optim_state_dict',
        'get_state_dict',
        'dump_checkpoint', // Lightning's checkpoint connector gathering what save_checkpoint writes
        '_zero3_consolidated_16bit_state_dict', // DeepSpeed gathering ZeRO-3 shards to save 16-bit weights
      ],
      // torch/serialization.py's save() and its helpers.
      framesInFiles: { names: ['save', '_save', '_legacy_save'], file: /torch\/serialization\.py$/ },
      code: /\b(?:torch\.save|save_pretrained|save_checkpoint|save_model|save_state|full_optim_state_dict)\s*\(|(?<![\w.]load_)(?<!_load)\bstate_dict\s*\(/,
      // FSDP warns instead of raising when a parameter cannot be cloned into the state dict.
      text: /\bFailed\s+to\s+clone\(\)\s+tensor/,
    },
  ],
  [
    'evaluation',
    {
      frames: [
        'evaluate',
        '_evaluate',
        'evaluation_loop',
        'prediction_loop',
        'prediction_step',
        'predict',
        'predict_step', // Lightning's prediction hook
        'validate',
        'validation_step',
        'validation_epoch_end',
        'test_step',
        'eval_step',
        '_run_eval',
        'run_evaluation',
        'eval_loop',
        'validation_loop',
        '_run_sanity_check', // Lightning's sanity check: validation steps before the first training step
        'nested_concat',
        '_nested_gather',
        'gather_for_metrics', // accelerate: gathering predictions across ranks to score them
      ],
      // Any frame of Lightning's evaluation/prediction loops.
      files: /\/loops\/(?:epoch\/|dataloader\/)?(?:evaluation|prediction)_(?:epoch_)?loop\.py$/,
      code: /(?:\b|\.)(?:evaluate|validate|predict|evaluation_loop|prediction_step)\s*\(/,
    },
  ],
  [
    // Building the optimizer allocates its states (ZeRO's fp32 master partitions, DeepSpeed's optimizer
    // states): inside deepspeed.initialize, which the load sign would otherwise claim.
    'optimizer-step',
    {
      frames: [
        '_configure_optimizer',
        '_configure_zero_optimizer',
        'initialize_optimizer_states',
        '_create_fp32_partitions',
        '_setup_for_real_optimizer',
      ],
      framesInFiles: { names: ['__init__'], file: /zero\/stage(?:3|_1_and_2)\.py$/ },
    },
  ],
  [
    'load',
    {
      frames: [
        'from_pretrained',
        '_load_pretrained_model',
        '_load_state_dict_into_meta_model',
        'load_state_dict',
        '_load_from_state_dict',
        '_load_from_checkpoint',
        '_load_best_model', // HF Trainer, load_best_model_at_end
        'load_sharded_checkpoint',
        '_load_optimizer_and_scheduler',
        '_move_model_to_device',
        'load_checkpoint_and_dispatch',
        'load_checkpoint_in_model',
        'dispatch_model',
        'set_module_tensor_to_device',
        'load_model',
        'load_checkpoint',
        '_load_checkpoint',
        'load_file', // safetensors.torch.load_file
        'load_weights', // vLLM and many model classes
        '_apply', // nn.Module.to() / .cuda() / .half() moving every parameter
        'load_state', // accelerate's Accelerator.load_state: a checkpoint's model and optimizer back on the card
        'prepare_model', // accelerate placing the model on its device
        '_load_zero_checkpoint', // DeepSpeed restoring ZeRO optimizer partitions
        'load_module_state_dict',
        // A serving engine reserves its KV cache once, at start-up, after the weights (vLLM: CacheEngine,
        // the workers' initialize_cache): memory taken before any request runs.
        '_initialize_kv_caches',
        'initialize_cache',
        '_init_cache_engine',
        '_allocate_kv_cache',
        'initialize_kv_cache',
      ],
      // torch.load and its unpickler's storage restore; torch.cuda's lazy initialisation, on the stack
      // only for a process's first CUDA call (the context is created then).
      framesInFiles: {
        names: [
          'load',
          '_load',
          'persistent_load',
          'restore_location',
          'default_restore_location',
          '_lazy_init',
          '_lazy_new',
        ],
        file: /torch\/(?:serialization|cuda\/__init__)\.py$/,
      },
      // torch's own lines of nn.Module.to()/.cuda()/.half() (torch/nn/modules/module.py: `convert`'s
      // `return t.to(device, dtype if t.is_floating_point() …`, and `return self._apply(…)`), printed
      // under their frames or alone where a paste cut the frame off: every parameter moving to the card.
      text: /\breturn\s+t\.to\(\s*device,\s*dtype\s+if\s+t\.is_floating_point\(\)|\breturn\s+self\._apply\(/,
      code: /\.from_pretrained\s*\(|\b(?:_move_model_to_device|dispatch_model|load_checkpoint_and_dispatch)\s*\(|\bload_state_dict\s*\(|\btorch\.load\s*\(|\b(?:model|module|net|pipe|pipeline|unet|vae|encoder|decoder|llm|teacher|student|ref_model|reward_model)\w*\.(?:to|cuda|half|bfloat16)\s*\(|\b(?:accelerator\.prepare|deepspeed\.initialize)\s*\(/i,
    },
  ],
  [
    'optimizer-step',
    {
      frames: [
        '_multi_tensor_adam',
        '_multi_tensor_adamw',
        '_single_tensor_adam',
        '_single_tensor_adamw',
        '_fused_adam',
        '_fused_adamw',
        '_multi_tensor_sgd',
        '_single_tensor_sgd',
        '_init_group',
        'optimizer_step',
        '_optimizer_step',
        'optimizer_update_8bit',
        'optimizer_update_8bit_blockwise',
        'optimizer_update_32bit',
        '_take_model_step', // DeepSpeed's engine.step()
        // Unscaling and clipping run on every gradient after backward and right before the update, with
        // the optimizer's states on the card from the second step on: the optimizer step's stage.
        'unscale_',
        '_unscale_grads_',
        'clip_grad_norm_',
        '_get_total_norm',
        '_clip_grads_with_norm_',
      ],
      framesInFiles: { names: ['step', 'adam', 'adamw', 'wrapper'], file: /optim|optimizer|zero\/stage/ },
      code: /\b(?:optimizer|optim|opt|scaler|self\.optimizer)\.step\s*\(|\bexp_avg(?:_sq)?\b|\b_foreach_(?:sqrt|addcdiv|addcmul|lerp)\b|\boptimizer_step\s*\(/,
    },
  ],
  [
    'backward',
    {
      frames: [
        'backward',
        '_engine_run_backward',
        'run_backward',
        '_post_backward_hook',
        '_pre_backward_hook',
        'recompute_fn',
        'unpack_hook',
        // ZeRO's gradient hooks fire as backward produces each gradient (stage_1_and_2.py, stage3.py):
        // bucketing, reducing and partitioning it.
        'reduce_ipg_grads',
        'reduce_independent_p_g_buckets_and_remove_grads',
        'reduce_partition_and_remove_grads',
        'reduce_ready_partitions_and_remove_grads',
        '__reduce_and_partition_ipg_grads',
        'average_tensor',
        'allreduce_gradients',
      ],
      // The autograd engine's entry points. Not torch/autograd/grad_mode.py: its decorate_context wraps
      // functions under torch.no_grad(), the opposite of a backward pass.
      files: /torch\/autograd\/(?:__init__|graph)\.py$/,
      // The engine's entry line in torch/autograd/graph.py and __init__.py, printed under its frame or
      // alone where a paste cut the frame off.
      text: /\bVariable\._execution_engine\.run_backward\s*\(/,
      code: /\.backward\s*\(|\bbackward\s*\(\s*loss\b|fetch_sub_module\([^)\n]*forward\s*=\s*False|\bautograd\.grad\s*\(/,
    },
  ],
  [
    'forward',
    {
      frames: [
        'forward',
        '_forward',
        '_call_impl',
        '_wrapped_call_impl',
        'pre_sub_module_forward_function',
        '_pre_forward',
        'common_ksampler', // ComfyUI's sampling node
        // The loss and what it is computed from, at the end of the forward (a backward inside these
        // frames reads first: the signs above come first): the trainers' step and loss functions (HF
        // Trainer, Lightning, TRL, torchtune, litgpt) and the per-token log-probabilities RL and
        // preference trainers take of the logits.
        'training_step',
        'compute_loss',
        '_compute_loss',
        '_loss_step',
        'chunked_cross_entropy',
        'cross_entropy',
        'concatenated_forward',
        'get_batch_logps',
        '_get_per_token_logps',
        'selective_log_softmax',
        'compute_log_probs',
        'log_probs_from_logits',
        'logprobs_from_logits',
      ],
      // Diffusion samplers and pipelines run the model forward only (inference): k-diffusion, ComfyUI,
      // A1111's processing, diffusers pipelines. (A pipeline called from a training script's
      // `log_validation` is evaluation: that name is read first.)
      // vLLM's engine and workers serve requests: forward passes (its weight loading is read above).
      files:
        /[\\/]k_diffusion[\\/]sampling\.py$|[\\/]comfy[\\/](?:samplers|sample|sd)\.py$|[\\/]modules[\\/](?:processing|sd_samplers\w*)\.py$|[\\/]diffusers[\\/]pipelines[\\/]|[\\/]vllm[\\/](?:worker|v1[\\/]worker|model_executor|engine|v1[\\/]engine)[\\/]/,
      // ZeRO-3 gathers parameters right before each module runs (deepspeed partitioned_param_coordinator);
      // a line that calls the model (`outputs = model(**inputs)`, `self.state.model(batch)`) is its forward.
      code: /fetch_sub_module\s*\(|\b_?all_gather\w*\s*\(|\bpartitioned_param_coordinator\b|\b(?:model|module|net|network|unet|transformer|llm)\w*\s*\(/,
    },
  ],
  [
    // A constructor on the stack with nothing more specific: an object being built allocates on the card
    // (a model created on the device, a library loading its weights: faster-whisper's WhisperModel).
    'load',
    { frames: ['__init__'] },
  ],
];

/**
 * Generation (transformers/generation/utils.py and its older names): decoding step by step. It is read
 * right after the evaluation sign, in its place of precedence: generating is evaluating (predict with
 * generate, a validation that samples) unless a training step is outside it (ROLLOUT_FRAMES).
 */
const GENERATION: Sign = {
  frames: [
    'generate',
    'greedy_search',
    '_greedy_search',
    'beam_search',
    '_beam_search',
    'beam_sample',
    '_beam_sample',
    'group_beam_search',
    '_group_beam_search',
    'constrained_beam_search',
    '_constrained_beam_search',
    'contrastive_search',
    '_contrastive_search',
    'assisted_decoding',
    '_assisted_decoding',
  ],
  files: /\/transformers\/generation\//,
  code: /(?:\b|\.)generate\s*\(/,
};

/**
 * A training step around a generation: RL and online-preference trainers sample completions inside the
 * step (TRL's GRPO/RLOO/online DPO `training_step` → `_generate_and_score_completions`, OpenRLHF's
 * `make_experience`, verl's `generate_sequences`), so the generation is the step's forward passes
 * (without grad, the KV cache growing with the completion), not an evaluation.
 */
const ROLLOUT_FRAMES: readonly string[] = [
  'training_step',
  '_generate_and_score_completions',
  'make_experience',
  'make_experience_list',
  'generate_sequences',
];

/**
 * TRL's context for generating with the policy being trained (trl/models/utils.py,
 * `unwrap_model_for_generation`, trl 0.9–main): its online trainers (PPO, RLOO, GRPO, online DPO) open it
 * inside the training step, and under DeepSpeed ZeRO-3 it gathers every parameter
 * (`deepspeed.zero.GatheredParameters(model.parameters())`) for the whole generation. A frame of it or a
 * line opening it is a rollout wherever it is called from, unless an evaluation frame came first (its
 * evaluation callbacks run under `evaluate`, which the evaluation sign reads before this).
 */
const ROLLOUT_CONTEXT: Sign = {
  frames: ['unwrap_model_for_generation'],
  code: /\bunwrap_model_for_generation\s*\(/,
};

/**
 * An optimizer that takes a closure calls it from inside its step: Lightning's automatic optimization
 * (`optimizer_step` → torch's `step` → `closure()` → `_wrap_closure` → `training_step`), LBFGS. Frames
 * below the closure are its forward and backward; the update has not begun, so the optimizer frames
 * above it do not place the failure (mamba #112's hyena-dna traceback is the shape).
 */
const CLOSURE_FRAMES: readonly string[] = ['closure', '_wrap_closure', 'train_step_and_backward_closure'];
const CLOSURE_CODE = /^\s*(?:\w+\s*=\s*)?closure\s*\(\s*\)/;

/** The index of the innermost closure frame (or code line calling it), or -1. */
function closureAt(entries: readonly LogEntry[]): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.frame ? CLOSURE_FRAMES.includes(e.frame.name) : e.isCode && CLOSURE_CODE.test(e.text)) return i;
  }
  return -1;
}

/** Words of a function name: `evaluate_predictions` → evaluate, predictions; `runValidation` → run, validation. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}

/** Words that name evaluation in a function or script name (not "predict": Cog's predict.py serves). */
export const EVALUATION_WORDS: ReadonlySet<string> = new Set([
  'eval',
  'evaluate',
  'evaluation',
  'evaluating',
  'validate',
  'validation',
  'validating',
  'val',
  'test',
  'testing',
]);
/** Words that make a name ambiguous (`_maybe_log_save_evaluate`, `train_and_eval`). */
const OTHER_PHASE_WORDS: ReadonlySet<string> = new Set(['save', 'train', 'training', 'fit']);
/** Test runners' frames (pytest, unittest) are not evaluation. */
const TEST_RUNNER_FILE = /\/(?:_pytest|unittest|pluggy)\//;

/** A name that says evaluation and nothing else. */
export function saysEvaluation(words: readonly string[]): boolean {
  return words.some((w) => EVALUATION_WORDS.has(w)) && !words.some((w) => OTHER_PHASE_WORDS.has(w));
}

function matchSign(entry: LogEntry, sign: Sign): FrameReason | null {
  if (entry.frame) {
    if (sign.frames?.includes(entry.frame.name)) return 'traced-frame';
    const inFiles = sign.framesInFiles;
    if (inFiles?.names.includes(entry.frame.name) && inFiles.file.test(entry.frame.file))
      return 'traced-frame';
    if (sign.files?.test(entry.frame.file)) return 'traced-file';
    return null;
  }
  if (entry.isCode && sign.code?.test(entry.text)) return 'traced-code';
  if (sign.text?.test(entry.text)) return 'traced-text';
  return null;
}

export interface FrameReading {
  readonly phase: FramePhase;
  readonly entry: LogEntry;
  readonly reason: FrameReason;
}

/** The first entry from `from` on that matches the sign, with its index. */
function firstMatch(
  entries: readonly LogEntry[],
  sign: Sign,
  from = 0,
): { index: number; reason: FrameReason } | null {
  for (let i = from; i < entries.length; i++) {
    const reason = matchSign(entries[i]!, sign);
    if (reason) return { index: i, reason };
  }
  return null;
}

/** The phase the traceback's frames and code point at, by the precedence of SIGNS. */
export function phaseFromFrames(entries: readonly LogEntry[]): FrameReading | null {
  const closure = closureAt(entries);
  for (const [phase, sign] of SIGNS) {
    const hit = firstMatch(entries, sign, phase === 'optimizer-step' ? closure + 1 : 0);
    if (hit) return { phase, entry: entries[hit.index]!, reason: hit.reason };
    if (phase === 'evaluation') {
      const context = firstMatch(entries, ROLLOUT_CONTEXT);
      if (context) return { phase: 'forward', entry: entries[context.index]!, reason: 'rollout-generation' };
      const gen = firstMatch(entries, GENERATION);
      if (gen) {
        const outer = entries
          .slice(0, gen.index)
          .some((e) => e.frame && ROLLOUT_FRAMES.includes(e.frame.name));
        return outer
          ? { phase: 'forward', entry: entries[gen.index]!, reason: 'rollout-generation' }
          : { phase, entry: entries[gen.index]!, reason: gen.reason };
      }
      // A user's function whose name says evaluation (`evaluate_predictions`, `eval_completion_with_gt`).
      const named = entries.find(
        (e) => e.frame && !TEST_RUNNER_FILE.test(e.frame.file) && saysEvaluation(nameWords(e.frame.name)),
      );
      if (named) return { phase, entry: named, reason: 'named-function' };
    }
  }
  return null;
}

/**
 * The script a traceback starts in, when its name says evaluation (`eval.py`, `test.py`,
 * `validate_model.py`): the run is an evaluation, whatever forward pass failed in it.
 */
export function evaluationScript(entries: readonly LogEntry[]): LogEntry | null {
  const first = entries.find((e) => e.frame !== null);
  if (!first?.frame) return null;
  const base = first.frame.file.split(/[\\/]/).pop() ?? '';
  return saysEvaluation(nameWords(base.replace(/\.py$/, ''))) ? first : null;
}
