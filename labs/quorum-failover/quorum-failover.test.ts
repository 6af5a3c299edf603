import { describe, expect, it } from 'vitest';
import { caughtUp, duplicateIds, verdicts, type Observed } from './verdicts.js';
import { labOptions } from '../../src/lab.js';
import { meta } from './meta.js';

const replica = (node: string, raftState: string, commitIndex: number) => ({
  node,
  raftState,
  commitIndex,
  lastApplied: commitIndex,
  term: 2,
});
const good: Observed = {
  messages: 5,
  confirmed: new Set([1, 2, 3, 4, 5]),
  unconfirmedAtKill: new Set([3, 4]),
  rows: [1, 2, 3, 4, 5].map((id) => ({ id, copies: id === 4 ? 2 : 1, redeliveries: 0 })),
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
    expect(duplicateIds(good.rows)).toEqual([4]);
  });
  it('each check fails on its own evidence', () => {
    expect(failing({ leaderAfter: 'b' })).toEqual(['leaderChanged']);
    expect(failing({ leaderAfter: null })).toEqual(['leaderChanged']);
    expect(failing({ rows: good.rows.filter((r) => r.id !== 2) })).toEqual(['confirmedLost', 'everyIdConsumed']);
    expect(failing({ confirmed: new Set([1, 2]), rows: good.rows.filter((r) => r.id !== 5) })).toEqual([
      'everyIdConsumed',
    ]);
    expect(failing({ rows: good.rows.map((r) => (r.id === 1 ? { ...r, copies: 2 } : r)) })).toEqual([
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
