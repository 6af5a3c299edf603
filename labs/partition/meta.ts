/** The partition lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, UsageError, NET_TICKTIME_S } from '../../src/kit/index.js';
import { options } from './options.js';
import { CLUSTER_NODES } from './names.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

/** the nodes declare a silent peer down after at most 1.25 × net_ticktime; the cut must outlast that */
const DETECTOR_MS = NET_TICKTIME_S * 1250;

export const meta = defineLab({
  name: 'partition',
  title: "a quorum queue's leader node cut off from the other two mid-stream, then healed: no confirmed message lost",
  proves:
    'Two producers publish ids with confirms to a quorum queue on 3 nodes, one through the node that leads it, one ' +
    "through a majority node. Mid-stream the lab cuts the leader's node off from the other two (its Erlang " +
    "distribution dropped both ways by nftables rules on the nodes' own addresses; AMQP to every node stays up), " +
    "holds the cut past the nodes' failure detector and heals it. From the run's history and the nodes' own views: " +
    'the cut-off leader confirms nothing after the cut (its publishes time out), the majority elects a new leader ' +
    'within a bound and keeps confirming, both sides see the other down, then every member again, the cut-off ' +
    "replica rejoins as a follower at the leader's commit index, no confirmed id is lost, every duplicate is of an " +
    'unconfirmed id. Needs `mqlab up --nodes 3` and root (nftables).',
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
  },
  checks: [
    'cutOffLeaderConfirmsNothing',
    'leaderChanged',
    'majorityResumedMs',
    'majorityConfirmsDuringCut',
    'partitionObserved',
    'partitionHealed',
    'cutOffReplicaCaughtUp',
    'confirmedLost',
    'everyIdConsumed',
    'duplicatesNotUnconfirmed',
    'unconfirmedResent',
  ],
  faults,
  checkpoints,
  requires: async (config) => {
    const missing = await (await import('../../src/services/cluster.js')).clusterMissing(config, CLUSTER_NODES);
    return missing ?? (await import('../../src/services/link-cut.js')).linkCutRefusal(config.ports);
  },
  disruptive: true,
  load: () => import('./lab.js'),
});
