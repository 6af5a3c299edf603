/** The partition lab's options: the typed object its code gets, and the flags it is parsed from. */
import { duration, type OptionSpecs } from '../../src/kit/index.js';
import { electionBoundOption, streamProducerOptions, type StreamProducerOptions } from '../../src/kit/cluster/index.js';

interface PartitionOptions extends StreamProducerOptions {
  /** the producers run this long before the cut, and this long after the heal */
  streamMs: number;
  /** how long the links stay cut at least (then on until both sides saw the cut and, when the leader's node is cut, node 1 named a new leader and the majority producer confirmed again, at most 2 × net_ticktime more) */
  cutForMs: number;
  /** the longest accepted time from the cut to the majority producer's first confirm of a publish sent after it */
  electionBoundMs: number;
  /** the held queue's consumer-disconnected timeout (x-consumer-disconnected-timeout, where the broker has it: 4.3.0+) */
  consumerDisconnectedTimeoutMs: number;
  /** how long the healed node may take to be seen again and to reach the leader's commit index */
  catchUpTimeoutMs: number;
}

export const options: OptionSpecs<PartitionOptions> = {
  ...streamProducerOptions,
  streamMs: {
    flag: '--stream <duration>',
    description: 'the producers run this long before the cut and this long after the heal',
    default: '3s',
    parse: duration({ min: 500, max: 600_000, bare: 's' }),
  },
  cutForMs: {
    flag: '--cut-for <duration>',
    description:
      "how long the links stay cut at least (longer than the nodes' failure detector: 1.25 × net_ticktime); then on until both sides saw the cut and, when the leader's node is cut, node 1 named a new leader and the majority producer confirmed again, at most 2 × net_ticktime more; and until node 1's consumer got the held delivery, at most --consumer-disconnected-timeout (4.3+) + --election-bound after the cut",
    default: '20s',
    parse: duration({ min: 500, max: 600_000, bare: 's' }),
  },
  electionBoundMs: electionBoundOption('cut'),
  consumerDisconnectedTimeoutMs: {
    flag: '--consumer-disconnected-timeout <duration>',
    description:
      'how long the quorum queue keeps the delivery of a consumer on the cut-off node checked out to it once it sees that node down (x-consumer-disconnected-timeout; RabbitMQ 4.3+, 60 s by default there; above 1.25 × net_ticktime, so that a return at once and one after the timeout cannot be confused)',
    default: '15s',
    parse: duration({ min: 1000, max: 600_000, bare: 's' }),
  },
  catchUpTimeoutMs: {
    flag: '--catch-up-timeout <duration>',
    description: "how long the healed node may take to be seen again and to reach the leader's commit index",
    default: '180s',
    parse: duration({ min: 1000, max: 3_600_000, bare: 's' }),
  },
};
