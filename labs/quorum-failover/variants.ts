/**
 * TEST ONLY: the quorum-failover lab's broken variants (declared in meta.ts; MQLAB_FAULT=quorum-failover:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the experiment
 * (`FailoverSteps`: steps.ts, run by lab.ts and producer.ts). Those files read as the correct experiment.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { FailoverSteps } from './steps.js';

export const variants: VariantsOf<typeof meta, FailoverSteps> = {
  'kill-follower': () => ({ victim: (_leader, followers) => followers[0]! }),
  // counted at the write to the socket, not at the confirm (and so nothing is resent)
  'confirm-early': () => ({
    countConfirm: (confirm, count) => {
      count();
      return confirm;
    },
  }),
  'no-resend': () => ({ resend: () => [] }),
  // after no-resend when both are asked: the window alone
  'resend-window': (applied, ctx) => ({
    resend: (lost, confirmed) => [...applied.resend(lost, confirmed), ...[...confirmed].slice(-ctx.options.window)],
  }),
  'no-restart': () => ({ restart: () => Promise.resolve() }),
  'slow-reconnect': (_, ctx) => ({
    reconnect: async (pub) => {
      await ctx.sleep(ctx.options.failoverBoundMs + 1000);
      return pub.reconnect();
    },
  }),
  'declare-at-once': () => ({ pauseAfterDelete: () => 0 }),
};
