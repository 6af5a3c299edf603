/**
 * TEST ONLY: where auto-ack-loss's broken variants (declared in meta.ts;
 * MQLAB_FAULT=auto-ack-loss:<name>, src/lab/fault.ts) change how the consumer process consumes
 * (`ConsumerSettings`, consumer.ts).
 */
import type { Variants } from '../../src/kit/index.js';
import type { Fault } from './meta.js';
import type { Phase } from './names.js';

/** how one phase's consumer consumes */
export interface ConsumerSettings {
  /** SIGKILL itself after this many committed rows (0: never) */
  crashAfter: number;
  /** consume with noAck: the broker forgets each message as it sends it */
  noAck: boolean;
  /** ack a message (forget: never) */
  acks: boolean;
}

export const variants = (phase: Phase): Variants<ConsumerSettings, Fault> => ({
  'no-crash': { crashAfter: 0 },
  'ack-manually-in-auto': phase === 'auto' ? { noAck: false } : {},
  'auto-ack-in-manual': phase === 'manual' ? { noAck: true } : {},
  'acks-after-all': { acks: true },
});
