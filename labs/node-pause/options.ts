/** The node-pause lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, integer, type OptionSpecs } from '../../src/options.js';

export interface NodePauseOptions {
  /** publishes per second of each producer */
  rate: number;
  /** publishes awaiting their confirm at once, per producer */
  window: number;
  /** a publish with no confirm after this long is recorded as timed out */
  confirmTimeoutMs: number;
  /** the producers run this long before the pause, and this long after the resume */
  streamMs: number;
  /** how long the node stays frozen at least (then on until the majority saw it, at most 2 × net_ticktime more) */
  pauseForMs: number;
  /** the longest accepted time from the pause to the majority producer's first confirm of a publish sent after it */
  electionBoundMs: number;
  /** how long the resumed node may take to be seen again and to reach the leader's commit index */
  catchUpTimeoutMs: number;
}

export const options: OptionSpecs<NodePauseOptions> = {
  rate: {
    flag: '--rate <n>',
    description: 'publishes per second of each of the two producers',
    default: '50',
    parse: integer(1, 1000),
  },
  window: {
    flag: '--window <n>',
    description: 'publishes awaiting their confirm at once, per producer',
    default: '50',
    parse: integer(1, 5000),
  },
  confirmTimeoutMs: {
    flag: '--confirm-timeout <duration>',
    description: 'a publish with no confirm after this long is recorded as timed out (its confirm may still come)',
    default: '3s',
    parse: duration({ min: 100, max: 120_000, bare: 's' }),
  },
  streamMs: {
    flag: '--stream <duration>',
    description: 'the producers run this long before the pause and this long after the resume',
    default: '3s',
    parse: duration({ min: 500, max: 600_000, bare: 's' }),
  },
  pauseForMs: {
    flag: '--pause-for <duration>',
    description:
      'how long the node stays frozen at least (longer than the failure detector: 1.25 × net_ticktime); then on until the majority saw it, at most 2 × net_ticktime more',
    default: '20s',
    parse: duration({ min: 500, max: 600_000, bare: 's' }),
  },
  electionBoundMs: {
    flag: '--election-bound <duration>',
    description:
      "the check on the time from the pause to the majority producer's first confirm after it (Ra's failure detector, an election): at most this",
    default: '15s',
    parse: duration({ min: 100, max: 600_000, bare: 's' }),
  },
  catchUpTimeoutMs: {
    flag: '--catch-up-timeout <duration>',
    description: "how long the resumed node may take to be seen again and to reach the leader's commit index",
    default: '180s',
    parse: duration({ min: 1000, max: 3_600_000, bare: 's' }),
  },
};
