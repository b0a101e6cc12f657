/** Memory snapshots: the pickle reader, the typed snapshot, the analysis, comparisons and words. */
export * from './analyse.js';
export * from './attribute.js';
export * from './compare.js';
export * from './diff.js';
export { PickleDict, PickleSet, PickleTuple, type PickleValue, readPickle } from './pickle.js';
export * from './snapshot.js';
export * from './timeline.js';
export { findingText, formatError, SNAPSHOT_WORDS, type SnapshotWords, snapshotWords } from './words.js';
