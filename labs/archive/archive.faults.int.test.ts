/**
 * Every check of archive shown failing: the lab and its archiver process run deliberately broken
 * variants (MQLAB_FAULT=archive:<fault>; variants.ts, for the lab and its archiver) and the checks
 * that should catch them print FAIL; the lab exits 1.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title:
      'ack before commit, only x-death[0] read, a status step skipped, a row inside the retention, a producer not stopped',
    faults: ['ack-before-commit', 'newest-death-only', 'skip-in-progress', 'old-row-29d', 'late-publish'],
  },
  {
    title:
      'a clean exit instead of a kill, no ON CONFLICT, only the oldest x-death read, an order acked instead of rejected',
    faults: ['exit-zero', 'no-dedupe', 'oldest-death-only', 'business-acks-one'],
  },
  {
    title: 'killed before the commit, and a second archiver that skips redelivered letters',
    faults: ['kill-before-commit', 'skip-redelivered'],
  },
]);
