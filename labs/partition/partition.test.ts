/** partition's verdicts on scripted histories and views (pure: no cluster): each check PASSes on a good run and FAILs on its own flaw. */
import { describe, expect, it } from 'vitest';
import { at, goodSteps as shared, scripted, FAULT_AT, UNDONE_AT, type Step } from '../../test/leader-stream-runs.js';
import { evaluate } from '../../src/report/checks.js';
import { verdicts, type HeldExpectation, type Observed } from './verdicts.js';
import { meta } from './meta.js';

const goodSteps = () => shared({ injected: 'cut', undone: 'heal' });

const CUT_AT = FAULT_AT;
const HEAL_AT = UNDONE_AT;
const BOUND = 30_000;
/** 4.3: the held queue keeps a lost consumer's delivery 15 s after the leader sees its node down */
const KEPT: HeldExpectation = { timeoutMs: 15_000, kept: true };

const replica = (node: string, raftState: string, commitIndex: number) => ({
  node,
  raftState,
  commitIndex,
  lastApplied: commitIndex,
  term: 3,
});

function observed(o: Partial<Observed> = {}, steps: Step[] = goodSteps()): Observed {
  return {
    history: scripted(steps).entries,
    leaderBefore: 'n2',
    cutOff: 'n2',
    majorityNode: 'n3',
    cutAt: CUT_AT,
    healAt: HEAL_AT,
    leaderDuringCut: 'n3',
    electedAt: 3500,
    majoritySawCutAt: 11_000,
    cutSawMajorityAt: 11_500,
    healedSeenAt: 25_000,
    replicas: [replica('n3', 'leader', 90), replica('n2', 'follower', 90), replica('n1', 'follower', 90)],
    // the node seen down 2 s after the cut (this script's heal comes 19 s after it), then the 15 s timeout
    heldReturnedAt: CUT_AT + 17_000,
    ...o,
  };
}

/** the names of the checks that fail */
const failed = (o: Observed, bound = BOUND, held = KEPT) =>
  verdicts(o, bound, held)
    .map(evaluate)
    .filter((c) => !c.pass)
    .map((c) => c.name);

describe('partition verdicts', () => {
  it('a good run passes every check the lab declares, in its order', () => {
    const checks = verdicts(observed(), BOUND, KEPT).map(evaluate);
    expect(checks.map((c) => c.name)).toEqual([...meta.checks]);
    expect(checks.filter((c) => !c.pass)).toEqual([]);
    expect(checks.find((c) => c.name === 'majorityResumedMs')?.actual).toBe(3000);
  });

  it('cutOffLeaderConfirmsNothing: a confirm through the cut-off leader of an id sent during the cut', () => {
    // 9 confirmed by the minority instead of timing out (and so consumed once: its second copy would be a stray duplicate)
    const steps = goodSteps().filter(([t]) => t !== 6109 && t !== 30_100);
    expect(failed(observed({}, [...steps, at(2000, (h) => h.confirm(9, 'n2'))]))).toEqual([
      'cutOffLeaderConfirmsNothing',
    ]);
    // a confirm of an id sent before the cut, or one that comes after the heal, is not the minority's confirm
    expect(failed(observed({}, [...goodSteps(), at(HEAL_AT + 500, (h) => h.confirm(10, 'n2'))]))).toEqual([]);
  });

  it('leaderChanged: no leader seen during the cut, or the old one', () => {
    expect(failed(observed({ leaderDuringCut: null }))).toEqual(['leaderChanged']);
    expect(failed(observed({ leaderDuringCut: 'n2' }))).toEqual(['leaderChanged']);
  });

  it('majorityResumedMs: the majority confirmed later than the bound, or only after the heal', () => {
    expect(failed(observed(), 2999)).toEqual(['majorityResumedMs']);
    const late = goodSteps()
      .filter(([t]) => t !== 4000 && t !== 4100)
      .concat([at(HEAL_AT + 10, (h) => h.confirm(11, 'n3')), at(HEAL_AT + 20, (h) => h.confirm(12, 'n3'))]);
    expect(failed(observed({}, late))).toEqual(['majorityResumedMs', 'majorityConfirmsDuringCut']);
  });

  it('partitionObserved: one side never saw the other go', () => {
    expect(failed(observed({ cutSawMajorityAt: null }))).toEqual(['partitionObserved']);
    expect(failed(observed({ majoritySawCutAt: null }))).toEqual(['partitionObserved']);
  });

  it('heldDeliveryReturnedMs (4.3+): back sooner than the timeout after the cut, or not during the cut', () => {
    expect(failed(observed({ heldReturnedAt: CUT_AT + 11_000 }))).toEqual(['heldDeliveryReturnedMs']);
    expect(failed(observed({ heldReturnedAt: null }))).toEqual(['heldDeliveryReturnedMs']);
    expect(failed(observed({ heldReturnedAt: HEAL_AT + 100 }))).toEqual(['heldDeliveryReturnedMs']);
    expect(failed(observed({ heldReturnedAt: CUT_AT - 100 }))).toEqual(['heldDeliveryReturnedMs']);
  });

  it('heldDeliveryReturnedMs (below 4.3.0): back as the node is seen down, not after the timeout', () => {
    const atOnce: HeldExpectation = { timeoutMs: 15_000, kept: false };
    expect(failed(observed({ heldReturnedAt: CUT_AT + 11_000 }), BOUND, atOnce)).toEqual([]);
    expect(failed(observed({ heldReturnedAt: CUT_AT + 16_000 }), BOUND, atOnce)).toEqual(['heldDeliveryReturnedMs']);
    expect(failed(observed({ heldReturnedAt: null }), BOUND, atOnce)).toEqual(['heldDeliveryReturnedMs']);
    expect(failed(observed({ heldReturnedAt: CUT_AT - 100 }), BOUND, atOnce)).toEqual(['heldDeliveryReturnedMs']);
  });

  it('partitionHealed: the views never showed every member running again', () => {
    expect(failed(observed({ healedSeenAt: null }))).toEqual(['partitionHealed']);
  });

  it('cutOffReplicaCaughtUp: behind the leader, still leading, or not in quorum_status', () => {
    const behind = [replica('n3', 'leader', 90), replica('n2', 'follower', 80), replica('n1', 'follower', 90)];
    expect(failed(observed({ replicas: behind }))).toEqual(['cutOffReplicaCaughtUp']);
    const twoLeaders = [replica('n3', 'leader', 90), replica('n2', 'leader', 90)];
    expect(failed(observed({ replicas: twoLeaders }))).toEqual(['cutOffReplicaCaughtUp']);
    expect(failed(observed({ replicas: null }))).toEqual(['cutOffReplicaCaughtUp']);
  });

  it('confirmedLost and everyIdConsumed: a confirmed id never consumed', () => {
    const steps = goodSteps().filter(([t]) => t !== 30_003);
    expect(failed(observed({}, steps))).toEqual(['confirmedLost', 'everyIdConsumed']);
  });

  it('everyIdConsumed and unconfirmedResent: an id that timed out and was never sent again', () => {
    const steps = [...goodSteps(), at(1200, (h) => h.publish(13, 'n2')), at(6200, (h) => h.timeout(13, 'n2'))];
    expect(failed(observed({}, steps))).toEqual(['everyIdConsumed', 'unconfirmedResent']);
  });

  it('unconfirmedResent alone: a timed-out id never sent again, though its node enqueued it after all', () => {
    const timedOut = [at(1200, (h) => h.publish(13, 'n2')), at(6200, (h) => h.timeout(13, 'n2'))];
    const steps = [...goodSteps(), ...timedOut, at(30_100, (h) => h.consume(13, 'n3', false))];
    expect(failed(observed({}, steps))).toEqual(['unconfirmedResent']);
  });

  it('duplicatesNotUnconfirmed: a confirmed id consumed twice as a fresh copy (a redelivery is not a duplicate)', () => {
    expect(failed(observed({}, [...goodSteps(), at(30_200, (h) => h.consume(2, 'n3', false))]))).toEqual([
      'duplicatesNotUnconfirmed',
    ]);
    expect(failed(observed({}, [...goodSteps(), at(30_200, (h) => h.consume(2, 'n3', true))]))).toEqual([]);
  });
});
