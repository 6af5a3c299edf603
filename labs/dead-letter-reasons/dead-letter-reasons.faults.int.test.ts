/**
 * Every check of dead-letter-reasons shown failing: the lab runs a deliberately broken variant
 * (MQLAB_FAULT=dead-letter-reasons:<fault>, see variants.ts) and the check that should catch
 * it prints FAIL; the lab exits 1. Every path still produces a dead letter, so no run waits out a limit.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title:
      'straight into the queues; an application-made dead letter; a second death copied by the app; a producer not stopped',
    faults: ['default-exchange', 'app-dead-letter', 'twice-app-copy', 'late-publish'],
  },
  {
    title: 'the overflow published newest first, a consumer that gives up before the delivery limit',
    faults: ['publish-newest-first', 'limit-gives-up'],
  },
]);
