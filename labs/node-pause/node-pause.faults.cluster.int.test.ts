/**
 * node-pause's broken variants (MQLAB_FAULT, src/lab/fault.ts), each caught by its check, on the cluster (the
 * cluster suite). Shorter streams and a freeze/cut just above the failure detector.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

const namespace = useNamespace('t_npf').namespace;
const short = ['--stream', '2s', '--pause-for', '14s'];

describeFaults(meta, namespace, [
  {
    title: 'a follower is frozen: the leader keeps leading and confirming',
    faults: ['pause-follower'],
    args: [...short, '--election-bound', '5s'],
  },
  {
    title: 'the node stays frozen: it is never seen again, its replica never catches up',
    faults: ['no-resume'],
    args: [...short, '--catch-up-timeout', '15s'],
  },
  { title: 'no resend of the ids without a confirm: no other node confirms them', faults: ['no-resend'], args: short },
  {
    title: 'a window of confirmed ids sent again: duplicates of confirmed ids',
    faults: ['resend-confirmed'],
    args: short,
  },
  {
    title:
      'a confirm timeout taken for a confirm: the frozen node seems to confirm (its buffered publishes are delivered after the resume)',
    faults: ['timeout-is-confirm'],
    args: short,
  },
  {
    title: 'a consumer that acks before it records: confirmed ids lost, not every id consumed',
    faults: ['ack-before-record'],
    args: short,
  },
  {
    title: 'resumed before the failure detector: the pause is never seen',
    faults: ['short-pause'],
    // 2 s: no election either, so node 2 still leads and its replica is no follower to catch up
    args: [...short, '--catch-up-timeout', '15s'],
  },
]);
