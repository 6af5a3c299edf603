import { describe, expect, it } from 'vitest';
import { caughtUp, duplicateIds, verdicts, type Observed } from './verdicts.js';
import { labOptions } from '../../src/lab/lab.js';
import { meta } from './meta.js';
import { analyse, History } from '../../src/kit/cluster/history.js';

/** a history: ids published and confirmed, some lost with the connection, consumed copies per id */
function historyOf(o: { confirmed: number[]; lost: number[]; copies: Record<number, number> }) {
  const h = new History(() => 0);
  for (const id of new Set([...o.confirmed, ...o.lost, ...Object.keys(o.copies).map(Number)])) h.publish(id, 'b');
  for (const id of o.lost) h.lost(id, 'b');
  for (const id of o.confirmed) h.confirm(id, 'a');
  for (const [id, n] of Object.entries(o.copies)) for (let k = 0; k < n; k++) h.consume(Number(id), 'a', false);
  return analyse(h.entries);
}
const copies = (ids: number[], extra: Record<number, number> = {}) =>
  Object.fromEntries(ids.map((id) => [id, extra[id] ?? 1]));

const replica = (node: string, raftState: string, commitIndex: number) => ({
  node,
  raftState,
  commitIndex,
  lastApplied: commitIndex,
  term: 2,
});
const good: Observed = {
  messages: 5,
  history: historyOf({ confirmed: [1, 2, 3, 4, 5], lost: [3, 4], copies: copies([1, 2, 3, 4, 5], { 4: 2 }) }),
  leaderBefore: 'b',
  leaderAfter: 'a',
  killed: 'b',
  replicas: [replica('a', 'leader', 90), replica('b', 'follower', 90), replica('c', 'follower', 90)],
  failoverMs: 800,
};
const failing = (o: Partial<Observed>, bound = 1000) =>
  verdicts({ ...good, ...o }, bound)
    .filter((c) => (c.compare === 'atMost' ? Number(c.actual) > Number(c.expected) : c.actual !== c.expected))
    .map((c) => c.name);

describe('quorum-failover verdicts', () => {
  it('all pass on a clean failover; a duplicate of an unconfirmed id is expected', () => {
    expect(failing({})).toEqual([]);
    expect(good.history.duplicates).toEqual([4]);
  });
  it('each check fails on its own evidence', () => {
    expect(failing({ leaderAfter: 'b' })).toEqual(['leaderChanged']);
    expect(failing({ leaderAfter: null })).toEqual(['leaderChanged']);
    const all = [1, 2, 3, 4, 5];
    expect(failing({ history: historyOf({ confirmed: all, lost: [3, 4], copies: copies([1, 3, 4, 5]) }) })).toEqual([
      'confirmedLost',
      'everyIdConsumed',
    ]);
    expect(
      failing({ history: historyOf({ confirmed: [1, 2], lost: [3, 4, 5], copies: copies([1, 2, 3, 4]) }) }),
    ).toEqual(['everyIdConsumed']);
    expect(failing({ history: historyOf({ confirmed: all, lost: [3, 4], copies: copies(all, { 1: 2 }) }) })).toEqual([
      'duplicatesNotUnconfirmed',
    ]);
    expect(failing({ replicas: [replica('a', 'leader', 90), replica('b', 'follower', 70)] })).toEqual([
      'killedReplicaCaughtUp',
    ]);
    expect(failing({ replicas: null })).toEqual(['killedReplicaCaughtUp']);
    expect(failing({ failoverMs: 1001 })).toEqual(['failoverMs']);
    expect(failing({ failoverMs: null })).toEqual(['failoverMs']);
  });
  it('redeliveries of one copy are not duplicates', () => {
    expect(duplicateIds([{ id: 1, copies: 1, redeliveries: 3 }])).toEqual([]);
  });
  it('caughtUp compares the killed replica with the leader', () => {
    expect(caughtUp([replica('a', 'leader', 5), replica('b', 'follower', 4)], 'b')).toEqual({ leader: 5, killed: 4 });
    expect(caughtUp([replica('a', 'leader', 5)], 'b')).toBeNull();
  });
  it('the kill must come mid-stream', () => {
    expect(() => labOptions(meta, { messages: '100', killAfter: '100' })).toThrow(
      /--kill-after \(100\) must be below --messages \(100\)/,
    );
    expect(labOptions(meta)).toMatchObject({ messages: 2000, killAfter: 600, window: 100, failoverBoundMs: 30_000 });
  });
});
