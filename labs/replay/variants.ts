/**
 * TEST ONLY: where the replay lab's broken variants (declared in meta.ts; MQLAB_FAULT=replay:<name>,
 * src/lab/fault.ts) replace a step of the replay tool lab.ts runs (`ReplaySteps`). lab.ts reads as the
 * correct tool.
 */
import type { Delivery, Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';

/** the steps of the replay tool a broken variant may replace */
export interface ReplaySteps {
  /** the order: the repaired copy is confirmed first, the original acked last */
  copyThenAck(copy: () => Promise<void>, ackOriginal: () => Promise<void>): Promise<void>;
  /** settle the original in the dead queue */
  ackOriginal(m: Delivery): void;
  /** the copy keeps the original's message id */
  copyId(m: Delivery): string | undefined;
  /** the copy carries the repaired payload */
  copyBody(m: Delivery, repaired: string): string;
  /** the copy is published once */
  publishCopy(publish: () => Promise<unknown>): Promise<void>;
}

export const variants: Variants<ReplaySteps, Fault> = {
  // the original goes before its copy is safe
  'ack-before-confirm': {
    copyThenAck: async (copy, ackOriginal) => {
      await ackOriginal();
      await copy();
    },
  },
  // never acked: the original stays in the dead queue
  'keep-original': { ackOriginal: () => {} },
  'new-id': { copyId: (m) => `${m.messageId}-replayed` },
  'raw-payload': { copyBody: (m) => m.body },
  'publish-twice': {
    publishCopy: async (publish) => {
      await publish();
      await publish();
    },
  },
};
