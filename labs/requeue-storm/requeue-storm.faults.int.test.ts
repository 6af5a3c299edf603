/**
 * Every check of requeue-storm shown failing: the lab runs deliberately broken variants
 * (MQLAB_FAULT=requeue-storm:<fault>, see ctx.fault in mode.ts) in one run, and the checks that should
 * catch them print FAIL; the lab exits 1.
 */
import { describe, expect, it } from 'vitest';
import { mqlab } from '../../test/helpers.js';

const NS = 'faultstorm';

describe('requeue-storm: each check fails when the experiment is broken on purpose', () => {
  it('a delayed mode that requeues, a healthy message acked unprocessed, a failing message put back', async () => {
    const faults = ['delayed-requeues', 'healthy-lost', 'leave-failing'];
    const r = await mqlab(['requeue-storm', '--namespace', NS], { MQLAB_FAULT: faults.map((f) => `requeue-storm:${f}`).join(',') });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('FAIL ratio:'); // both modes storm: about 1×
    expect(r.stdout).toContain('FAIL healthyProcessedRequeue:'); // acked unprocessed
    expect(r.stdout).toContain('FAIL healthyProcessedDelayed:');
    expect(r.stdout).toContain('FAIL queueDepthAfter:'); // the failing message is still queued
  });
});
