/**
 * Every check of requeue-storm shown failing: the lab runs deliberately broken variants
 * (MQLAB_FAULT=requeue-storm:<fault>, see variants.ts) in one run, and the checks that should
 * catch them print FAIL; the lab exits 1.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(
  meta,
  useNamespace(import.meta.url).namespace,
  [
    {
      title: 'a delayed mode that requeues, a healthy message acked unprocessed, a failing message put back',
      faults: ['delayed-requeues', 'healthy-lost', 'leave-failing'],
    },
    {
      title: 'a requeue consumer that holds the failing message one delay TTL before its nack',
      faults: ['requeue-waits'],
    },
  ],
  { oneAtATime: true }, // a storm of redeliveries holds a core for its window
);
