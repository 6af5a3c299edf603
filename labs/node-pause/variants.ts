/**
 * TEST ONLY: the node-pause lab's broken variants (declared in meta.ts; MQLAB_FAULT=node-pause:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the experiment lab.ts
 * runs (`PauseSteps`). lab.ts reads as the correct experiment.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { PauseSteps } from './lab.js';

export const variants: VariantsOf<typeof meta, PauseSteps> = {
  'pause-follower': () => ({ frozen: (_leader, others) => others[others.length - 1]! }),
  // frozen until the lab ends
  'no-resume': () => ({ resume: () => null }),
  'no-resend': () => ({ resend: () => Promise.resolve(0) }),
  // a window of confirmed ids sent again too
  'resend-confirmed': () => ({ resend: (stream) => stream.resendUnconfirmed(stream.confirmed().slice(-50)) }),
  // a confirm timeout taken for a confirm (and so nothing sent again)
  'timeout-is-confirm': () => ({
    timedOut: (history, id, node) => history.confirm(id, node),
    resend: () => Promise.resolve(0),
  }),
  // the consumer acks its first 20 deliveries before it has recorded them, and loses them
  'ack-before-record': (s) => {
    let unrecorded = 20;
    return {
      consumed: (history, id, node, redelivered) =>
        unrecorded > 0 ? void unrecorded-- : s.consumed(history, id, node, redelivered),
    };
  },
  // resumed after 2 s: below the failure detector's 10–12.5 s (defaults.ts NET_TICKTIME_S)
  'short-pause': (s) => ({ hold: (stream, o) => s.hold(stream, { ...o, forMs: 2000, untilSeen: false }) }),
};
