/** The quorum-failover lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, UsageError, type FaultName } from '../../src/kit/index.js';
import { options } from './options.js';
import { CLUSTER_NODES } from './names.js';

export const meta = defineLab({
  name: 'quorum-failover',
  title: "a quorum queue's leader node SIGKILLed mid-stream: no confirmed message lost, unconfirmed ones resent",
  summary:
    "a quorum queue's leader node SIGKILLed mid-stream (`mqlab up --nodes 3`): a new leader, zero confirmed loss, every unconfirmed id resent, duplicates only of unconfirmed ids, the node rejoins and catches up",
  proves:
    'A producer publishes a stream of ids with confirms to a quorum queue replicated on 3 nodes; mid-stream the ' +
    'lab SIGKILLs the OS process of the node that leads the queue (found in the management API). The producer ' +
    'reconnects to a surviving node and resends every id it had no confirm for; a consumer records each id in ' +
    'PostgreSQL under a unique key. From observed data: a new leader is elected, every confirmed id was consumed ' +
    '(zero confirmed loss), every duplicate copy is an id that was unconfirmed at the kill, the killed node ' +
    "restarts, rejoins and reaches the leader's commit index, and the kill-to-first-confirm time is within a bound. " +
    'Needs `mqlab up --nodes 3`.',
  // election after the kill (a few seconds) + the node's restart and catch-up
  floorMs: 15_000,
  options,
  validate: (o) => {
    if (o.killAfter >= o.messages)
      throw new UsageError(
        `--kill-after (${o.killAfter}) must be below --messages (${o.messages})`,
        'the kill must come mid-stream',
      );
  },
  checks: [
    'leaderChanged',
    'confirmedLost',
    'everyIdConsumed',
    'duplicatesNotUnconfirmed',
    'killedReplicaCaughtUp',
    'failoverMs',
  ],
  // the broken variants (MQLAB_FAULT=quorum-failover:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'kill-follower': {
      breaks: 'the lab kills a follower, not the leader: the leader does not change',
      fails: ['leaderChanged'],
    },
    'confirm-early': {
      breaks: 'the producer counts a write to the socket as a confirm (and so resends nothing)',
      fails: ['confirmedLost'],
    },
    'no-resend': {
      breaks: 'the producer does not resend the ids still unconfirmed at the kill',
      fails: ['everyIdConsumed'],
    },
    'resend-window': {
      breaks: 'the producer resends a window of confirmed ids too',
      fails: ['duplicatesNotUnconfirmed'],
    },
    'no-restart': {
      breaks: 'the killed node is left down: its replica never catches up',
      fails: ['killedReplicaCaughtUp'],
    },
    'slow-reconnect': {
      breaks: 'the producer waits longer than the failover bound before it reconnects',
      fails: ['failoverMs'],
    },
    'declare-at-once': {
      breaks:
        'the queue is declared again right after its delete, while the deleted replicas still terminate (on 3.10 the killed node can come back without the new replica: a race, decided from its log)',
      fails: ['killedReplicaCaughtUp'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'before-kill':
      "part of the stream is confirmed; the producer holds the rest while you look, then sends on and the leader's node is killed with publishes in flight",
    'failed-over': 'the producer has reconnected, resent and finished; the management API names the new leader',
    rejoined: "the killed node runs again; its replica is compared with the leader's commit index next",
  },
  requires: async (config) => (await import('../../src/services/cluster.js')).clusterMissing(config, CLUSTER_NODES),
  disruptive: true,
});

/** a broken variant of quorum-failover */
export type Fault = FaultName<typeof meta.faults>;
