import { describe, expect, it } from 'vitest';
import { expectLabPasses, mqlab, runLabJson, useNamespace, useServices } from '../../test/helpers.js';

/** the facts these tests read */
interface DropFacts {
  [fact: string]: unknown;
  dropWatchMs: number;
  fallbackWatchMs: number;
  recoveryAfterRebindMs: number;
  fallbackWarning: string;
  arrivals: { phase: string }[];
}

const LINE =
  'at-most-once-drop: dropStrategy=at-most-once targetUnbound=true heldAfterReject=0 droppedArrivals=0 ' +
  'fallbackHeld=0 fallbackArrivals=0 holdStrategy=at-least-once heldWhileUnbound=1 heldAfterMarkers=1 heldLetterDelivered=true';
const NS = useNamespace(import.meta.url).namespace;
const SOURCE = `${NS}.me12.retry.drop`;
const TARGET = `${NS}.me12.retry.drop.target`;
const ns = ['--namespace', NS];

describe('at-most-once-drop against the real broker', () => {
  const s = useServices();

  it('passes twice in a row; the policy is cleared and nothing is left in either queue', async () => {
    await expectLabPasses(['at-most-once-drop', ...ns], {
      line: LINE,
      pass: {
        heldAfterReject: '0',
        heldWhileUnbound: '1',
        droppedArrivals: '0',
        fallbackHeld: '0',
        fallbackWarningLogged: 'true',
        heldAfterMarkers: '1',
        acceptedWhileHeld: '100',
      },
      check: async () => {
        expect((await s.mgmt.policies()).some((p) => p.name === `${NS}-me12-drop`)).toBe(false);
        expect(await s.broker.depth(TARGET)).toBe(0);
        const source = await s.mgmt.queueWhen(SOURCE, (q) => q.messages === 0, 20_000);
        expect(source?.messages).toBe(0);
      },
    });
  });

  it('watches the target for phases 1 and 2 longer than the worker needed to deliver phase 3; quotes the fallback warning', async () => {
    const { code, report } = await runLabJson<DropFacts>('at-most-once-drop', ns);
    expect(code).toBe(0);
    // four markers ready, the held letter counted apart: list_queues' view of the held letter
    expect(report.facts.sourceWhileHeld).toBe('messages=5 ready=4 unacked=0');
    // the markers taken off one by one: the letter still held (on 4.3 a purge would have taken it)
    expect(report.facts.sourceAfterMarkers).toBe('messages=1 ready=0 unacked=0');
    expect(report.facts.markersRemoved).toBe('get');
    // the held letter counts toward max-length 100: 100 confirmed, the 101st nacked, all taken off again
    expect(report.facts.publishesAcceptedWhileHeld).toBe(100);
    expect(report.facts.fillersRemoved).toBe(100);
    // the fallback: nothing held beside the three markers, and the broker's own log says why
    expect(report.facts.sourceFallback).toBe('messages=3 ready=3 unacked=0');
    expect(report.facts.fallbackWarning).toContain(
      `Falling back to dead-letter-strategy at-most-once for queue '${SOURCE}' in vhost 'lab'`,
    );
    expect(report.facts.fallbackWarning).toContain('incompatible with effective overflow strategy drop-head');
    expect(report.facts.deathRecord).toMatchObject({ queue: SOURCE, reason: 'rejected', count: 1 });
    expect(report.facts.dropWatchMs).toBeGreaterThan(report.facts.recoveryAfterRebindMs);
    expect(report.facts.fallbackWatchMs).toBeGreaterThan(report.facts.recoveryAfterRebindMs);
    expect(report.facts.arrivals.map((a) => a.phase)).toEqual(['at-least-once']);
    const waiting = report.events.filter((e) => e.source === 'checkpoint' && e.status === 'waiting');
    expect(waiting.map((e) => e.checkpoint)).toEqual(['dropped', 'fell-back', 'letter-held', 'recovered']);
  });

  it('refuses a bad --recover-timeout with a one-line usage error', async () => {
    const r = await mqlab(['at-most-once-drop', '--recover-timeout', 'soon']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--recover-timeout');
    expect(r.stdout).toBe('');
  });
});
