/**
 * at-most-once-drop, broken on purpose (MQLAB_FAULT=at-most-once-drop:<fault>; ctx.fault in lab.ts):
 * each check is shown failing when the experiment it observes goes wrong, and the lab exits 1.
 */
import { describe, expect, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { capabilities } from '../../src/broker/capabilities.js';

const NS = useNamespace(import.meta.url).namespace;

const base = { lab: 'at-most-once-drop', namespace: NS } as const;

describe('at-most-once-drop: broken variants fail the checks that observe them', () => {
  const s = useServices();

  // the letter it holds does not arrive: the fallback phase's policy switches the strategy to
  // at-most-once in effect, which deletes held letters (keep-binding shows droppedArrivals failing)
  it('at-least-once in the drop phase: the letter is held', () =>
    expectFaultsFail({ ...base, faults: ['at-least-once-in-drop'], fails: ['FAIL dropStrategy:', 'FAIL heldAfterReject:'] }));

  it('the target left bound: the letter is routed, not dropped', () =>
    expectFaultsFail({ ...base, faults: ['keep-binding'], fails: ['FAIL targetUnbound:', 'FAIL droppedArrivals:'] }));

  it('at-least-once with reject-publish in the fallback phase: the letter is held, no warning logged', () =>
    expectFaultsFail({
      ...base,
      faults: ['fallback-with-reject-publish'],
      fails: ['FAIL fallbackPolicy:', 'FAIL fallbackHeld:', 'FAIL fallbackArrivals:', 'FAIL fallbackWarningLogged:'],
    }));

  // the difference between the lines, side by side: 4.3.0 purges held letters (rabbit_fifo
  // dlx_purge), 3.10 leaves them in the source (the worker delivers the letter after the rebind)
  it('the markers purged instead of taken off: on 4.3 the held letter goes with them, on 3.10 it stays', async () => {
    if (capabilities(s.broker.version).purgeRemovesHeldLetters) {
      // the purged letter no longer counts toward max-length either: one more publish accepted
      const r = await expectFaultsFail({ ...base, faults: ['purge-markers'], fails: ['FAIL heldAfterMarkers:', 'FAIL acceptedWhileHeld:'], only: true });
      expect(r.stdout).toContain('FAIL heldAfterMarkers: expected=1 actual=0');
      expect(r.stdout).toContain('FAIL acceptedWhileHeld: expected=100 actual=101');
      return;
    }
    const { code, report } = await runLabJson('at-most-once-drop', ['--namespace', NS], { MQLAB_FAULT: 'at-most-once-drop:purge-markers' });
    expect(code).toBe(0);
    expect(report.facts.markersRemoved).toBe('purge: 4');
    expect(report.facts.sourceAfterMarkers).toBe('messages=1 ready=0 unacked=0');
  });

  // nothing is held, so nothing can recover: a short --recover-timeout ends the run soon
  it('the at-least-once strategy missing: nothing is held, nothing delivered, one more publish accepted', () =>
    expectFaultsFail({
      ...base,
      faults: ['at-least-once-missing'],
      fails: ['FAIL holdStrategy:', 'FAIL heldWhileUnbound:', 'FAIL heldLetterDelivered:', 'FAIL acceptedWhileHeld:'],
      args: ['--recover-timeout', '8s'],
    }));
});
