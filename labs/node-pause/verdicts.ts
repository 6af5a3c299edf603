/** The node-pause checks, from the run's history and what the majority showed (pure: unit-tested). */
import type { meta } from './meta.js';
import { check, checkAtLeast, checkAtMost, type CheckOf } from '../../src/kit/index.js';
import {
  analyse,
  confirmedAfter,
  firstConfirmAfter,
  historyChecks,
  unconfirmedResentCheck,
  outcomes,
  type HistoryEntry,
  type ReplicaStatus,
  replicaIndex,
} from '../../src/kit/cluster/index.js';

export interface Observed {
  history: readonly HistoryEntry[];
  /** the node that led the queue before the pause (producer A publishes through it) */
  leaderBefore: string;
  /** the node the lab froze */
  frozen: string;
  /** the node producer B publishes through (majority side) */
  majorityNode: string;
  pauseAt: number;
  resumeAt: number;
  /** when producer A gave the frozen node up (its first confirm timeout; null: it never did) */
  abandonedAt: number | null;
  /** the leader the majority's management API named during the pause (null: none seen) */
  leaderDuringPause: string | null;
  /** when the majority's view first showed the frozen node not running (null: never during the pause) */
  majoritySawPauseAt: number | null;
  /** when, after the resume, the majority's view showed every member running again */
  resumedSeenAt: number | null;
  replicas: readonly ReplicaStatus[] | null;
}

export function verdicts(o: Observed, electionBoundMs: number): CheckOf<typeof meta>[] {
  const a = analyse(o.history);
  const idx = replicaIndex(o.replicas, o.frozen);
  const resumed = firstConfirmAfter(o.history, o.majorityNode, o.pauseAt);
  const resumedInPause = resumed !== null && resumed < o.resumeAt ? resumed : null;
  // what producer A's publishes sent while the node was frozen came to before it gave the node up: only timeouts
  const frozenOut = outcomes(o.history, o.leaderBefore, o.pauseAt, o.abandonedAt ?? o.resumeAt);
  return [
    check('frozenLeaderAnsweredNothing', 0, frozenOut.confirm + frozenOut.nack + frozenOut.lost),
    check('leaderChanged', true, o.leaderDuringPause !== null && o.leaderDuringPause !== o.leaderBefore),
    checkAtMost(
      'majorityResumedMs',
      electionBoundMs,
      resumedInPause === null ? Number.POSITIVE_INFINITY : Math.round(resumedInPause - o.pauseAt),
    ),
    checkAtLeast(
      'majorityConfirmsDuringPause',
      1,
      confirmedAfter(o.history, o.majorityNode, o.pauseAt, o.resumeAt).length,
    ),
    check('pauseObserved', true, o.majoritySawPauseAt !== null),
    check('resumedSeen', true, o.resumedSeenAt !== null),
    check('frozenReplicaCaughtUp', true, idx !== null && idx.node === idx.leader && idx.state === 'follower'),
    ...historyChecks(a, a.published),
    unconfirmedResentCheck(o.history),
  ];
}
