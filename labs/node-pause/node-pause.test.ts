/** node-pause's verdicts on scripted histories and views (pure: no cluster): each check PASSes on a good run and FAILs on its own flaw. */
import { describe, expect, it } from 'vitest';
import { at, goodSteps as shared, scripted, FAULT_AT, UNDONE_AT, type Step } from '../../test/leader-stream-runs.js';
import { evaluate } from '../../src/report/checks.js';
import { verdicts, type Observed } from './verdicts.js';
import { meta } from './meta.js';

const goodSteps = () => shared({ injected: 'pause', undone: 'resume' });

const PAUSE_AT = FAULT_AT;
const RESUME_AT = UNDONE_AT;
/** producer A gives the frozen node up at its first confirm timeout */
const ABANDONED_AT = 6300;
const BOUND = 30_000;

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
    frozen: 'n2',
    majorityNode: 'n3',
    pauseAt: PAUSE_AT,
    resumeAt: RESUME_AT,
    abandonedAt: ABANDONED_AT,
    leaderDuringPause: 'n3',
    majoritySawPauseAt: 11_000,
    resumedSeenAt: 25_000,
    replicas: [replica('n3', 'leader', 90), replica('n2', 'follower', 90), replica('n1', 'follower', 90)],
    ...o,
  };
}

/** the names of the checks that fail */
const failed = (o: Observed, bound = BOUND) =>
  verdicts(o, bound)
    .map(evaluate)
    .filter((c) => !c.pass)
    .map((c) => c.name);

describe('node-pause verdicts', () => {
  it('a good run passes every check the lab declares, in its order', () => {
    const checks = verdicts(observed(), BOUND).map(evaluate);
    expect(checks.map((c) => c.name)).toEqual([...meta.checks]);
    expect(checks.filter((c) => !c.pass)).toEqual([]);
    expect(checks.find((c) => c.name === 'majorityResumedMs')?.actual).toBe(3000);
  });

  it('frozenLeaderAnsweredNothing: a nack, a loss or a confirm through the frozen node before A gave it up', () => {
    const without9 = goodSteps().filter(([t]) => t !== 6109 && t !== 30_100);
    expect(failed(observed({}, [...without9, at(1500, (h) => h.nack(9, 'n2'))]))).toEqual([
      'frozenLeaderAnsweredNothing',
    ]);
    expect(failed(observed({}, [...without9, at(1500, (h) => h.lost(9, 'n2'))]))).toEqual([
      'frozenLeaderAnsweredNothing',
    ]);
    expect(failed(observed({}, [...without9, at(1500, (h) => h.confirm(9, 'n2'))]))).toEqual([
      'frozenLeaderAnsweredNothing',
    ]);
  });

  it('frozenLeaderAnsweredNothing: a confirm after the timeout (the resumed node answering late) is not an answer while frozen', () => {
    expect(failed(observed({}, [...goodSteps(), at(RESUME_AT + 100, (h) => h.confirm(9, 'n2'))]))).toEqual([]);
  });

  it('leaderChanged: no leader seen during the pause, or the frozen one', () => {
    expect(failed(observed({ leaderDuringPause: null }))).toEqual(['leaderChanged']);
    expect(failed(observed({ leaderDuringPause: 'n2' }))).toEqual(['leaderChanged']);
  });

  it('majorityResumedMs: the majority confirmed later than the bound, or only after the resume', () => {
    expect(failed(observed(), 2999)).toEqual(['majorityResumedMs']);
    const late = goodSteps()
      .filter(([t]) => t !== 4000 && t !== 4100)
      .concat([at(RESUME_AT + 10, (h) => h.confirm(11, 'n3')), at(RESUME_AT + 20, (h) => h.confirm(12, 'n3'))]);
    expect(failed(observed({}, late))).toEqual(['majorityResumedMs', 'majorityConfirmsDuringPause']);
  });

  it('pauseObserved and resumedSeen: the majority never saw the node go, or come back', () => {
    expect(failed(observed({ majoritySawPauseAt: null }))).toEqual(['pauseObserved']);
    expect(failed(observed({ resumedSeenAt: null }))).toEqual(['resumedSeen']);
  });

  it('frozenReplicaCaughtUp: behind the leader, still leading, or not in quorum_status', () => {
    const behind = [replica('n3', 'leader', 90), replica('n2', 'follower', 80), replica('n1', 'follower', 90)];
    expect(failed(observed({ replicas: behind }))).toEqual(['frozenReplicaCaughtUp']);
    const twoLeaders = [replica('n3', 'leader', 90), replica('n2', 'leader', 90)];
    expect(failed(observed({ replicas: twoLeaders }))).toEqual(['frozenReplicaCaughtUp']);
    expect(failed(observed({ replicas: null }))).toEqual(['frozenReplicaCaughtUp']);
  });

  it('confirmedLost and everyIdConsumed: a confirmed id acked by a consumer that never recorded it', () => {
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
