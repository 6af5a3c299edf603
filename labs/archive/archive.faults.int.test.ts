/**
 * Every check of archive shown failing: the lab and its archiver process run deliberately broken
 * variants (MQLAB_FAULT=archive:<fault>; ctx.fault in lab.ts, rt.fault in archiver.ts) and the checks
 * that should catch them print FAIL; the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const expectFails = (faults: string[], fails: string[], args: string[] = []) => expectFaultsFail({ lab: 'archive', namespace: NS, faults, fails, args });

describe('archive: each check fails when the experiment is broken on purpose', () => {
  it('ack before commit, only x-death[0] read, a status step skipped, a row inside the retention, a producer not stopped', () =>
    expectFails(
      ['ack-before-commit', 'newest-death-only', 'skip-in-progress', 'old-row-29d', 'late-publish'],
      [
        'FAIL redeliveredToSecondArchiver:', // acked before the kill: the broker never hands it back
        'FAIL duplicateSkipped:',
        'FAIL firstDeath:', // x-death[0] is A1002's last death, not its first
        'FAIL originalRoute:',
        'FAIL statusLifecycle:', // ARCHIVED → FIXED refused by the trigger
        'FAIL backwardsStatusRefused:', // still ARCHIVED, so "back to ARCHIVED" changes nothing
        'FAIL purged:',
        'FAIL queueDepthAfter:',
      ],
    ));

  it('a clean exit instead of a kill, no ON CONFLICT, only the oldest x-death read, an order acked instead of rejected', () =>
    expectFails(
      ['exit-zero', 'no-dedupe', 'oldest-death-only', 'business-acks-one'],
      [
        'FAIL deadLetters:',
        'FAIL firstArchiverExitCode:',
        'FAIL attempts:', // one x-death entry: count 1 for A1002
        'FAIL lastDeath:', // expired in the pay-timeout queue instead of rejected in the business queue
        'FAIL failureRows:', // the redelivered A1001 hits the unique business id: 23505
      ],
    ));

  it('killed before the commit, and a second archiver that skips redelivered letters', () =>
    expectFails(['kill-before-commit', 'skip-redelivered'], ['FAIL committedBeforeKill:', 'FAIL rowsForRedelivered:', 'FAIL archivedIds:', 'FAIL keptAfterPurge:']));
});
