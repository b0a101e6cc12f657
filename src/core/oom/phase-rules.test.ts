/**
 * Each phase rule on a real case (the corpus, the nvidia-smi samples, or a public report named in the
 * test) and on a variant built in code that shares the mechanism but not the wording: the rule
 * explains a class of reports, not one text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../test/data.js';
import { findOomMessages } from './find-oom-messages.js';
import { findPrimaryOom } from './parse-oom-message.js';
import { detectPhase } from './phase.js';
import { readProcesses } from './phase-bytes.js';

const read = (text: string) => detectPhase(text, findPrimaryOom(text), findOomMessages(text));
const data = (...parts: string[]) => readFileSync(join(REPO_ROOT, 'data', 'validation', ...parts), 'utf8');
const corpus: ReadonlyMap<string, string> = new Map(
  data('oom_corpus.jsonl')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; text: string })
    .map((c) => [c.id, c.text] as const),
);
const caseText = (id: string) => corpus.get(id)!;
/** A real report outside the shared corpus (bench/data/oom-unseen.jsonl), by its id. */
const unseenCase = (id: string): string =>
  readFileSync(join(REPO_ROOT, 'bench', 'data', 'oom-unseen.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; text: string })
    .find((c) => c.id === id)!.text;
const smi = (file: string) => data('nvidia-smi', file);

/** A PyTorch 2.x message with the given clauses. */
function v2(p: {
  request: string;
  total: string;
  free: string;
  procs?: string;
  allocated: string;
  reserved: string;
}): string {
  return `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ${p.request}. GPU 0 has a total capacity of ${p.total} of which ${p.free} is free. ${p.procs ?? ''}Of the allocated memory ${p.allocated} is allocated by PyTorch, and ${p.reserved} is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.`;
}
const frame = (file: string, line: number, name: string, code: string) =>
  `  File "${file}", line ${line}, in ${name}\n    ${code}`;
const SITE = '/usr/local/lib/python3.10/dist-packages';
const traceback = (oom: string, ...frames: string[]) =>
  `Traceback (most recent call last):\n${frames.join('\n')}\n${oom}`;
const FULL = v2({
  request: '64.00 MiB',
  total: '23.65 GiB',
  free: '18.00 MiB',
  procs: 'Including non-PyTorch memory, this process has 23.60 GiB memory in use. ',
  allocated: '22.90 GiB',
  reserved: '200.00 MiB',
});

describe('whose memory fills the card', () => {
  it('a "Process N" that dwarfs what PyTorch holds is another program, not this one (issue #20)', () => {
    // As issue #20 describes a held-out report: 30.51 GiB held by a process while PyTorch has 594 MiB.
    const text = `[rank0]: step 12 loss 1.9\n[rank1]: step 12 loss 1.9\n[rank0]: ${v2({
      request: '20.00 MiB',
      total: '31.73 GiB',
      free: '2.56 MiB',
      procs: 'Process 441650 has 30.51 GiB memory in use. Process 441702 has 1.20 GiB memory in use. ',
      allocated: '594.00 MiB',
      reserved: '42.00 MiB',
    })}`;
    const m = findPrimaryOom(text)!;
    expect(readProcesses(m).own?.pid).toBe(441702);
    expect(read(text)).toMatchObject({
      phase: 'other-process',
      basis: 'processes',
      reason: 'foreign-process',
    });
  });

  it('…and a "this process" line beside a larger "Process N" says the same in other words', () => {
    const text = v2({
      request: '576.00 MiB',
      total: '31.36 GiB',
      free: '370.69 MiB',
      procs:
        'Process 16335 has 25.34 GiB memory in use. Including non-PyTorch memory, this process has 5.55 GiB memory in use. ',
      allocated: '4.89 GiB',
      reserved: '77.08 MiB',
    });
    expect(read(text)).toMatchObject({ phase: 'other-process', reason: 'foreign-process' });
  });

  it('a "Process N" the size of PyTorch’s reserve is this process in a container (kaito #976)', () => {
    const m = findPrimaryOom(caseText('kaito-976-private-pools'))!;
    expect(readProcesses(m)).toMatchObject({ own: { pid: 562167 }, foreign: [] });
    expect(read(caseText('kaito-976-private-pools')).phase).toBe('forward');
  });

  it('another job beats the traceback: any step would have failed', () => {
    const oom = v2({
      request: '1.00 GiB',
      total: '79.15 GiB',
      free: '300.00 MiB',
      procs:
        'Process 7 has 41.00 GiB memory in use. Including non-PyTorch memory, this process has 37.80 GiB memory in use. ',
      allocated: '36.00 GiB',
      reserved: '1.00 GiB',
    });
    const text = traceback(oom, frame(`${SITE}/torch/autograd/graph.py`, 768, '_engine_run_backward', 'x'));
    expect(read(text)).toMatchObject({ phase: 'other-process', reason: 'foreign-process' });
  });

  it('another process too small for the request to have fit without it does not decide', () => {
    const text = v2({
      request: '8.00 GiB',
      total: '79.15 GiB',
      free: '100.00 MiB',
      procs:
        'Process 7 has 2.00 GiB memory in use. Including non-PyTorch memory, this process has 77.00 GiB memory in use. ',
      allocated: '75.00 GiB',
      reserved: '1.00 GiB',
    });
    expect(read(text).phase).not.toBe('other-process');
  });

  it('used memory that neither this process nor a listed one holds belongs to processes NVML cannot list', () => {
    const text = v2({
      request: '24.00 MiB',
      total: '94.97 GiB',
      free: '16.88 MiB',
      procs:
        'Process 560 has 7.95 GiB memory in use. Including non-PyTorch memory, this process has 11.93 GiB memory in use. ',
      allocated: '11.24 GiB',
      reserved: '14.48 MiB',
    });
    expect(read(text)).toMatchObject({ phase: 'other-process', reason: 'memory-outside-processes' });
    const own = v2({
      request: '2.00 GiB',
      total: '39.39 GiB',
      free: '1.10 GiB',
      procs: 'Process 880 has 30.10 GiB memory in use. ',
      allocated: '22.00 GiB',
      reserved: '7.60 GiB',
    });
    expect(read(own)).toMatchObject({ phase: 'other-process', reason: 'memory-outside-processes' });
  });

  it('with no process listed, used memory far beyond PyTorch’s is another program’s (ResidualMaskingNetwork #15)', () => {
    // 996 MiB allocated, 1010 MiB reserved, 8.81 MiB free of 10.76 GiB: 9.7 GiB held outside PyTorch.
    const v1 =
      'RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 10.76 GiB total capacity; 996.23 MiB already allocated; 8.81 MiB free; 1010.00 MiB reserved in total by PyTorch)';
    expect(read(v1)).toMatchObject({
      phase: 'other-process',
      basis: 'numbers',
      reason: 'memory-outside-torch',
    });
    const v2NoNvml = v2({
      request: '1.00 GiB',
      total: '47.50 GiB',
      free: '200.00 MiB',
      allocated: '20.00 GiB',
      reserved: '1.00 GiB',
    });
    expect(read(v2NoNvml).reason).toBe('memory-outside-torch');
    // The corpus's own-memory cases stay with PyTorch's figures: lerf #73 holds 3.9 GiB outside PyTorch.
    expect(read(caseText('lerf-73-reserved')).phase).toBe('unknown');
  });

  it('small processes are other ranks’ contexts when there are several, or when ranks are evident', () => {
    const one = (prefix: string) =>
      `${prefix}${v2({
        request: '2.00 GiB',
        total: '79.15 GiB',
        free: '1.00 GiB',
        procs:
          'Including non-PyTorch memory, this process has 77.00 GiB memory in use. Process 3101 has 600.00 MiB memory in use. ',
        allocated: '70.00 GiB',
        reserved: '6.00 GiB',
      })}`;
    expect(read(one('')).reason).not.toBe('rank-contexts');
    expect(read(`LOCAL_RANK=0 WORLD_SIZE=2\n${one('')}`)).toMatchObject({
      phase: 'multi-gpu-imbalance',
      reason: 'rank-contexts',
    });
    expect(read(one('[rank0]: '))).toMatchObject({ phase: 'multi-gpu-imbalance', reason: 'rank-contexts' });
  });
});

describe('PyTorch’s own figures', () => {
  it('"0 bytes is allocated by PyTorch": the first allocation, at load', () => {
    // OOTDiffusion #167: a 2 GiB request on a 4 GiB card, nothing allocated yet.
    const ootd =
      'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacty of 4.00 GiB of which 2.80 GiB is free. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.';
    expect(read(ootd)).toMatchObject({ phase: 'load', basis: 'numbers', reason: 'nothing-allocated' });
    // The same in the 1.x layout, even with the card full: PyTorch has not placed a tensor yet.
    const v1 =
      'RuntimeError: CUDA out of memory. Tried to allocate 50.00 MiB (GPU 0; 5.80 GiB total capacity; 0 bytes already allocated; 12.00 MiB free; 0 bytes reserved in total by PyTorch)';
    expect(read(v1)).toMatchObject({ phase: 'load', reason: 'nothing-allocated' });
  });

  it('"more than 1EB" is a corrupted size in a running job (NCCL #1284), unless the words place it', () => {
    expect(read(caseText('nccl-1284-1EB'))).toMatchObject({ phase: 'mid-run', reason: 'request-unbounded' });
    const ranked =
      '[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.';
    expect(read(ranked)).toMatchObject({ phase: 'mid-run', reason: 'request-unbounded' });
    expect(read(caseText('llama-cookbook-45-save-1EB')).phase).toBe('checkpoint-save');
  });

  it('a cache several times the request builds over many steps, unless the words say first step', () => {
    expect(read(caseText('pt-152135-hours-in')).reason).toBe('fragmented-cache');
    const fragmented = v2({
      request: '512.00 MiB',
      total: '39.39 GiB',
      free: '300.00 MiB',
      procs: 'Including non-PyTorch memory, this process has 39.00 GiB memory in use. ',
      allocated: '30.00 GiB',
      reserved: '8.40 GiB',
    });
    expect(read(fragmented)).toMatchObject({ phase: 'mid-run', reason: 'fragmented-cache' });
    expect(read(`It fails at the first step.\n${fragmented}`).reason).not.toBe('fragmented-cache');
  });

  it('a card with room for the request says nothing of how it filled — unless a memory cap explains the room', () => {
    // taggui #188: 2.35 GiB free for a 20 MiB request; the figures place nothing.
    expect(read(caseText('taggui-188-expandable'))).toMatchObject({ phase: 'unknown', reason: null });
    const room = (procs: string) =>
      v2({
        request: '512.00 MiB',
        total: '79.15 GiB',
        free: '40.00 GiB',
        procs,
        allocated: '30.00 GiB',
        reserved: '8.40 GiB',
      });
    const own = 'Including non-PyTorch memory, this process has 39.00 GiB memory in use. ';
    expect(read(room(own)).phase).toBe('unknown');
    // set_per_process_memory_fraction: the cap, not the card, was full; the cache reads as before.
    expect(read(room(`${own}39.00 GiB allowed; `))).toMatchObject({
      phase: 'mid-run',
      reason: 'fragmented-cache',
    });
  });

  it('one giant request, nothing cached, a full card', () => {
    expect(read(caseText('replacer-74-wddm')).reason).toBe('single-huge-request');
    const huge = v2({
      request: '12.00 GiB',
      total: '39.39 GiB',
      free: '6.00 GiB',
      allocated: '30.00 GiB',
      reserved: '600.00 MiB',
    });
    expect(read(huge)).toMatchObject({ phase: 'forward', reason: 'single-huge-request' });
    const loading = v2({
      request: '256.00 MiB',
      total: '15.77 GiB',
      free: '100.00 MiB',
      allocated: '14.80 GiB',
      reserved: '512.00 KiB',
    });
    expect(read(loading)).toMatchObject({ phase: 'load', reason: 'nothing-cached' });
    expect(read(FULL)).toMatchObject({ phase: 'forward', reason: 'card-full' });
  });
});

describe('traceback frames', () => {
  it('generation frames of transformers are evaluation, even when the paste starts below generate()', () => {
    const gen = traceback(
      FULL,
      frame(`${SITE}/transformers/generation/utils.py`, 3254, '_sample', 'outputs = self(**model_inputs)'),
      frame(`${SITE}/torch/nn/modules/module.py`, 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
    );
    expect(read(gen)).toMatchObject({ phase: 'evaluation', basis: 'traceback', reason: 'traced-file' });
    // oobabooga/text-generation-webui #4557: beam sampling of the older generation API.
    const beam = traceback(
      FULL,
      frame(
        `C:\\env\\site-packages\\transformers\\generation\\utils.py`,
        3417,
        'beam_sample',
        'outputs = self(',
      ),
    );
    expect(read(beam)).toMatchObject({ phase: 'evaluation', reason: 'traced-frame' });
    // A diffusion sampler's `sample` is inference, not generation's `_sample`.
    const diffusion = traceback(
      FULL,
      frame('ComfyUI/nodes.py', 1271, 'sample', 'return common_ksampler(model, noise_seed, steps)'),
      frame(`${SITE}/torch/nn/modules/module.py`, 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
    );
    expect(read(diffusion).phase).toBe('forward');
  });

  it('a user’s function named for evaluation is evaluation (czsl #7), whatever it is called', () => {
    const czsl = traceback(
      'RuntimeError: CUDA out of memory. Tried to allocate 4.18 GiB (GPU 0; 10.92 GiB total capacity; 4.68 GiB already allocated; 2.44 GiB free; 7.85 GiB reserved in total by PyTorch)',
      frame('train.py', 108, 'main', 'test(epoch, image_extractor, model, testloader, evaluator_val)'),
      frame(
        'train.py',
        193,
        'test',
        'stats = evaluator.evaluate_predictions(results, all_attr_gt, all_obj_gt, all_pair_gt)',
      ),
      frame('models/common.py', 489, 'evaluate_predictions', 'results = self.score_fast_model(scores)'),
    );
    expect(read(czsl)).toMatchObject({ phase: 'evaluation', reason: 'named-function' });
    const camel = traceback(FULL, frame('lib/runner.py', 40, 'runValidationEpoch', 'out = net(batch)'));
    expect(read(camel)).toMatchObject({ phase: 'evaluation', reason: 'named-function' });
    // HF's _maybe_log_save_evaluate names both a save and an evaluation: the frames inside it decide.
    const ambiguous = traceback(
      FULL,
      frame(
        `${SITE}/transformers/trainer.py`,
        2279,
        '_maybe_log_save_evaluate',
        'self._save_checkpoint(model)',
      ),
      frame(`${SITE}/transformers/trainer.py`, 3105, '_save_checkpoint', 'self.save_model(output_dir)'),
    );
    expect(read(ambiguous).phase).toBe('checkpoint-save');
  });

  it('a forward pass in a script named for evaluation is evaluation (shape-inversion #12)', () => {
    const text = traceback(
      'RuntimeError: CUDA out of memory. Tried to allocate 4.69 GiB (GPU 0; 11.77 GiB total capacity; 29.38 MiB already allocated; 3.85 GiB free; 40.00 MiB reserved in total by PyTorch)',
      frame('eval_completion.py', 202, '<module>', 'eval_completion_with_gt(args.saved_results_path)'),
      frame('eval_completion.py', 160, 'eval_completion_with_gt', 'cd = compute_4_metrics(gt, out)'),
    );
    expect(read(text).phase).toBe('evaluation');
    const test = traceback(
      FULL,
      frame('test.py', 88, '<module>', 'main()'),
      frame('test.py', 70, 'main', 'pred = model(img)'),
      frame(`${SITE}/torch/nn/modules/module.py`, 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
    );
    expect(read(test)).toMatchObject({ phase: 'evaluation', reason: 'evaluation-script' });
    const train = traceback(
      FULL,
      frame('train_and_eval.py', 88, '<module>', 'main()'),
      frame(`${SITE}/torch/nn/modules/module.py`, 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
    );
    expect(read(train).phase).toBe('forward');
  });

  it('a torch.no_grad() decorator frame is not backward (tabr #8)', () => {
    const oom =
      'RuntimeError: CUDA out of memory. Tried to allocate 2.25 GiB (GPU 0; 11.17 GiB total capacity; 5.74 GiB already allocated; 2.04 GiB free; 7.13 GiB reserved in total by PyTorch)';
    const noGrad = frame(
      `${SITE}/torch/autograd/grad_mode.py`,
      27,
      'decorate_context',
      'return func(*args, **kwargs)',
    );
    const tabr = traceback(
      oom,
      frame('bin/tabr.py', 592, 'main', 'metrics, predictions, eval_batch_size = evaluate('),
      noGrad,
      frame('bin/tabr.py', 537, 'evaluate', 'if not lib.is_oom_exception(err):'),
    );
    expect(read(tabr).phase).toBe('evaluation');
    const inference = traceback(
      oom,
      frame('serve.py', 40, 'handle', 'return run(batch)'),
      noGrad,
      frame(`${SITE}/torch/nn/modules/module.py`, 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
    );
    expect(read(inference)).toMatchObject({ phase: 'forward', reason: 'traced-frame' });
  });

  it('reads IPython 8 and rich tracebacks (transformers #26203, FastChat #529)', () => {
    const ipython = [
      'Cell In[8], line 2',
      '----> 2 base_model = AutoModelForCausalLM.from_pretrained(',
      '',
      `File ${SITE}/transformers/models/auto/auto_factory.py:493, in _BaseAutoModelClass.from_pretrained(cls, name)`,
      '--> 493     return model_class.from_pretrained(',
      FULL,
    ].join('\n');
    expect(read(ipython)).toMatchObject({ phase: 'load', basis: 'traceback' });
    const ipythonFrameOnly = `File ${SITE}/transformers/trainer.py:1633, in Trainer.evaluate(self)\n${FULL}`;
    expect(read(ipythonFrameOnly)).toMatchObject({ phase: 'evaluation', reason: 'traced-frame' });
    const rich = [
      '│ /home/u/.local/lib/python3.10/site-packages/deepspeed/runtime/engine.py:330 in __init__          │',
      '│ ❱  330 │   │   │   self._configure_optimizer(optimizer, model_parameters)                        │',
      '│ /home/u/.local/lib/python3.10/site-packages/deepspeed/runtime/engine.py:1184 in _configure_optimizer │',
      FULL,
    ].join('\n');
    expect(read(rich)).toMatchObject({ phase: 'optimizer-step', reason: 'traced-frame' });
  });

  it('the first CUDA call creates the context: torch.cuda’s lazy init is load (pytorch #1829)', () => {
    const text = [
      '<ipython-input-4-8352503114b9> in <module>()',
      '----> 1 torch.cuda.FloatTensor([1])',
      '~/anaconda/lib/python3.5/site-packages/torch/cuda/__init__.py in _lazy_new(cls, *args, **kwargs)',
      'RuntimeError: cuda runtime error (2) : out of memory at /pytorch/torch/lib/THC/generic/THCStorage.cu:66',
    ].join('\n');
    expect(read(text)).toMatchObject({ phase: 'load', reason: 'traced-frame' });
    const init = traceback(
      'RuntimeError: CUDA error: out of memory',
      frame('serve.py', 3, '<module>', 'x = torch.zeros(1, device="cuda")'),
      frame(`${SITE}/torch/cuda/__init__.py`, 302, '_lazy_init', 'torch._C._cuda_init()'),
    );
    expect(read(init).phase).toBe('load');
  });

  it('ZeRO building its optimizer states is the optimizer, not the load around it', () => {
    const zero = traceback(
      'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 GiB.',
      frame('train.py', 40, 'main', 'engine, opt, _, _ = deepspeed.initialize(model=model, config=cfg)'),
      frame(
        `${SITE}/deepspeed/runtime/zero/stage_1_and_2.py`,
        371,
        '__init__',
        'self.single_partition_of_fp32_groups.append(',
      ),
    );
    expect(read(zero)).toMatchObject({ phase: 'optimizer-step', reason: 'traced-frame' });
    const milestones = (last: string) =>
      [
        '[INFO] [utils.py:831:see_memory_usage] Before creating fp16 partitions',
        last,
        'CUDA error: out of memory',
      ].join('\n');
    expect(
      read(milestones('[INFO] [utils.py:831:see_memory_usage] Before creating fp32 partitions')),
    ).toMatchObject({
      phase: 'optimizer-step',
      reason: 'log-progress',
    });
    expect(
      read(milestones('[INFO] [utils.py:831:see_memory_usage] After creating fp16 partitions')).phase,
    ).toBe('unknown');
  });

  it('a diffusion sampler or pipeline is inference: forward (Fooocus, ComfyUI, diffusers)', () => {
    const k = traceback(
      FULL,
      frame(
        '/home/a/Fooocus/modules/sample_hijack.py',
        157,
        'sample_hacked',
        'samples = sampler.sample(model_wrap)',
      ),
      frame(
        '/home/a/Fooocus/ldm_patched/k_diffusion/sampling.py',
        701,
        'sample_dpmpp_2m_sde_gpu',
        'return sample_dpmpp_2m_sde(model, x)',
      ),
    );
    expect(read(k)).toMatchObject({ phase: 'forward', reason: 'traced-file' });
    const validation = traceback(
      FULL,
      frame('train_dreambooth.py', 1300, 'log_validation', 'images = pipeline(prompt).images'),
      frame(
        `${SITE}/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py`,
        900,
        '__call__',
        'x',
      ),
    );
    expect(read(validation)).toMatchObject({ phase: 'evaluation', reason: 'named-function' });
  });

  it('a serving engine runs forward passes: vLLM’s log lines and worker frames (vllm #14095, #7854)', () => {
    const worker = `(VllmWorkerProcess pid=195295) ERROR 03-02 19:49:43 [multiproc_worker_utils.py:242] ${FULL}`;
    expect(read(worker)).toMatchObject({ phase: 'forward', basis: 'log', reason: 'log-engine' });
    const profile = traceback(
      FULL,
      frame(
        `${SITE}/vllm/worker/worker.py`,
        179,
        'determine_num_available_blocks',
        'self.model_runner.profile_run()',
      ),
    );
    expect(read(profile)).toMatchObject({ phase: 'forward', reason: 'traced-file' });
    const loading = traceback(
      FULL,
      frame(
        `${SITE}/vllm/worker/model_runner.py`,
        1020,
        'load_model',
        'self.model = get_model(self.vllm_config)',
      ),
      frame(`${SITE}/vllm/model_executor/models/llama.py`, 600, 'load_weights', 'weight_loader(param, w)'),
    );
    expect(read(loading).phase).toBe('load');
  });

  it('a line that calls the model is its forward (PhoGPT #28, a truncated rich traceback)', () => {
    const rich = [
      '│ /usr/lib/python3/dist-packages/composer/trainer/trainer.py:2797 in _train_microbatch             │',
      '│ ❱ 2797 │   │   │   │   self.state.outputs = self.state.model(self.state.batch)                   │',
      'OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB.',
    ].join('\n');
    expect(read(rich)).toMatchObject({ phase: 'forward', reason: 'traced-code' });
    const plain = traceback(
      'RuntimeError: CUDA error: out of memory',
      frame('run.py', 9, 'step', 'out = net(x)'),
    );
    expect(read(plain).phase).toBe('forward');
    // `load_model(` and `model.to(` are not a model call.
    const load = traceback(
      'RuntimeError: CUDA error: out of memory',
      frame('run.py', 9, 'main', 'm = load_model(path)'),
    );
    expect(read(load).phase).not.toBe('forward');
  });

  it('a constructor on the stack with nothing more specific is the object being built: load', () => {
    const text = traceback(
      'RuntimeError: CUDA error: out of memory',
      frame('app.py', 529, 'cli', 'model = WhisperModel(size, device="cuda")'),
      frame(
        `${SITE}/faster_whisper/transcribe.py`,
        125,
        '__init__',
        'self.model = ctranslate2.models.Whisper(',
      ),
    );
    expect(read(text)).toMatchObject({ phase: 'load', reason: 'traced-frame' });
  });

  it('a pasted script is not traceback code: its last lines do not decide', () => {
    const script = [
      'import torch',
      'def train(model, loader):',
      '    for batch in loader:',
      '        loss = model(batch).loss',
      '        loss.backward()',
      '        optimizer.step()',
      '    model.save_pretrained("out")',
      '',
      FULL,
    ].join('\n');
    expect(read(script)).toMatchObject({ phase: 'forward', basis: 'numbers' });
  });
});

describe('the log and the words around the error', () => {
  it('a forward pass during an evaluation the log or the words name is evaluation', () => {
    const fwd = traceback(
      FULL,
      frame(`${SITE}/torch/nn/modules/module.py`, 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
    );
    expect(read(`Sanity Checking DataLoader 0:  50%|█████     | 1/2 [00:01<00:01]\n${fwd}`)).toMatchObject({
      phase: 'evaluation',
      reason: 'log-progress',
    });
    // D3DP #9 writes it under the error: "in the evaluation step, it occurs".
    expect(
      read(`${fwd}\n\nTraining is fine, but in the evaluation step it runs out of memory.`),
    ).toMatchObject({
      phase: 'evaluation',
      reason: 'words',
    });
    expect(read(`${fwd}\nIt fails as soon as it starts evaluating.`).phase).toBe('evaluation');
  });

  it('evaluation as the subject of what ran out is evaluation (peft #1927, unseen), a negation aside', () => {
    const peft = unseenCase('peft-segformer-eval-oom');
    expect(read(peft)).toMatchObject({ phase: 'evaluation', reason: 'words' });
    expect(read(`Validation runs out of memory on the full set.\n${FULL}`).phase).toBe('evaluation');
    expect(read(`${FULL}\nThe evaluation OOMs with batch size 8.`).phase).toBe('evaluation');
    // A word between that is not a memory verb's lead-in, or a negation, does not count.
    expect(read(`Evaluation never uses much memory here.\n${FULL}`).phase).not.toBe('evaluation');
    expect(read(`Eval metrics look fine, training dies.\n${FULL}`).phase).not.toBe('evaluation');
  });

  it('negated words do not count', () => {
    expect(read(`There is no other process on the GPU.\n${FULL}`).phase).toBe('forward');
    expect(read(`It doesn't happen during validation.\n${FULL}`).phase).toBe('forward');
    expect(read(`Two jobs share the card.\n${FULL}`).phase).toBe('other-process');
  });

  it('a bare progress bar says nothing: diffusion sampling draws the same bars as training', () => {
    const bar = '100%|██████████| 20/20 [00:03<00:00,  5.50it/s]';
    expect(read(`${bar}\n${FULL}`).reason).toBe('card-full');
    expect(read(`train: ${bar}\n${FULL}`)).toMatchObject({ phase: 'mid-run', reason: 'log-steps' });
    expect(read(`Epoch 3: loss=0.41\n${FULL}`)).toMatchObject({ phase: 'mid-run', reason: 'log-steps' });
  });

  it('"at epoch 5" or "after 3 hours" is mid-run; "at step 1" is not', () => {
    expect(read(`It crashes at epoch 5.\n${FULL}`)).toMatchObject({ phase: 'mid-run', reason: 'words' });
    expect(read(`${FULL}\nThis happens after about 3 hours of training.`).phase).toBe('mid-run');
    expect(read(`It crashes at step 1.\n${FULL}`).phase).toBe('forward');
  });

  it('counts written the way people write them', () => {
    expect(read(`report error of cuda out of memory after training 67epochs\n${FULL}`).phase).toBe('mid-run');
    expect(read(`It is killed when it comes to around 800 epoches.\n${FULL}`).phase).toBe('mid-run');
    expect(read(`${FULL}\nIt happens after few epochs.`).phase).toBe('mid-run');
    expect(read(`Epoch 10 - learning rate: 0.000100\n${FULL}`)).toMatchObject({
      phase: 'mid-run',
      reason: 'log-steps',
    });
    expect(read(`${FULL}\nThis feature uses CUDA memory when it creates a checkpoint.`).phase).toBe(
      'checkpoint-save',
    );
    // "gradient checkpointing" is a memory technique, not a save.
    expect(read(`I use gradient checkpointing.\n${FULL}`).phase).toBe('forward');
  });

  it('one rank failing while the others logged on is imbalance; not when the others failed too', () => {
    const lines = (other: string) =>
      [
        '[rank0]: step 3 loss 2.1',
        '[rank1]: step 3 loss 2.1',
        `[rank1]: ${other}`,
        '[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.',
      ].join('\n');
    expect(read(lines('step 4 loss 2.0'))).toMatchObject({
      phase: 'multi-gpu-imbalance',
      reason: 'one-rank-failed',
    });
    expect(read(lines('RuntimeError: NCCL communicator was aborted')).phase).toBe('mid-run');
  });
});

describe('nvidia-smi rows beside the report', () => {
  it('memory in use with no process listed: processes this container cannot see (CrossE #2)', () => {
    expect(read(smi('21_issue_crosse2_used_but_no_processes.txt'))).toMatchObject({
      phase: 'other-process',
      basis: 'smi',
      reason: 'smi-used-no-process',
    });
    const gpuRow = [
      'RuntimeError: CUDA error: out of memory',
      '|   0  NVIDIA A100-SXM4-80GB     On | 00000000:07:00.0 Off |                    0 |',
      '| N/A   41C    P0    70W / 400W |  30210MiB / 81920MiB |      0%      Default |',
      '',
      'No running processes found',
    ].join('\n');
    expect(read(gpuRow)).toMatchObject({ phase: 'other-process', reason: 'smi-used-no-process' });
    // A few hundred MiB with no process listed is this container's own job, not a leftover.
    expect(read(gpuRow.replace('30210MiB', '814MiB')).reason).not.toBe('smi-used-no-process');
  });

  it('same-sized small processes beside a large one on GPU 0: the other ranks’ contexts (pytorch #49481)', () => {
    expect(read(smi('23_issue_pytorch49481_rank0_extra_contexts_rows.txt'))).toMatchObject({
      phase: 'multi-gpu-imbalance',
      reason: 'smi-rank-contexts',
    });
    const rows = [
      '|    0   N/A  N/A     4001      C   python train.py                 30500MiB |',
      '|    0   N/A  N/A     4002      C   python train.py                   512MiB |',
      '|    0   N/A  N/A     4003      C   python train.py                   512MiB |',
      'CUDA error: out of memory',
    ].join('\n');
    expect(read(rows).reason).toBe('smi-rank-contexts');
  });

  it('one GPU far fuller than the job’s others is imbalance (apex #200); an idle neighbour is not', () => {
    expect(read(smi('20_issue_apex200_multigpu_imbalance_table.txt'))).toMatchObject({
      phase: 'multi-gpu-imbalance',
      reason: 'smi-gpu-uneven',
    });
    const idle = smi('20_issue_apex200_multigpu_imbalance_table.txt').replaceAll('897MiB', '0MiB');
    expect(read(idle).reason).not.toBe('smi-gpu-uneven');
  });

  it('a dead or stopped process holding memory is a leftover', () => {
    expect(read(caseText('mxnet-4242-zombie')).reason).toBe('smi-leftover');
    const zombie = [
      '|    0   N/A  N/A     7001      C   python                          18000MiB |',
      'root      7001  0.0  0.0      0     0 ?        Z    10:01   0:00 [python] <defunct>',
    ].join('\n');
    expect(read(zombie)).toMatchObject({ phase: 'other-process', reason: 'smi-leftover' });
  });

  it('CUDA’s own error beside a card nvidia-smi shows full, the other GPUs idle: another program held it (gpt2-chitchat)', () => {
    // A real report outside the shared corpus (bench/data/oom-unseen.jsonl): TensorFlow on GPU 0.
    const unseen = unseenCase('gpt2-chitchat-tf-on-gpu0');
    expect(read(unseen)).toMatchObject({
      phase: 'other-process',
      basis: 'smi',
      reason: 'smi-full-before-ours',
    });
    const row = (used: number) =>
      `| N/A   54C    P0   246W / 300W |  ${used}MiB / 16130MiB |    100%      Default |`;
    const table = (gpu0: number, gpu1: number) =>
      [
        '|   0  Tesla V100-SXM2...  On   | 00000000:00:08.0 Off |                    0 |',
        row(gpu0),
        '|   1  Tesla V100-SXM2...  On   | 00000000:00:09.0 Off |                    0 |',
        row(gpu1),
        'RuntimeError: CUDA error: out of memory',
      ].join('\n');
    expect(read(table(15514, 0)).reason).toBe('smi-full-before-ours');
    // Not when the card has room, nor when two GPUs are busy (a job of this user's own may fill both).
    expect(read(table(9000, 0)).reason).not.toBe('smi-full-before-ours');
    expect(read(table(15514, 15000)).reason).not.toBe('smi-full-before-ours');
    // Nor when PyTorch's own message says what this process held: its figures are read instead.
    const torch = table(15514, 0).replace(
      'RuntimeError: CUDA error: out of memory',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 15.75 GiB of which 12.00 MiB is free. Of the allocated memory 14.90 GiB is allocated by PyTorch, and 20.00 MiB is reserved by PyTorch but unallocated.',
    );
    expect(read(torch).reason).not.toBe('smi-full-before-ours');
  });

  it('process rows with no error in the text are what the report points at', () => {
    const rows = '|    2     5120    C   /opt/conda/bin/python                     9000MiB |';
    expect(read(rows)).toMatchObject({ phase: 'other-process', reason: 'smi-rows' });
    expect(read(`${rows}\n${FULL}`).reason).not.toBe('smi-rows');
  });
});

describe('work on long inputs', () => {
  it('reads a log with a 1 MB line through every rule', () => {
    const long = `${'| 0 '.repeat(60_000)}${'a '.repeat(200_000)}${'step 5 (('.repeat(60_000)}`;
    expect(long.length).toBeGreaterThan(1_000_000);
    const text = `${long}\n${long.replaceAll(' ', '_')}\n${FULL}\n${long}`;
    expect(read(text).phase).toBe('forward');
    expect(read(`File "x.py", line 1, in ${'e'.repeat(1_000_000)}\n${FULL}`).phase).toBe('forward');
  });
});

/** Headroom's own held-out cases (bench/data/oom-unseen.jsonl): collected after the rules were written. */
const unseen: ReadonlyMap<string, string> = new Map(
  readFileSync(join(REPO_ROOT, 'bench', 'data', 'oom-unseen.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; text: string })
    .map((c) => [c.id, c.text] as const),
);

describe("torch's own source lines, where a paste cut their frames off", () => {
  const V1 =
    'RuntimeError: CUDA out of memory. Tried to allocate 162.00 MiB (GPU 2; 79.35 GiB total capacity; 77.00 GiB already allocated; 146.19 MiB free; 77.01 GiB reserved in total by PyTorch)';

  it('nn.Module.to()’s convert line is the model moving to the card: load (DeepSpeed #2672’s OPT-66B)', () => {
    // rich's box, its frame headers cut off: only the code of module.py's convert and _apply is left.
    expect(read(unseen.get('deepspeed-opt66b-load')!)).toMatchObject({ phase: 'load', basis: 'log' });
    // Python's plain traceback with the same lines and no frame above them; .cuda() and .half() too.
    const convert =
      '    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)';
    expect(read(`${convert}\n${V1}`)).toMatchObject({ phase: 'load', reason: 'traced-text' });
    expect(read(`    return self._apply(lambda t: t.cuda(device))\n${V1}`).phase).toBe('load');
    // A user's own `.to(device)` of a tensor is not the module moving.
    expect(read(`    return batch.to(device)\n${V1}`).phase).not.toBe('load');
  });

  it('the autograd engine’s entry line is backward (rl-swarm #405, a frame-less paste)', () => {
    expect(read(unseen.get('rl-swarm-oom-after-hours')!)).toMatchObject({
      phase: 'backward',
      reason: 'traced-text',
    });
    const engine =
      '    _engine_run_backward(\n    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass';
    expect(read(`${engine}\n${FULL}`).phase).toBe('backward');
    // Words about backward in a log line are not the engine's line.
    expect(read(`calling run_backward soon\n${FULL}`).phase).not.toBe('backward');
  });
});
