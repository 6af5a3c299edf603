/** The replay lab's metadata: cheap to import (the CLI lists and describes labs from it). */
import { defineLab } from '../../src/kit/index.js';
import { faults } from './faults.js';
import { checkpoints } from './checkpoints.js';

export const meta = defineLab({
  name: 'replay',
  title: 'controlled replay of a dead message with an audit trail',
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
  faults,
  checkpoints,
  load: () => import('./lab.js'),
});
