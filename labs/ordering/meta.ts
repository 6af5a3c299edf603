/** The ordering lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'ordering',
  title: 'version checks beat ordering under delayed retry',
  proves:
    'Version 1 of order-42 fails once and waits 300 ms in a TTL delay queue while version 2 is applied; ' +
    'when version 1 returns, one transaction (a conditional upsert WHERE stored.version < incoming.version) ' +
    'leaves version 2 stored and records version 1 in the stale table with both versions. No event is lost, ' +
    'the queues end empty, and a naive last-write-wins table written from the same deliveries ends at version 1.',
  floorMs: 300,
  options: {},
  checks: [
    'processingOrder',
    'v1Attempts',
    'retryGapMs',
    'storedVersion',
    'staleEvents',
    'staleEvent',
    'lostEvents',
    'naiveFinalVersion',
    'queueDepthAfter',
  ],
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
