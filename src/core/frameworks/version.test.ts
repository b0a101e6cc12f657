import { describe, expect, it } from 'vitest';
import { compareVersions, inRange, parseVersion, versionAtLeast } from './version.js';

describe('parseVersion', () => {
  it('reads release numbers and ignores a local tail', () => {
    expect(parseVersion('2.5.1+cu121')).toEqual({ release: [2, 5, 1], phase: 0, phaseNumber: 0 });
  });
  it('reads a dev tail as a pre-release', () => {
    expect(parseVersion('4.46.0.dev0')).toEqual({ release: [4, 46, 0], phase: -4, phaseNumber: 0 });
  });
  it('reads rc, post and git-tag forms', () => {
    expect(parseVersion('2.6.0rc1')).toEqual({ release: [2, 6, 0], phase: -1, phaseNumber: 1 });
    expect(parseVersion('0.43.2.post1')).toEqual({ release: [0, 43, 2], phase: 1, phaseNumber: 1 });
    expect(parseVersion('v0.5.13')).toEqual({ release: [0, 5, 13], phase: 0, phaseNumber: 0 });
  });
  it('refuses what is not a version', () => {
    expect(parseVersion('latest')).toBeUndefined();
    expect(parseVersion('')).toBeUndefined();
    expect(parseVersion('2.1.0-weird7')).toBeUndefined();
  });
});

describe('versionAtLeast', () => {
  it('bitsandbytes 0.41.1 is before the 0.43.2 fix, 0.45.0 after it', () => {
    expect(versionAtLeast('0.43.2', '0.41.1')).toBe(false);
    expect(versionAtLeast('0.43.2', '0.43.2')).toBe(true);
    expect(versionAtLeast('0.43.2', '0.45.0')).toBe(true);
  });
  it('"2.0" is 2.0.0, and a CUDA build of 2.8.0 is 2.8.0', () => {
    expect(versionAtLeast('2.0.0', '2.0')).toBe(true);
    expect(versionAtLeast('2.0.1', '2.0')).toBe(false);
    expect(versionAtLeast('2.8', '2.8.0+cu128')).toBe(true);
  });
  it('a dev build precedes its release, as pip orders them', () => {
    expect(versionAtLeast('4.46.0', '4.46.0.dev0')).toBe(false);
    expect(versionAtLeast('4.45.0', '4.46.0.dev0')).toBe(true);
  });
  it('compares numerically, not as text', () => {
    expect(versionAtLeast('0.9.0', '0.10.1')).toBe(true);
    expect(compareVersions('2024.12.4', '2025.7.4')).toBe(-1);
  });
  it('is undefined for an unparsable version', () => {
    expect(versionAtLeast('0.43.2', 'main')).toBeUndefined();
  });
});

describe('inRange', () => {
  it('includes the lower bound and excludes the upper one', () => {
    expect(inRange({ atLeast: '0.22.0', below: '0.26.0' }, '0.22.0')).toBe(true);
    expect(inRange({ atLeast: '0.22.0', below: '0.26.0' }, '0.25.1')).toBe(true);
    expect(inRange({ atLeast: '0.22.0', below: '0.26.0' }, '0.26.0')).toBe(false);
    expect(inRange({ below: '0.43.2' }, '0.42.0')).toBe(true);
    expect(inRange({ atLeast: '2.8' }, '2.7.1')).toBe(false);
  });
});
