/** The node-pause lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';
import { electionBoundOption, streamProducerOptions, type StreamProducerOptions } from '../../src/kit/cluster/index.js';

interface NodePauseOptions extends StreamProducerOptions {
  /** the producers run this long before the pause, and this long after the resume */
  streamMs: number;
  /** how long the node stays frozen at least (then on until the majority saw it and, when the leader's node is frozen, node 1 named a new leader and the majority producer confirmed again, at most 2 × net_ticktime more) */
  pauseForMs: number;
  /** the longest accepted time from the pause to the majority producer's first confirm of a publish sent after it */
  electionBoundMs: number;
  /** how long the resumed node may take to be seen again and to reach the leader's commit index */
  catchUpTimeoutMs: number;
}

export const options: OptionSpecs<NodePauseOptions> = {
  ...streamProducerOptions,
  streamMs: {
    flag: '--stream <duration>',
    description: 'the producers run this long before the pause and this long after the resume',
    default: '3s',
    parse: duration({ min: 500, max: 600_000, bare: 's' }),
  },
  pauseForMs: {
    flag: '--pause-for <duration>',
    description:
      "how long the node stays frozen at least (longer than the failure detector: 1.25 × net_ticktime); then on until the majority saw it and, when the leader's node is frozen, node 1 named a new leader and the majority producer confirmed again, at most 2 × net_ticktime more",
    default: '20s',
    parse: duration({ min: 500, max: 600_000, bare: 's' }),
  },
  electionBoundMs: electionBoundOption('pause'),
  catchUpTimeoutMs: {
    flag: '--catch-up-timeout <duration>',
    description: "how long the resumed node may take to be seen again and to reach the leader's commit index",
    default: '180s',
    parse: duration({ min: 1000, max: 3_600_000, bare: 's' }),
  },
};
