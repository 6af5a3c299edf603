/** The node-pause lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, UsageError, NET_TICKTIME_S } from '../../src/kit/index.js';
import { options } from './options.js';
import { CLUSTER_NODES } from './names.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

/** the nodes declare a silent peer down after at most 1.25 × net_ticktime; the pause must outlast that */
const DETECTOR_MS = NET_TICKTIME_S * 1250;

export const meta = defineLab({
  name: 'node-pause',
  title: "a quorum queue's leader node frozen (SIGSTOP) mid-stream, then resumed: no confirmed message lost",
  proves:
    'Two producers publish ids with confirms to a quorum queue on 3 nodes, one through the node that leads it, one ' +
    "through a majority node. Mid-stream the lab freezes the leader node's Erlang VM (SIGSTOP: a stop-the-world " +
    "pause; its sockets stay open), holds it past the failure detector and resumes it (SIGCONT). From the run's " +
    "history and the majority's view: the frozen node answers nothing (its client sees only confirm timeouts, no " +
    'error), the majority elects a new leader within a bound and keeps confirming, sees the node down and back, the ' +
    "resumed node's replica steps down to follower at the leader's commit index, no confirmed id is lost, every " +
    'duplicate is of an unconfirmed id. Needs `mqlab up --nodes 3`.',
  floorMs: 35_000,
  // no database in this process: the run opens no connection to PostgreSQL
  database: false,
  options,
  validate: (o) => {
    if (o.pauseForMs <= DETECTOR_MS)
      throw new UsageError(
        `--pause-for (${o.pauseForMs} ms) must be above ${DETECTOR_MS} ms`,
        `the nodes declare a silent peer down only after up to 1.25 × net_ticktime (${NET_TICKTIME_S} s)`,
      );
  },
  checks: [
    'frozenLeaderAnsweredNothing',
    'leaderChanged',
    'majorityResumedMs',
    'majorityConfirmsDuringPause',
    'pauseObserved',
    'resumedSeen',
    'frozenReplicaCaughtUp',
    'confirmedLost',
    'everyIdConsumed',
    'duplicatesNotUnconfirmed',
    'unconfirmedResent',
  ],
  faults,
  checkpoints,
  requires: async (config) => (await import('../../src/services/cluster.js')).clusterMissing(config, CLUSTER_NODES),
  disruptive: true,
  load: () => import('./lab.js'),
});
