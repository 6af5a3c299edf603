/** The quorum-failover lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, integer, type OptionSpecs } from '../../src/kit/index.js';

export interface QuorumFailoverOptions {
  /** messages in the stream, ids 1…messages in the bodies */
  messages: number;
  /** the leader's node is killed once this many publishes are confirmed */
  killAfter: number;
  /** publishes awaiting their confirm at once */
  window: number;
  /** the longest accepted time from the kill to the first confirm after the failover */
  failoverBoundMs: number;
  /** how long the restarted node may take to rejoin and hold the leader's commit index */
  catchUpTimeoutMs: number;
}

export const options: OptionSpecs<QuorumFailoverOptions> = {
  messages: {
    flag: '--messages <n>',
    description: 'messages in the stream (ids 1…n in the bodies)',
    default: '2000',
    parse: integer(10, 100_000),
  },
  killAfter: {
    flag: '--kill-after <n>',
    description: "SIGKILL the queue leader's node once this many publishes are confirmed",
    default: '600',
    parse: integer(1, 99_999),
  },
  window: {
    flag: '--window <n>',
    description: 'publishes awaiting their confirm at once (more: more unconfirmed at the kill)',
    default: '100',
    parse: integer(1, 5000),
  },
  failoverBoundMs: {
    flag: '--failover-bound <duration>',
    description:
      'the check on the time from the kill to the first confirm after it: at most this (election, reconnect, resend; generous on a loaded machine)',
    default: '30s',
    parse: duration({ min: 100, max: 600_000, bare: 's' }),
  },
  catchUpTimeoutMs: {
    flag: '--catch-up-timeout <duration>',
    description: "how long the restarted node may take to rejoin and report the leader's commit index",
    default: '120s',
    parse: duration({ min: 1000, max: 3_600_000, bare: 's' }),
  },
};
