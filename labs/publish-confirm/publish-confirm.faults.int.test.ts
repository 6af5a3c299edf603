/**
 * publish-confirm, broken on purpose (MQLAB_FAULT=publish-confirm:<fault>; variants.ts, for the
 * lab and its producer process): each check is shown failing when the experiment it observes
 * goes wrong, and the lab exits 1.
 */
import { describeFaults } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';
import { meta } from './meta.js';

describeFaults(meta, useNamespace(import.meta.url).namespace, [
  {
    title: 'a catch-all binding: the "unroutable" message lands in a queue, no basic.return',
    faults: ['bind-catch-all'],
  },
  {
    title: 'the plain publish sent mandatory: a return where an unroutable plain publish is dropped silently',
    faults: ['plain-mandatory'],
  },
  { title: 'room made in the bounded queue before the second publish: no nack', faults: ['room-for-two'] },
  { title: 'a new message id on the resend: the resend is not the same message', faults: ['new-id-on-resend'] },
  { title: 'the producer waits for its confirm instead of dying before it', faults: ['wait-for-confirm'] },
  { title: 'no publish retry after the unknown outcome', faults: ['no-republish'] },
  { title: 'no consume retry', faults: ['no-consume-retry'] },
  { title: 'a consumer that does not dedupe: two business effects from one event', faults: ['no-dedupe'] },
]);
