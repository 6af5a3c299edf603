/**
 * at-most-once-drop, broken on purpose (MQLAB_FAULT=at-most-once-drop:<fault>; variants.ts):
 * each check is shown failing when the experiment it observes goes wrong, and the lab exits 1.
 */
import { expect } from 'vitest';
import { describeFaults } from '../../test/faults.js';
import { runLabJson, useNamespace, useServices } from '../../test/helpers.js';
import { capabilities } from '../../src/broker/capabilities.js';
import { declareTopology } from '../../src/broker/topology.js';
import { namespaced } from '../../src/core/names.js';
import { meta } from './meta.js';
import { names, topology } from './names.js';

const NS = useNamespace(import.meta.url).namespace;
const s = useServices();

describeFaults(meta, NS, [
  // the letter it holds does not arrive: the fallback phase's policy switches the strategy to
  // at-most-once in effect, which deletes held letters (keep-binding shows droppedArrivals failing)
  { title: 'at-least-once in the drop phase: the letter is held', faults: ['at-least-once-in-drop'] },
  // The source's counters as an earlier run left them: two ready, nothing held (as in a correct drop
  // phase), written by the tick before this run purged the source. The drop phase must read past them:
  // taken for its markers' reading they said heldAfterReject=0 with the letter held (a build that did
  // not read past them passed it in 4 runs of 4 on 4.3.6). When a tick comes before the lab's first
  // reading there is nothing to read past, and the run must fail the same.
  {
    title: 'at-least-once in the drop phase, right after counters showing two ready and none held: still held',
    faults: ['at-least-once-in-drop'],
    run: async (standard, ns) => {
      const n = names(namespaced(ns));
      await declareTopology(s.broker, topology(namespaced(ns)));
      await s.mgmt.deletePolicy(n.policy);
      await s.broker.channel.purgeQueue(n.source);
      for (const id of ['earlier-1', 'earlier-2']) await s.broker.sendConfirmed(n.source, 'earlier', { messageId: id });
      const shown = await s.mgmt.queueWhen(n.source, (q) => q.ready === 2 && q.messages === 2, 15_000, 20, 'now');
      expect(shown).toMatchObject({ ready: 2, messages: 2, unacked: 0 });
      const r = await standard();
      expect(r.stdout).toContain('FAIL heldAfterReject: expected=0 actual=1');
    },
  },
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
