/**
 * Every check of retry-ladder shown failing: the lab runs a deliberately broken variant
 * (MQLAB_FAULT=retry-ladder:<fault>, see ctx.fault in lab.ts) and the check that should catch it
 * prints FAIL; the lab exits 1. Faults that do not disturb each other share a run.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;
const expectFails = (faults: string[], fails: string[], args: string[] = []) => expectFaultsFail({ lab: 'retry-ladder', namespace: NS, faults, fails, args });

describe('retry-ladder: each check fails when the experiment is broken on purpose', () => {
  it('effect written before the call, the app copying to the DLQ itself, a doubled park, a retry after shutdown', () =>
    expectFails(
      ['write-before-call', 'self-dead-letter', 'park-twice', 'late-retry'],
      [
        'FAIL businessRows:', // every failing attempt left a row
        'FAIL recoveredCommittedAttempt:', // recovers' row is from attempt 1
        'FAIL dlqDeathReason:', // no x-death: the broker never dead-lettered it
        'FAIL placement:',
        'FAIL extraCopies:',
        'FAIL parkingDepth:',
        'FAIL leftInFlight:', // the late copy waits in the top tier
      ],
    ));

  it('a consumer that ignores the deadline: parked climbs every tier into the DLQ', () =>
    expectFails(['ignore-deadline'], ['FAIL parkedAttempts:', 'FAIL parkedAttemptCount:', 'FAIL parkedLeftMs:', 'FAIL dlqDepth:']));

  it('an attempt header that skips a number', () =>
    expectFails(['double-increment'], ['FAIL recoveredAttempts:', 'FAIL exhaustedAttempts:', 'FAIL parkedAttempts:']));

  // long tiers, so a copy that skips them is seconds early even on a busy machine (and the run stays short: it waits in none)
  it('retries that skip the delay queues, and a park the deadline did not call for', () =>
    expectFails(
      ['skip-delay', 'park-early'],
      [
        'FAIL exhaustedTiersMs:', // no x-death expired entry: no tier held it
        'FAIL exhaustedGap1Ms:',
        'FAIL exhaustedGap2Ms:',
        'FAIL exhaustedGap3Ms:',
        'FAIL everyGapCoversItsTier:',
        'FAIL parkedLeftMs:', // 4100 ms left at attempt 1, 2100 ms needed
      ],
      ['--base', '2s', '--max-delay', '8s'],
    ));
});
