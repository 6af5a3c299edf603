/**
 * TEST ONLY: the partition lab's broken variants (declared in meta.ts; MQLAB_FAULT=partition:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the experiment lab.ts
 * runs (`PartitionSteps`). lab.ts reads as the correct experiment.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { PartitionSteps } from './lab.js';

export const variants: VariantsOf<typeof meta, PartitionSteps> = {
  'cut-follower': () => ({ cutOff: (_leader, others) => others[others.length - 1]! }),
  // the links stay cut until the lab ends
  'no-heal': () => ({ heal: () => Promise.resolve(false) }),
  'no-resend': () => ({ resend: () => Promise.resolve(0) }),
  // a window of confirmed ids sent again too
  'resend-confirmed': () => ({ resend: (stream) => stream.resendUnconfirmed(stream.confirmed().slice(-50)) }),
  // a confirm timeout taken for a confirm (and so nothing sent again)
  'timeout-is-confirm': () => ({
    timedOut: (history, id, node) => history.confirm(id, node),
    resend: () => Promise.resolve(0),
  }),
  // healed after 2 s: below the failure detector's 10–12.5 s (defaults.ts NET_TICKTIME_S)
  'short-cut': (s) => ({ hold: (stream, o) => s.hold(stream, { ...o, forMs: 2000, untilSeen: false }) }),
  // the held queue declared with a timeout of 0: its delivery comes back as soon as the leader sees the node down
  'disconnected-timeout-zero': () => ({ disconnectedTimeout: () => 0 }),
};
