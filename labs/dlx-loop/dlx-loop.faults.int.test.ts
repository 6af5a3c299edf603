/**
 * Every check of dlx-loop shown failing: the lab runs a deliberately broken variant
 * (MQLAB_FAULT=dlx-loop:<fault>; lab.ts and faults.ts) and the check that should catch it prints
 * FAIL; the lab exits 1. Faults of the broken half and of the fixed half share a run.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const expectFails = (faults: string[], fails: string[], args: string[] = []) => expectFaultsFail({ lab: 'dlx-loop', namespace: NS, faults, fails, args });

describe('dlx-loop: each check fails when the experiment is broken on purpose', () => {
  it('a requeue instead of a dead-letter hop; a fixed queue whose dead-letter route also leads home', () =>
    expectFails(
      ['requeue-loop', 'fixed-loop-binding'],
      [
        'FAIL xDeathCounts:', // a requeue leaves no x-death
        'FAIL loopHistory:',
        'FAIL fixedLoopDetected:', // the management API's bindings show the loop
        'FAIL fixedShortestRetryGapMs:', // the copy that skipped the TTL queue is back at once
        'FAIL queueDepthAfter:', // the extra copies are still queued
      ],
    ));

  it('no loop binding; one attempt too many; an archived copy without its id; a letter put back', () =>
    expectFails(
      ['no-loop-binding', 'off-by-one', 'archive-without-id', 'leave-archive'],
      ['FAIL loopDetected:', 'FAIL leftLoopAfterAttempts:', 'FAIL archived:', 'FAIL queueDepthAfter:'],
    ));
});
