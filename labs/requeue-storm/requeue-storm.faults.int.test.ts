/**
 * Every check of requeue-storm shown failing: the lab runs deliberately broken variants
 * (MQLAB_FAULT=requeue-storm:<fault>, see ctx.fault in mode.ts) in one run, and the checks that should
 * catch them print FAIL; the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/fault-runs.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

describe('requeue-storm: each check fails when the experiment is broken on purpose', () => {
  it('a delayed mode that requeues, a healthy message acked unprocessed, a failing message put back', async () => {
    await expectFaultsFail('requeue-storm', NS, ['delayed-requeues', 'healthy-lost', 'leave-failing'], [
      'FAIL ratio:', // both modes storm: about 1×
      'FAIL healthyProcessedRequeue:', // acked unprocessed
      'FAIL healthyProcessedDelayed:',
      'FAIL queueDepthAfter:', // the failing message is still queued
    ]);
  });
});
