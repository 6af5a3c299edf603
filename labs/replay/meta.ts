/** The replay lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab, type FaultName } from '../../src/kit/index.js';

export const meta = defineLab({
  name: 'replay',
  title: 'controlled replay of a dead message with an audit trail',
  summary: 'controlled replay of a dead message with an audit trail; confirm before ack',
  seed: '000 `replay`',
  proves:
    'A quarantined message (amount=invalid) is replayed only with an APPROVED audit row, repaired from that ' +
    'approval to amount=10 under the same message id, published and confirmed before the dead original is ' +
    'acked; the receiver checks id and payload and moves the audit row APPROVED → VERIFIED; both quorum ' +
    'queues end empty.',
  floorMs: 0,
  options: {},
  checks: [
    'stableEventId',
    'repairedPayload',
    'sourceRemovedAfterConfirm',
    'verified',
    'auditState',
    'queueDepthAfter',
  ],
  // the broken variants (MQLAB_FAULT=replay:<name>): what each breaks, and the checks that must print FAIL
  faults: {
    'ack-before-confirm': {
      breaks: 'the dead original is acked before its repaired copy is confirmed',
      fails: ['sourceRemovedAfterConfirm'],
    },
    'new-id': { breaks: 'the replayed copy gets a new message id', fails: ['stableEventId'] },
    'raw-payload': {
      breaks: 'the unrepaired body is replayed: the receiver cannot verify it',
      fails: ['repairedPayload', 'verified', 'auditState'],
    },
    'publish-twice': { breaks: 'the repaired copy is published twice', fails: ['queueDepthAfter'] },
    'keep-original': {
      breaks: 'the original is never acked: it stays in the dead queue',
      fails: ['sourceRemovedAfterConfirm', 'queueDepthAfter'],
    },
  },
  // the run's pauses (ctx.checkpoint), in run order: what is true at each (printed at --step pauses)
  checkpoints: {
    'repair-confirmed':
      'the approved, repaired copy (same id) is confirmed in the work queue; the dead original is still held unacked by the replay tool, so the event exists twice for a moment',
  },
});

/** a broken variant of replay */
export type Fault = FaultName<typeof meta.faults>;
