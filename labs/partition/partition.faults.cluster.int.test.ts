/**
 * partition's broken variants (MQLAB_FAULT, src/lab/fault.ts), each caught by its check, on the cluster (the
 * cluster suite). Shorter streams and a freeze/cut just above the failure detector.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

const namespace = useNamespace('t_ptf').namespace;
const short = ['--stream', '2s', '--cut-for', '14s'];

describeFaults(meta, namespace, [
  {
    title: 'a follower is cut off: the leader keeps leading and confirming',
    faults: ['cut-follower'],
    args: [...short, '--election-bound', '5s'],
  },
  {
    title: 'the links stay cut: the nodes never meet again, the replica never catches up',
    faults: ['no-heal'],
    args: [...short, '--catch-up-timeout', '15s'],
  },
  {
    title: 'no resend of the ids without a confirm: some are never consumed, none confirmed elsewhere',
    faults: ['no-resend'],
    args: short,
  },
  {
    // two variants of different steps in one run (no extra run): the resend's and the held queue's
    title:
      'a window of confirmed ids sent again: duplicates of confirmed ids; the held queue without its timeout: the delivery back as soon as the node is seen down',
    faults: ['resend-confirmed', 'disconnected-timeout-zero'],
    args: short,
  },
  { title: 'a confirm timeout taken for a confirm: confirmed ids lost', faults: ['timeout-is-confirm'], args: short },
  {
    title: 'healed before the failure detector: the partition is never seen',
    faults: ['short-cut'],
    // 2 s: no election either, so node 2 still leads and its replica is no follower to catch up
    args: [...short, '--catch-up-timeout', '15s'],
  },
]);
