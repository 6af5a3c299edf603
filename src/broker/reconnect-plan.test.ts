import { describe, expect, it } from 'vitest';
import { attemptPlan, ConfirmLedger } from './reconnect-plan.js';

const take = <T>(g: Generator<T>, n: number) => Array.from({ length: n }, () => g.next().value as T);

describe('attemptPlan', () => {
  it('tries every URL once without waiting, starting after the one that died, then backs off per round up to the cap', () => {
    const plan = take(attemptPlan(3, { initialMs: 100, maxMs: 300 }, 0), 12);
    expect(plan.map((a) => a.index)).toEqual([1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]);
    expect(plan.map((a) => a.waitMs)).toEqual([0, 0, 0, 100, 0, 0, 200, 0, 0, 300, 0, 0]);
  });
  it('starts from the first URL when none was in use', () => {
    expect(take(attemptPlan(2, { initialMs: 10, maxMs: 10 }), 3).map((a) => a.index)).toEqual([0, 1, 0]);
  });
  it('yields nothing without URLs', () => {
    expect([...attemptPlan(0, { initialMs: 1, maxMs: 1 })]).toEqual([]);
  });
});

describe('ConfirmLedger', () => {
  it('a loss turns pending publishes into unconfirmed ones; confirmed and nacked keep their state', () => {
    const l = new ConfirmLedger<string>();
    for (const id of ['a', 'b', 'c', 'd']) l.published(id, `body-${id}`);
    l.settle('a', 'confirmed');
    l.settle('b', 'nacked');
    expect(l.pending()).toBe(2);
    expect(l.loseAllPending().sort()).toEqual(['c', 'd']);
    expect(l.unconfirmed().sort()).toEqual(['b', 'c', 'd']);
    expect(l.confirmed()).toEqual(['a']);
    expect(l.messageOf('c')).toBe('body-c');
  });
  it('a resent id confirmed on the new connection leaves the unconfirmed list; a later loss never undoes a confirm', () => {
    const l = new ConfirmLedger();
    l.published('x', null);
    l.loseAllPending();
    l.published('x', null);
    l.settle('x', 'confirmed');
    l.settle('x', 'lost');
    expect(l.unconfirmed()).toEqual([]);
    expect(l.stateOf('x')).toBe('confirmed');
  });
});
