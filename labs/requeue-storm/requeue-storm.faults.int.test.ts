/**
 * Every check of requeue-storm shown failing: the lab runs deliberately broken variants
 * (MQLAB_FAULT=requeue-storm:<fault>, see ctx.fault in mode.ts) in one run, and the checks that should
 * catch them print FAIL; the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

describe('requeue-storm: each check fails when the experiment is broken on purpose', () => {
  it('a delayed mode that requeues, a healthy message acked unprocessed, a failing message put back', async () => {
    await expectFaultsFail({
      lab: 'requeue-storm',
      namespace: NS,
      faults: ['delayed-requeues', 'healthy-lost', 'leave-failing'],
      fails: [
        'FAIL delayedGapMinMs:', // the delayed mode's message is back at once
        'FAIL healthyProcessedRequeue:', // acked unprocessed
        'FAIL healthyProcessedDelayed:',
        'FAIL queueDepthAfter:', // the failing message is still queued
      ],
    });
  });

  it('a requeue consumer that holds the failing message one delay TTL before its nack', async () => {
    await expectFaultsFail({ lab: 'requeue-storm', namespace: NS, faults: ['requeue-waits'], fails: ['FAIL requeueGapP50Ms:'] });
  });
});
