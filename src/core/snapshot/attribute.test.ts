/** The attribution rules, one by one, on the frames torch records for each kind of allocation. */
import { describe, expect, it } from 'vitest';
import { cpp, type Frame, py } from '../test-helpers/snapshot-builder.js';
import {
  attributeAllocation,
  classifyStack,
  RULE_PART,
  SNAPSHOT_PARTS,
  type StackFacts,
  siteOf,
} from './attribute.js';

const malloc = cpp(
  'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int, unsigned long, CUstream_st*)',
);
const SP = '/usr/lib/python3.11/site-packages';
const stack = (...frames: Frame[]) => [malloc, ...frames, py('<module>', '/home/me/train.py', 40)];

describe('classifyStack', () => {
  it.each([
    [
      'library-workspace',
      stack(cpp('at::cuda::getNewWorkspace()'), cpp('at::cuda::getCurrentCUDABlasHandle()')),
    ],
    ['library-workspace', stack(cpp('at::cuda::getCUDABlasLtWorkspace()'))],
    ['communication', stack(cpp('c10d::ProcessGroupNCCL::allgather(std::vector<at::Tensor>&)'))],
    ['communication', stack(cpp('c10d::Reducer::initialize_buckets(std::vector<c10d::BucketIndices>)'))],
    [
      'optimizer-step',
      stack(
        py('_init_group', `${SP}/torch/optim/adamw.py`, 130),
        py('step', `${SP}/torch/optim/adamw.py`, 200),
      ),
    ],
    ['optimizer-step', stack(py('update_step', `${SP}/bitsandbytes/optim/optimizer.py`, 400))],
    ['weights-load', stack(py('from_pretrained', `${SP}/transformers/modeling_utils.py`, 3000))],
    ['weights-load', stack(py('set_module_tensor_to_device', `${SP}/accelerate/utils/modeling.py`, 300))],
    [
      'weights-load',
      stack(
        py('_apply', `${SP}/torch/nn/modules/module.py`, 800),
        py('to', `${SP}/torch/nn/modules/module.py`, 1150),
      ),
    ],
    ['weights-load', stack(py('__init__', `${SP}/torch/nn/modules/linear.py`, 98))],
    ['weights-load', stack(py('_quantize', `${SP}/bitsandbytes/nn/modules.py`, 289))],
    [
      'adapter-weights',
      stack(
        py('update_layer', `${SP}/peft/tuners/lora/layer.py`, 120),
        py('__init__', `${SP}/torch/nn/modules/linear.py`, 98),
      ),
    ],
    [
      'dequantized-weight',
      stack(
        py('dequantize_4bit', `${SP}/bitsandbytes/functional.py`, 1000),
        py('forward', `${SP}/bitsandbytes/autograd/_functions.py`, 509),
      ),
    ],
    [
      'autocast-weight-copy',
      stack(
        cpp('at::autocast::cached_cast(c10::ScalarType, at::Tensor const&, c10::DeviceType)'),
        py('forward', `${SP}/torch/nn/modules/linear.py`, 116),
      ),
    ],
    [
      'fsdp-gathered-weights',
      stack(py('_all_gather_flat_param', `${SP}/torch/distributed/fsdp/_flat_param.py`, 1300)),
    ],
    [
      'fsdp-reduced-gradients',
      stack(py('_post_backward_hook', `${SP}/torch/distributed/fsdp/_runtime_utils.py`, 700)),
    ],
    [
      'accumulate-grad',
      stack(
        cpp('torch::autograd::AccumulateGrad::apply(std::vector<at::Tensor>&&)'),
        cpp('torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)'),
      ),
    ],
    ['backward', stack(cpp('torch::autograd::generated::MulBackward0::apply(std::vector<at::Tensor>&&)'))],
    ['backward', stack(py('backward', `${SP}/torch/_tensor.py`, 522))],
    [
      'forward',
      stack(
        py('silu', `${SP}/torch/nn/functional.py`, 2072),
        py('forward', `${SP}/torch/nn/modules/activation.py`, 396),
      ),
    ],
    ['unknown-stack', stack(cpp('torch::autograd::THPVariable_to(_object*, _object*, _object*)'))],
    ['no-stack', []],
  ] as const)('%s', (cls, frames) => {
    expect(classifyStack(frames as readonly Frame[])).toBe(cls);
  });

  it('puts the optimizer before the model code it runs under, and dequantizing before backward', () => {
    expect(
      classifyStack(
        stack(py('_init_group', `${SP}/torch/optim/adam.py`), py('forward', '/home/me/model.py')),
      ),
    ).toBe('optimizer-step');
    expect(
      classifyStack(
        stack(
          py('dequantize_4bit', `${SP}/bitsandbytes/functional.py`),
          py('backward', `${SP}/bitsandbytes/autograd/_functions.py`),
          cpp('torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::GraphTask>&)'),
        ),
      ),
    ).toBe('dequantized-weight');
  });
});

describe('attributeAllocation', () => {
  const facts = (cls: StackFacts['cls'], more: Partial<StackFacts> = {}): StackFacts => ({
    cls,
    site: 0,
    inBackward: cls === 'backward',
    zeroGrad: false,
    ...more,
  });
  it('settles backward by the stack that freed it', () => {
    expect(attributeAllocation(facts('backward'), facts('backward'), 10, false)).toBe('backward-transient');
    expect(attributeAllocation(facts('backward'), facts('forward'), 10, false)).toBe('backward-kept');
    expect(attributeAllocation(facts('backward'), null, 10, false)).toBe('backward-kept');
  });
  it('without an allocation stack: zero_grad frees gradients; else before recording or none', () => {
    expect(attributeAllocation(null, facts('unknown-stack', { zeroGrad: true }), 10, true)).toBe(
      'freed-by-zero-grad',
    );
    expect(attributeAllocation(null, null, 10, true)).toBe('before-recording');
    expect(attributeAllocation(null, null, 10, false)).toBe('no-stack');
  });
  it('gives every rule a part or none, and every part a rule', () => {
    const parts = new Set(Object.values(RULE_PART));
    for (const part of SNAPSHOT_PARTS) expect(parts.has(part)).toBe(true);
    expect(parts.has(null)).toBe(true);
  });
});

describe('siteOf', () => {
  it('is the innermost Python frame, with C++ folded in', () => {
    const f = py('forward', `${SP}/transformers/models/llama/modeling_llama.py`, 216);
    expect(siteOf(stack(cpp('at::native::mm'), f))).toEqual({ kind: 'python', frame: f });
  });
  it('is the autograd node for a C++-only backward stack, else C++ or none', () => {
    expect(
      siteOf([malloc, cpp('torch::autograd::generated::SiluBackward0::apply(std::vector<at::Tensor>&&)')]),
    ).toEqual({
      kind: 'autograd',
      frame: { name: 'SiluBackward0', filename: '', line: 0 },
    });
    expect(siteOf([malloc, cpp('ncclGroupEnd')])).toEqual({ kind: 'cpp', frame: null });
    expect(siteOf([])).toEqual({ kind: 'none', frame: null });
  });
});
