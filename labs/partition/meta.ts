/** The partition lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, UsageError, NET_TICKTIME_S, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';
import { CLUSTER_NODES } from './names.js';

/** the nodes declare a silent peer down after at most 1.25 × net_ticktime; the cut must outlast that */
const DETECTOR_MS = NET_TICKTIME_S * 1250;

export const meta = defineLab({
  name: 'partition',
  title: "a quorum queue's leader node cut off from the other two mid-stream, then healed: no confirmed message lost",
  summary:
    "a quorum queue's leader node cut off from the other two mid-stream (nftables on the nodes' own addresses; `mqlab up --nodes 3`, root), then healed: the cut-off leader confirms nothing, the majority elects and confirms on, both sides see the partition and the heal (3.10: the minority restarted), zero confirmed loss; a cut-off consumer's delivery comes back at once (3.10) or after consumer_disconnected_timeout (4.3)",
  proves:
    'Two producers publish ids with confirms to a quorum queue on 3 nodes, one through the node that leads it, one ' +
    "through a majority node. Mid-stream the lab cuts the leader's node off from the other two (its Erlang " +
    "distribution dropped both ways by nftables rules on the nodes' own addresses; AMQP to every node stays up), " +
    "holds the cut past the nodes' failure detector and heals it. From the run's history and the nodes' own views: " +
    'the cut-off leader confirms nothing after the cut (its publishes time out), the majority elects a new leader ' +
    'within a bound and keeps confirming, both sides see the other down, then every member again, the cut-off ' +
    "replica rejoins as a follower at the leader's commit index, no confirmed id is lost, every duplicate is of an " +
    'unconfirmed id. A consumer on the cut-off node holds a delivery of a second quorum queue (led by node 1): ' +
    'the leader gives it to a consumer on node 1 as soon as it sees the node down (3.10, 4.0–4.2), or only ' +
    'after consumer_disconnected_timeout (4.3+: --consumer-disconnected-timeout, set as the queue argument). ' +
    'Needs `mqlab up --nodes 3` and root (nftables).',
  // the stream before and after, the cut (20 s), the heal and catch-up
  floorMs: 35_000,
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options,
  validate: (o) => {
    if (o.cutForMs <= DETECTOR_MS)
      throw new UsageError(
        `--cut-for (${o.cutForMs} ms) must be above ${DETECTOR_MS} ms`,
        `the nodes declare a silent peer down only after up to 1.25 × net_ticktime (${NET_TICKTIME_S} s)`,
      );
    if (o.consumerDisconnectedTimeoutMs <= DETECTOR_MS)
      throw new UsageError(
        `--consumer-disconnected-timeout (${o.consumerDisconnectedTimeoutMs} ms) must be above ${DETECTOR_MS} ms`,
        `a broker without the timeout gives the delivery back when it sees the node down, up to 1.25 × net_ticktime (${NET_TICKTIME_S} s) after the cut: a shorter timeout could not be told from that`,
      );
  },
  checks: [
    'cutOffLeaderConfirmsNothing',
    'leaderChanged',
    'majorityResumedMs',
    'majorityConfirmsDuringCut',
    'partitionObserved',
    'heldDeliveryReturnedMs',
    'partitionHealed',
    'cutOffReplicaCaughtUp',
    'confirmedLost',
    'everyIdConsumed',
    'duplicatesNotUnconfirmed',
    'unconfirmedResent',
  ],
  // the broken variants (MQLAB_FAULT=partition:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'cut-follower': {
      breaks:
        "the lab cuts off a follower's node (producer B's), not the leader's: the leader keeps leading and confirming",
      fails: ['leaderChanged', 'cutOffLeaderConfirmsNothing', 'majorityResumedMs', 'majorityConfirmsDuringCut'],
    },
    'no-heal': {
      breaks:
        'the links stay cut until the lab ends: the nodes never see each other again, the replica never catches up',
      fails: ['partitionHealed', 'cutOffReplicaCaughtUp'],
    },
    'no-resend': {
      breaks: 'the producer does not send again the ids it has no confirm for',
      fails: ['everyIdConsumed', 'unconfirmedResent'],
    },
    'resend-confirmed': {
      breaks: 'the producer sends a window of confirmed ids again too',
      fails: ['duplicatesNotUnconfirmed'],
    },
    'timeout-is-confirm': {
      breaks: 'the producer takes a confirm timeout for a confirm (and so sends nothing again)',
      fails: ['confirmedLost'],
    },
    'short-cut': {
      breaks: "the cut is healed before the nodes' failure detector (net_ticktime) can see it",
      fails: ['partitionObserved', 'heldDeliveryReturnedMs'],
    },
    'disconnected-timeout-zero': {
      breaks:
        'the held queue gets x-consumer-disconnected-timeout 0 while the lab expects --consumer-disconnected-timeout: the leader gives the delivery back as soon as it sees the node down (what RabbitMQ below 4.3.0 always does; there the variant changes nothing)',
      fails: ['heldDeliveryReturnedMs'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'before-cut': "both producers are confirming; the leader's node is about to be cut off from the other two",
    'cut-off':
      "the links are cut and held: the majority's leader, each side's view of the other, the producers' outcomes are read",
    healed: "the links are back; the cut-off node's replica is compared with the leader's commit index next",
  },
  requires: async (config) => {
    const missing = await (await import('../../src/services/cluster.js')).clusterMissing(config, CLUSTER_NODES);
    return missing ?? (await import('../../src/services/link-cut.js')).linkCutRefusal(config.ports);
  },
  disruptive: true,
});

/** a broken variant of partition */
export type Fault = FaultName<typeof meta.faults>;
