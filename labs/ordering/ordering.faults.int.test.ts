/**
 * Every check of ordering shown failing: the lab runs deliberately broken variants
 * (MQLAB_FAULT=ordering:<fault>; variants.ts) and the checks that should
 * catch them print FAIL; the lab exits 1.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  { title: 'a downstream that never fails: no retry, no drift', faults: ['v1-succeeds'] },
  {
    title: 'an upsert without its version condition, and a producer not stopped',
    faults: ['no-version-check', 'late-publish'],
  },
  { title: 'a stale event acked without a record', faults: ['drop-stale'] },
]);
