/** The ordering lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'ordering',
  title: 'version checks beat ordering under delayed retry',
  summary: 'version checks beat ordering under delayed retry: a late version 1 is recorded stale',
  seed: '003 §5.2, 000',
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
  // the broken variants (MQLAB_FAULT=ordering:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'v1-succeeds': {
      breaks: 'the downstream never fails: no retry, no drift',
      fails: ['processingOrder', 'v1Attempts', 'retryGapMs', 'naiveFinalVersion'],
    },
    'no-version-check': {
      breaks: 'the upsert has no version condition: the stale v1 overwrites v2',
      fails: ['storedVersion', 'staleEvents', 'staleEvent'],
    },
    'late-publish': { breaks: 'a producer that was not stopped publishes v3', fails: ['queueDepthAfter'] },
    'drop-stale': { breaks: 'a stale event is acked without a record', fails: ['lostEvents', 'staleEvents'] },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'version-applied': 'v2 (paid) is committed to the state table while v1 waits in the delay queue',
    'stale-recorded':
      'v1 came back from the delay queue (attempt 2) and was recorded as stale with incoming version 1 and stored version 2; the state still says version 2',
  },
});

/** a broken variant of ordering */
export type Fault = FaultName<typeof meta.faults>;
