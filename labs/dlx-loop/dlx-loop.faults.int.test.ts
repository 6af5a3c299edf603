/**
 * Every check of dlx-loop shown failing: the lab runs a deliberately broken variant
 * (MQLAB_FAULT=dlx-loop:<fault>; lab.ts and faults.ts) and the check that should catch it prints
 * FAIL; the lab exits 1. Faults of the broken half and of the fixed half share a run.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a requeue instead of a dead-letter hop; a fixed queue whose dead-letter route also leads home',
    faults: ['requeue-loop', 'fixed-loop-binding'],
  },
  {
    title: 'no loop binding; one attempt too many; an archived copy without its id; a letter put back',
    faults: ['no-loop-binding', 'off-by-one', 'archive-without-id', 'leave-archive'],
  },
]);
