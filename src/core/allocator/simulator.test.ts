import { describe, expect, it } from 'vitest';
import { MIB } from '../units.js';
import { allocationSize, DEFAULT_ALLOCATOR_CONFIG, roundSize, shouldSplit } from './rules.js';
import { AllocatorOutOfMemory, CachingAllocatorSim } from './simulator.js';

const EXPANDABLE = { ...DEFAULT_ALLOCATOR_CONFIG, expandableSegments: true };

describe('the caching allocator rules (CUDACachingAllocator.cpp)', () => {
  it('rounds requests to 512 bytes and sizes segments as get_allocation_size does', () => {
    expect(roundSize(1)).toBe(512);
    expect(roundSize(513)).toBe(1024);
    expect(allocationSize(MIB)).toBe(2 * MIB);
    expect(allocationSize(MIB + 512)).toBe(20 * MIB);
    expect(allocationSize(10 * MIB)).toBe(10 * MIB);
    expect(allocationSize(10 * MIB + 512)).toBe(12 * MIB);
  });
  it('splits a large block only for a rest over 1 MiB, a small one (or expandable) for 512 bytes', () => {
    expect(shouldSplit(20 * MIB, 1.5 * MIB, false, DEFAULT_ALLOCATOR_CONFIG)).toBe(true);
    expect(shouldSplit(12 * MIB, 11.5 * MIB, false, DEFAULT_ALLOCATOR_CONFIG)).toBe(false);
    expect(shouldSplit(12 * MIB, 11.5 * MIB, false, EXPANDABLE)).toBe(true);
    expect(shouldSplit(2 * MIB, 2 * MIB - 512, true, DEFAULT_ALLOCATOR_CONFIG)).toBe(true);
    expect(shouldSplit(2 * MIB, 2 * MIB - 511, true, DEFAULT_ALLOCATOR_CONFIG)).toBe(false);
  });
});

describe('CachingAllocatorSim', () => {
  it('packs small requests into one 2 MiB segment', () => {
    const sim = new CachingAllocatorSim();
    sim.malloc(1000);
    sim.malloc(1000);
    expect(sim.stats()).toMatchObject({ allocatedBytes: 2048, requestedBytes: 2000, reservedBytes: 2 * MIB });
  });
  it('serves 1–10 MiB requests from a 20 MiB segment and larger ones from their own', () => {
    const sim = new CachingAllocatorSim();
    sim.malloc(5 * MIB);
    sim.malloc(5 * MIB);
    expect(sim.stats().reservedBytes).toBe(20 * MIB);
    sim.malloc(12 * MIB);
    expect(sim.stats().reservedBytes).toBe(32 * MIB);
    expect(sim.stats().deviceAllocs).toBe(2);
  });
  it('counts an unsplit rest of 1 MiB or less as allocated, as memory_allocated does', () => {
    const sim = new CachingAllocatorSim();
    sim.malloc(11.5 * MIB);
    expect(sim.stats()).toMatchObject({ allocatedBytes: 12 * MIB, requestedBytes: 11.5 * MIB });
  });
  it('coalesces freed neighbours so a larger request reuses the segment', () => {
    const sim = new CachingAllocatorSim();
    const a = sim.malloc(5 * MIB);
    const b = sim.malloc(5 * MIB);
    sim.free(a);
    sim.free(b);
    sim.malloc(18 * MIB);
    expect(sim.stats()).toMatchObject({ reservedBytes: 20 * MIB, allocatedBytes: 18 * MIB });
  });
  it('keeps a freed block cached and asks for a new segment when a larger tensor comes', () => {
    const sim = new CachingAllocatorSim();
    sim.free(sim.malloc(100 * MIB));
    sim.malloc(120 * MIB);
    expect(sim.stats()).toMatchObject({ reservedBytes: 220 * MIB, peakReservedBytes: 220 * MIB });
    // A smaller request takes the best fit: the cached 100 MiB block, split.
    sim.malloc(40 * MIB);
    expect(sim.stats().reservedBytes).toBe(220 * MIB);
  });
  it('with expandable segments grows the one segment by 20 MiB pages instead', () => {
    const sim = new CachingAllocatorSim(EXPANDABLE);
    sim.free(sim.malloc(100 * MIB));
    sim.malloc(120 * MIB);
    expect(sim.stats()).toMatchObject({ reservedBytes: 120 * MIB, allocatedBytes: 120 * MIB });
    sim.malloc(1);
    expect(sim.stats().reservedBytes).toBe(122 * MIB);
  });
  it('empty_cache returns unsplit cached segments and unmaps free pages', () => {
    const plain = new CachingAllocatorSim();
    const kept = plain.malloc(5 * MIB);
    plain.free(plain.malloc(100 * MIB));
    plain.emptyCache();
    expect(plain.stats().reservedBytes).toBe(20 * MIB);
    plain.free(kept);
    plain.emptyCache();
    expect(plain.stats().reservedBytes).toBe(0);

    const expandable = new CachingAllocatorSim(EXPANDABLE);
    expandable.malloc(30 * MIB);
    expandable.free(expandable.malloc(100 * MIB));
    expect(expandable.stats().reservedBytes).toBe(140 * MIB);
    expandable.emptyCache();
    // The page holding the end of the 30 MiB tensor stays mapped.
    expect(expandable.stats().reservedBytes).toBe(40 * MIB);
    expandable.malloc(60 * MIB);
    expect(expandable.stats().reservedBytes).toBe(100 * MIB);
  });
  it('under a memory limit releases its cache and retries before running out of memory', () => {
    const sim = new CachingAllocatorSim({}, 150 * MIB);
    sim.free(sim.malloc(100 * MIB));
    sim.malloc(120 * MIB);
    expect(sim.stats()).toMatchObject({ reservedBytes: 120 * MIB, peakReservedBytes: 120 * MIB });
    expect(() => sim.malloc(40 * MIB)).toThrow(AllocatorOutOfMemory);
  });
  it('refuses a double free', () => {
    const sim = new CachingAllocatorSim();
    const a = sim.malloc(10);
    sim.free(a);
    expect(() => sim.free(a)).toThrow(/double free/);
  });
});
