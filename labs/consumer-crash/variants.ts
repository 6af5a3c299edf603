/**
 * TEST ONLY: consumer-crash's broken variants (declared in meta.ts; MQLAB_FAULT=consumer-crash:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the consumer process
 * (`ConsumerSteps`, consumer-steps.ts). consumer.ts reads as the correct consumer.
 */
import type { ChildRuntime, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { ConsumerSteps } from './consumer-steps.js';
import type { CrashNames } from './names.js';

export const consumer: Variants<ConsumerSteps, Fault, ChildRuntime<CrashNames, Fault>> = {
  'ack-before-commit': () => ({
    commitThenAck: async (commit, ack) => {
      ack();
      await commit();
    },
  }),
  'no-dedupe': () => ({ dedupe: false }),
  // the second run dies after its first commit too
  'crash-again': (s) => ({ crashAt: s.crashAt || 1 }),
  // a clean exit instead of the kill (the run started with --crash-after-commits)
  'exit-cleanly': (_, rt) => (rt.args.includes('--crash-after-commits') ? { die: () => process.exit(0) } : {}),
  // takes every message at once
  'prefetch-all': () => ({ prefetch: 10 }),
};
