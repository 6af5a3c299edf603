/**
 * TEST ONLY: the broker-restart lab's broken variants (declared in meta.ts; MQLAB_FAULT=broker-restart:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the experiment
 * (`RestartSteps`: lab.ts, clients.ts). Those files read as the correct experiment.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { RestartSteps } from './clients.js';

export const variants: VariantsOf<typeof meta, RestartSteps> = {
  'transient-classic': () => ({ target: (name) => ({ queue: name.classic, persistent: false }) }),
  'no-resend': () => ({ resend: () => Promise.resolve() }),
  // no key written: every delivery, redeliveries too, counts as fresh
  'no-dedupe': () => ({ writeKey: () => Promise.resolve([{}]) }),
  'no-restart': (_, ctx) => ({
    restart: async () => {
      ctx.progress('(test fault) the node is NOT restarted');
      await ctx.sleep(2000);
      return null;
    },
  }),
};
