/**
 * Every check of ordering shown failing: the lab runs deliberately broken variants
 * (MQLAB_FAULT=ordering:<fault>; ctx.fault in lab.ts, passed to store.ts) and the checks that should
 * catch them print FAIL; the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const expectFails = (faults: string[], fails: string[], args: string[] = []) => expectFaultsFail({ lab: 'ordering', namespace: NS, faults, fails, args });

describe('ordering: each check fails when the experiment is broken on purpose', () => {
  it('a downstream that never fails: no retry, no drift', () =>
    expectFails(['v1-succeeds'], ['FAIL processingOrder:', 'FAIL v1Attempts:', 'FAIL retryGapMs:', 'FAIL naiveFinalVersion:']));

  it('an upsert without its version condition, and a producer not stopped', () =>
    expectFails(['no-version-check', 'late-publish'], ['FAIL storedVersion:', 'FAIL staleEvents:', 'FAIL staleEvent:', 'FAIL queueDepthAfter:']));

  it('a stale event acked without a record', () => expectFails(['drop-stale'], ['FAIL lostEvents:', 'FAIL staleEvents:']));
});
