/**
 * at-most-once-drop, broken on purpose (MQLAB_FAULT=at-most-once-drop:<fault>; ctx.fault in lab.ts):
 * each check is shown failing when the experiment it observes goes wrong, and the lab exits 1.
 */
import { describe, it } from 'vitest';
import { expectFaultsFail } from '../../test/faults.js';
import { useNamespace } from '../../test/helpers.js';

const NS = useNamespace(import.meta.url).namespace;

const base = { lab: 'at-most-once-drop', namespace: NS } as const;

describe('at-most-once-drop: broken variants fail the checks that observe them', () => {
  it('at-least-once in the drop phase: the letter is held, then arrives', () =>
    expectFaultsFail({ ...base, faults: ['at-least-once-in-drop'], fails: ['FAIL dropStrategy:', 'FAIL heldAfterReject:', 'FAIL droppedArrivals:'] }));

  it('the target left bound: the letter is routed, not dropped', () =>
    expectFaultsFail({ ...base, faults: ['keep-binding'], fails: ['FAIL targetUnbound:', 'FAIL droppedArrivals:'] }));

  // nothing is held, so nothing can recover: a short --recover-timeout ends the run soon
  it('the at-least-once strategy missing: nothing is held, nothing delivered', () =>
    expectFaultsFail({
      ...base,
      faults: ['at-least-once-missing'],
      fails: ['FAIL holdStrategy:', 'FAIL heldWhileUnbound:', 'FAIL heldLetterDelivered:'],
      args: ['--recover-timeout', '8s'],
    }));
});
