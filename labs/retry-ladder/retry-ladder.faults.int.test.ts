/**
 * Every check of retry-ladder shown failing: the lab runs a deliberately broken variant
 * (MQLAB_FAULT=retry-ladder:<fault>, see variants.ts) and the check that should catch it
 * prints FAIL; the lab exits 1. Faults that do not disturb each other share a run.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'effect written before the call, the app copying to the DLQ itself, a doubled park, a retry after shutdown',
    faults: ['write-before-call', 'self-dead-letter', 'park-twice', 'late-retry'],
  },
  { title: 'a consumer that ignores the deadline: parked climbs every tier into the DLQ', faults: ['ignore-deadline'] },
  { title: 'an attempt header that skips a number', faults: ['double-increment'] },
  {
    title: 'retries that skip the delay queues, and a park the deadline did not call for',
    faults: ['skip-delay', 'park-early'],
    args: ['--base', '2s', '--max-delay', '8s', '--max-attempts', '10'],
  },
]);
