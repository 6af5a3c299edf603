import { describe, expect, it } from 'vitest';
import { analyse, between, History, historyChecks, historyEvent, resentElsewhere } from './history.js';

const failed = (checks: ReturnType<typeof historyChecks>) =>
  checks.filter((c) => c.actual !== c.expected).map((c) => c.name);

describe('the history of a run', () => {
  it('a clean run: every id confirmed once and consumed once', () => {
    let t = 0;
    const h = new History(() => t++);
    for (const id of [1, 2, 3]) {
      h.publish(id, 'n1');
      h.confirm(id, 'n1');
      h.consume(id, 'n2', false);
    }
    const a = analyse(h.entries);
    expect([a.published, a.confirmed.size, a.consumed.size, a.duplicates, a.lostConfirmed]).toEqual([3, 3, 3, [], []]);
    expect(failed(historyChecks(a, 3))).toEqual([]);
  });
  it('a timed-out id sent again and consumed twice is an expected duplicate; a confirmed one is not', () => {
    const h = new History(() => 0);
    h.publish(1, 'n1');
    h.timeout(1, 'n1');
    h.publish(1, 'n2');
    h.confirm(1, 'n2');
    h.publish(2, 'n2');
    h.confirm(2, 'n2');
    h.publish(2, 'n2'); // a producer that resends a confirmed id
    h.confirm(2, 'n2');
    for (const id of [1, 1, 2, 2]) h.consume(id, 'n3', false);
    const a = analyse(h.entries);
    expect(a.duplicates).toEqual([1, 2]);
    expect(a.strayDuplicates).toEqual([2]);
    expect(failed(historyChecks(a, 2))).toEqual(['duplicatesNotUnconfirmed']);
  });
  it('redeliveries are not duplicates; a confirmed id never consumed is lost; unconfirmed yet delivered is counted', () => {
    const h = new History(() => 0);
    h.publish(1, 'n1');
    h.confirm(1, 'n1');
    h.consume(1, 'n1', false);
    h.consume(1, 'n1', true);
    h.publish(2, 'n1');
    h.confirm(2, 'n1');
    h.publish(3, 'n1');
    h.nack(3, 'n1');
    h.consume(3, 'n1', false);
    const a = analyse(h.entries);
    expect([a.duplicates, a.lostConfirmed, a.unconfirmedThenDelivered]).toEqual([[], [2], [3]]);
    expect(failed(historyChecks(a, 3))).toEqual(['confirmedLost', 'everyIdConsumed']);
  });
  it('resentElsewhere: an id its node left unconfirmed is owed a confirm from another node; a late confirm settles it', () => {
    const h = new History(() => 0);
    h.publish(1, 'n2'); // timed out, resent through n1, confirmed there
    h.timeout(1, 'n2');
    h.publish(1, 'n1');
    h.confirm(1, 'n1');
    h.publish(2, 'n2'); // timed out, never resent: owed
    h.timeout(2, 'n2');
    h.publish(3, 'n3'); // timed out, then confirmed late by its own node
    h.timeout(3, 'n3');
    h.confirm(3, 'n3');
    h.publish(4, 'n2'); // lost with the connection, resent and nacked: still owed
    h.lost(4, 'n2');
    h.publish(4, 'n1');
    h.nack(4, 'n1');
    expect(resentElsewhere(h.entries)).toEqual({ unconfirmed: 3, confirmedElsewhere: 1 });
  });
  it('between() picks by kind, time and node; faults and failures are noted for the timeline', () => {
    let t = 100;
    const noted: string[] = [];
    const h = new History(
      () => (t += 10),
      (e) => noted.push(historyEvent(e).status!),
    );
    h.publish(1, 'a');
    const at = h.injected('cut', 'a');
    h.confirm(1, 'a');
    h.timeout(2, 'a');
    h.confirm(3, 'b');
    expect(at).toBe(120);
    expect(between(h.entries, ['confirm'], at, 1000, 'a').map((e) => e.id)).toEqual([1]);
    expect(between(h.entries, ['confirm', 'timeout'], at, 1000).length).toBe(3);
    expect(noted).toEqual(['fault_cut', 'timeout']);
    expect(h.toJSON()).toMatchObject({
      t0: 110,
      nodes: ['a', 'b'],
      entries: [
        [0, 'publish', 1, 0],
        [10, 'fault', 'cut', 0],
        [20, 'confirm', 1, 0],
        [30, 'timeout', 2, 0],
        [40, 'confirm', 3, 1],
      ],
    });
  });
});
