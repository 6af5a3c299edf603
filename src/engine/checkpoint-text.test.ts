import { describe, expect, it } from 'vitest';
import { checkpointLines, messageLines, wrap } from './checkpoint-text.js';
import { heldOf, messageOf, type CheckpointView } from '../core/checkpoint-view.js';
import { lineSplitter } from '../kit/child/child.js';

const view: CheckpointView = {
  lab: 'retry-dlq',
  checkpoint: 'in-retry',
  seq: 1,
  description: 'the poison order waits in orders.retry for its TTL',
  process: 'consumer',
  message: { id: 'M1', label: 'order-poison', attempt: 1, redelivered: false, deaths: [], queue: 'tw.orders.retry' },
  queues: [
    { queue: 'tw.orders.work', ready: 0, unacked: 2, held: 0 },
    { queue: 'tw.orders.retry', ready: 1, unacked: 0, held: null },
  ],
  facts: {},
  at: '2026-12-01T12:00:00.000Z',
};

describe('a checkpoint in the terminal', () => {
  it('shows the description, the message, each queue with ready/unacked/held, where the message waits', () => {
    const lines = checkpointLines(view, 100);
    expect(lines[0]).toMatch(/^── checkpoint 1: in-retry {2}\(consumer\) ─+$/);
    expect(lines[0]!.length).toBe(100);
    expect(lines).toContain('  the poison order waits in orders.retry for its TTL');
    expect(lines).toContain('  message order-poison (M1) · attempt=1 · redelivered=false · now in tw.orders.retry');
    expect(lines).toContain('  x-death: none (never dead-lettered)');
    expect(lines).toContain('  tw.orders.work       0        2     0');
    expect(lines).toContain('  tw.orders.retry      1        0     ?  ◀ the message waits here');
    // the basis of the counts once, at the first checkpoint
    expect(lines.join(' ').replace(/\s+/g, ' ')).toContain('held = messages - ready - unacked');
    expect(checkpointLines({ ...view, seq: 2 }).join(' ')).not.toContain('held = messages');
    // on a TTL hop the counts are ready only, and the pause says why, at every checkpoint
    const hop = checkpointLines({
      ...view,
      seq: 4,
      queues: view.queues.map((q) => ({ ...q, unacked: null, held: null })),
      broker: { at: view.at, reading: 'ready-only', bindings: null, policies: [null, null] },
    });
    expect(hop).toContain('  tw.orders.retry      1        ?     ?  ◀ the message waits here');
    expect(hop.join(' ').replace(/\s+/g, ' ')).toContain('ready only, counted now: the message is on a timed hop');
    // the reading came after the hop ended: no "now in", no marker on an empty row
    const gone = checkpointLines(
      { ...view, message: { id: view.message!.id, label: 'order-poison', leftQueue: 'tw.orders.retry' } },
      200,
    );
    expect(gone.join('\n')).toContain('was in tw.orders.retry, gone by this reading (its TTL sent it on)');
    expect(gone.join('\n')).not.toMatch(/now in|waits here/);
  });

  it('says what the broker binds now, from its own list: a binding the lab removed is not there', () => {
    const broker = {
      at: view.at,
      reading: 'settled' as const,
      bindings: [{ exchange: 'tw.orders.dead', queue: 'tw.orders.dlq', key: 'failed' }],
      policies: [],
    };
    expect(checkpointLines({ ...view, seq: 2, broker })).toContain(
      '  bound now: orders.dead → orders.dlq (key failed)',
    );
    expect(checkpointLines({ ...view, seq: 2, broker: { ...broker, bindings: [] } })).toContain(
      '  bound now: nothing from the lab’s exchanges',
    );
    // still changing while paused: said at every checkpoint
    const changing = checkpointLines({ ...view, seq: 3, broker: { ...broker, reading: 'changing' } });
    expect(changing.join(' ').replace(/\s+/g, ' ')).toContain('the counts were still changing while paused');
  });

  it('fits its width: no line longer than the terminal, long text wrapped', () => {
    const long = { ...view, description: 'word '.repeat(60) };
    for (const l of checkpointLines(long, 60).filter((l) => !l.includes('tw.orders.')))
      expect(l.length).toBeLessThanOrEqual(60);
    expect(wrap('a bb ccc', 4)).toEqual(['a bb', 'ccc']);
  });

  it('names the x-death entries newest first, with their counts', () => {
    const [, deaths] = messageLines({
      id: 'M',
      deaths: [
        { queue: 'r', reason: 'expired', count: 2 },
        { queue: 'w', reason: 'rejected', count: 2 },
      ],
    });
    expect(deaths).toBe('x-death: r expired ×2, w rejected ×2');
  });
});

describe('checkpoint data', () => {
  it('held is messages − ready − unacked of one sample, never negative', () => {
    expect(heldOf({ messages: 3, ready: 1, unacked: 1 })).toBe(1);
    expect(heldOf({ messages: 0, ready: 1, unacked: 0 })).toBe(0);
  });

  it('a message from IPC keeps only the known fields, typed', () => {
    expect(
      messageOf(
        { attempt: 2, redelivered: true, deaths: [{ queue: 'q', reason: 'rejected', count: '1' }], junk: 1 },
        'M',
      ),
    ).toEqual({
      id: 'M',
      attempt: 2,
      redelivered: true,
      deaths: [{ queue: 'q', reason: 'rejected', count: 1 }],
    });
    expect(messageOf(undefined)).toBeUndefined();
  });
});

describe("a child's lines", () => {
  it('are handed over one by one as they complete, the last one at the end', () => {
    const got: string[] = [];
    const s = lineSplitter((l) => got.push(l));
    s.push('[a] x=1\n[b] y');
    expect(got).toEqual(['[a] x=1']);
    s.push('=2\r\n[c] z=3');
    expect(got).toEqual(['[a] x=1', '[b] y=2']);
    s.end();
    expect(got).toEqual(['[a] x=1', '[b] y=2', '[c] z=3']);
  });
});
