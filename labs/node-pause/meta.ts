/** The node-pause lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, UsageError, NET_TICKTIME_S, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';
import { CLUSTER_NODES } from './names.js';

/** the nodes declare a silent peer down after at most 1.25 × net_ticktime; the pause must outlast that */
const DETECTOR_MS = NET_TICKTIME_S * 1250;

export const meta = defineLab({
  name: 'node-pause',
  title: "a quorum queue's leader node frozen (SIGSTOP) mid-stream, then resumed: no confirmed message lost",
  summary:
    "a quorum queue's leader node frozen with SIGSTOP mid-stream, then resumed (`mqlab up --nodes 3`): its clients see only timeouts, the majority elects and confirms on, the node steps down and catches up, zero confirmed loss",
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
  // the broken variants (MQLAB_FAULT=node-pause:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'pause-follower': {
      breaks:
        "the lab freezes a follower's node (producer B's), not the leader's: the leader keeps leading and confirming",
      fails: ['leaderChanged', 'frozenLeaderAnsweredNothing', 'majorityResumedMs', 'majorityConfirmsDuringPause'],
    },
    'no-resume': {
      breaks: 'the node stays frozen until the lab ends: it is never seen again, its replica never catches up',
      fails: ['resumedSeen', 'frozenReplicaCaughtUp'],
    },
    'no-resend': {
      breaks:
        'the producer does not send again the ids it has no confirm for: no node ever confirms them (whether the resumed node still enqueues them is a race, so everyIdConsumed may pass)',
      fails: ['unconfirmedResent'],
    },
    'resend-confirmed': {
      breaks: 'the producer sends a window of confirmed ids again too',
      fails: ['duplicatesNotUnconfirmed'],
    },
    'timeout-is-confirm': {
      breaks:
        'the producer takes a confirm timeout for a confirm (and so sends nothing again): the frozen node seems to confirm',
      fails: ['frozenLeaderAnsweredNothing'],
    },
    'ack-before-record': {
      breaks: 'the consumer acks its first deliveries before it has recorded them, and loses them',
      fails: ['confirmedLost', 'everyIdConsumed'],
    },
    'short-pause': {
      breaks: "the node is resumed before the others' failure detector (net_ticktime) can see it gone",
      fails: ['pauseObserved'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'before-pause': "both producers are confirming; the leader's node is about to be frozen (SIGSTOP)",
    frozen:
      "the node is held frozen: the majority's leader, its view of the frozen node, the producers' outcomes are read",
    resumed: "the node runs again (SIGCONT); its replica is compared with the leader's commit index next",
  },
  requires: async (config) => (await import('../../src/services/cluster.js')).clusterMissing(config, CLUSTER_NODES),
  disruptive: true,
});

/** a broken variant of node-pause */
export type Fault = FaultName<typeof meta.faults>;
