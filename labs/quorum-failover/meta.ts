/** The quorum-failover lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, UsageError } from '../../src/kit/index.js';
import { options } from './options.js';
import { CLUSTER_NODES } from './names.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'quorum-failover',
  title: "a quorum queue's leader node SIGKILLed mid-stream: no confirmed message lost, unconfirmed ones resent",
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
  faults,
  checkpoints,
  requires: async (config) => (await import('../../src/services/cluster.js')).clusterMissing(config, CLUSTER_NODES),
  disruptive: true,
  load: () => import('./lab.js'),
});
