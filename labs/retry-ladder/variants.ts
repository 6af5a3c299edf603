/**
 * TEST ONLY: where retry-ladder's broken variants (declared in meta.ts;
 * MQLAB_FAULT=retry-ladder:<name>, src/lab/fault.ts) replace a step of the consumer lab.ts runs
 * (`LadderSteps`). lab.ts reads as the correct ladder.
 */
import type { Broker, Delivery, Variants } from '../../src/kit/index.js';
import type { Decision } from './backoff.js';
import type { Fault } from './meta.js';
import { EXHAUSTED_KEY, WORK_KEY, type names } from './names.js';
import type { EventId } from './scenario.js';

/** the steps of the ladder a broken variant may replace */
export interface LadderSteps {
  /** the deadline a delivery carries (its deadline-at header) */
  deadlineOf(m: Delivery): number;
  /** before the downstream call: nothing is written until its outcome is known */
  beforeCall(id: EventId, attempt: number): Promise<unknown>;
  /** the decision after a failed call, as backoff.ts makes it */
  decide(d: Decision, id: EventId): Decision;
  /** the attempt a retry copy carries */
  nextAttempt(d: Decision & { action: 'retry' }): number;
  /** where a retry copy is published: the retry exchange, with its tier's key */
  retryRoute(tierKey: string): [exchange: string, key: string];
  /** the last attempt failed: rejected, so the broker dead-letters it into the DLQ (with x-death) */
  exhaust(m: Delivery, headers: Record<string, unknown>): void | Promise<void>;
  /** the parked copy, published into the parking route */
  publishParked(publish: () => Promise<unknown>): Promise<void>;
  /** after the consumers stopped: nothing more is published */
  afterShutdown(): Promise<unknown>;
}

export const variants = (
  broker: Broker,
  name: ReturnType<typeof names>,
  lateRetry: () => Promise<unknown>,
  commit: (id: EventId, attempt: number) => Promise<unknown>,
): Variants<LadderSteps, Fault> => ({
  // a consumer blind to the deadline
  'ignore-deadline': { deadlineOf: () => Infinity },
  // the effect is written before the call's outcome is known
  'write-before-call': { beforeCall: commit },
  // park `parked` at its first failure, whatever its deadline still covers
  'park-early': {
    decide: (d, id) =>
      id === 'parked' && d.action === 'retry'
        ? { action: 'park', reason: 'deadline', remainingMs: NaN, neededMs: NaN }
        : d,
  },
  'double-increment': { nextAttempt: (d) => d.nextAttempt + 1 },
  'skip-delay': { retryRoute: () => [name.business, WORK_KEY] },
  // the application copies it to the DLQ itself, so the broker writes no x-death
  'self-dead-letter': {
    exhaust: async (m, headers) => {
      await broker.publishConfirmed(name.dead, EXHAUSTED_KEY, m.body, { messageId: m.messageId, headers });
      m.ack();
    },
  },
  'park-twice': {
    publishParked: async (publish) => {
      await publish();
      await publish();
    },
  },
  // a handler still running after shutdown schedules one more retry
  'late-retry': { afterShutdown: lateRetry },
});
