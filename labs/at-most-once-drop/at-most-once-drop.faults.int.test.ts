/**
 * at-most-once-drop, broken on purpose (MQLAB_FAULT=at-most-once-drop:<fault>; ctx.fault in lab.ts):
 * each check is shown failing when the experiment it observes goes wrong, and the lab exits 1.
 */
import { expect } from 'vitest';
import { describeFaults } from '../../test/faults.js';
import { runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { capabilities } from '../../src/broker/capabilities.js';
import { meta } from './meta.js';

const NS = useNamespace(import.meta.url).namespace;
const s = useServices();

describeFaults(meta, NS, [
  // the letter it holds does not arrive: the fallback phase's policy switches the strategy to
  // at-most-once in effect, which deletes held letters (keep-binding shows droppedArrivals failing)
  { title: 'at-least-once in the drop phase: the letter is held', faults: ['at-least-once-in-drop'] },
  { title: 'the target left bound: the letter is routed, not dropped', faults: ['keep-binding'] },
  {
    title: 'at-least-once with reject-publish in the fallback phase: the letter is held, no warning logged',
    faults: ['fallback-with-reject-publish'],
  },
  // the difference between the lines, side by side: 4.3.0 purges held letters (rabbit_fifo
  // dlx_purge), 3.10 leaves them in the source (the worker delivers the letter after the rebind)
  {
    title: 'the markers purged instead of taken off: on 4.3 the held letter goes with them, on 3.10 it stays',
    faults: ['purge-markers'],
    only: true,
    run: async (standard, ns) => {
      if (capabilities(s.broker.version).purgeRemovesHeldLetters) {
        // the purged letter no longer counts toward max-length either: one more publish accepted
        const r = await standard();
        expect(r.stdout).toContain('FAIL heldAfterMarkers: expected=1 actual=0');
        expect(r.stdout).toContain('FAIL acceptedWhileHeld: expected=100 actual=101');
        return;
      }
      const { code, report } = await runLabJson('at-most-once-drop', ['--namespace', ns], {
        MQLAB_FAULT: 'at-most-once-drop:purge-markers',
      });
      expect(code).toBe(0);
      expect(report.facts.markersRemoved).toBe('purge: 4');
      expect(report.facts.sourceAfterMarkers).toBe('messages=1 ready=0 unacked=0');
    },
  },
  // nothing is held, so nothing can recover: a short --recover-timeout ends the run soon
  {
    title: 'the at-least-once strategy missing: nothing is held, nothing delivered, one more publish accepted',
    faults: ['at-least-once-missing'],
    args: ['--recover-timeout', '8s'],
  },
]);
