/**
 * TEST ONLY: the replay lab's broken variants (declared in meta.ts; MQLAB_FAULT=replay:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: each replaces a step of the replay tool
 * lab.ts runs (`ReplaySteps`). lab.ts reads as the correct tool.
 */
import type { VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { ReplaySteps } from './lab.js';

export const variants: VariantsOf<typeof meta, ReplaySteps> = {
  // the original goes before its copy is safe
  'ack-before-confirm': () => ({
    copyThenAck: async (copy, ackOriginal) => {
      await ackOriginal();
      await copy();
    },
  }),
  // never acked: the original stays in the dead queue
  'keep-original': () => ({ ackOriginal: () => {} }),
  'new-id': () => ({ copyId: (m) => `${m.messageId}-replayed` }),
  'raw-payload': () => ({ copyBody: (m) => m.body }),
  'publish-twice': () => ({
    publishCopy: async (publish) => {
      await publish();
      await publish();
    },
  }),
};
