/** The partition checks, from the run's history and what the nodes showed (pure: unit-tested). */
import type { meta } from './meta.js';
import { check, checkAtLeast, checkAtMost, type CheckOf } from '../../src/kit/index.js';
import {
  analyse,
  confirmedAfter,
  firstConfirmAfter,
  historyChecks,
  unconfirmedResentCheck,
  type HistoryEntry,
  type ReplicaStatus,
  replicaIndex,
} from '../../src/kit/cluster/index.js';

export interface Observed {
  history: readonly HistoryEntry[];
  /** the node that led the queue before the cut (producer A publishes through it) */
  leaderBefore: string;
  /** the node the lab cut off */
  cutOff: string;
  /** the node producer B publishes through (majority side) */
  majorityNode: string;
  cutAt: number;
  healAt: number;
  /** the leader the majority's management API named during the cut, and when first (null: none seen) */
  leaderDuringCut: string | null;
  electedAt: number | null;
  /** when each side's own view first showed the other side not running (null: never during the cut) */
  majoritySawCutAt: number | null;
  cutSawMajorityAt: number | null;
  /** when, after the heal, both sides' views showed every member running again (null: not within the bound) */
  healedSeenAt: number | null;
  /** quorum_status after the heal */
  replicas: readonly ReplicaStatus[] | null;
  /** when the consumer on node 1 got the delivery the consumer on the cut-off node held (null: never) */
  heldReturnedAt: number | null;
}

/** what the lab expects of the held delivery: the timeout it asked for, and whether the broker keeps it that long */
export interface HeldExpectation {
  /** --consumer-disconnected-timeout */
  timeoutMs: number;
  /** the broker has consumer_disconnected_timeout (capabilities.ts consumerDisconnectedTimeout: 4.3.0+) */
  kept: boolean;
}

/**
 * The cut to the held delivery's return (null: not between the cut and the heal). With the timeout (4.3+) its
 * timer starts when the leader sees the node down, after the cut: no sooner than the timeout after it. Without
 * it the leader gives the delivery back when it sees the node down, within 1.25 × net_ticktime: sooner than a
 * timeout above that (meta.ts refuses one below)
 */
function heldCheck(o: Observed, held: HeldExpectation): CheckOf<typeof meta> {
  const t = o.heldReturnedAt;
  const ms = t !== null && t >= o.cutAt && t < o.healAt ? Math.round(t - o.cutAt) : null;
  return held.kept
    ? checkAtLeast('heldDeliveryReturnedMs', held.timeoutMs, ms)
    : checkAtMost('heldDeliveryReturnedMs', held.timeoutMs, ms);
}

export function verdicts(o: Observed, electionBoundMs: number, held: HeldExpectation): CheckOf<typeof meta>[] {
  const a = analyse(o.history);
  const idx = replicaIndex(o.replicas, o.cutOff);
  // the majority's failover as its client saw it: the first confirm of a publish sent after the cut (before the heal)
  const resumed = firstConfirmAfter(o.history, o.majorityNode, o.cutAt);
  const resumedInCut = resumed !== null && resumed < o.healAt ? resumed : null;
  return [
    check('cutOffLeaderConfirmsNothing', 0, confirmedAfter(o.history, o.leaderBefore, o.cutAt, o.healAt).length),
    check('leaderChanged', true, o.leaderDuringCut !== null && o.leaderDuringCut !== o.leaderBefore),
    checkAtMost(
      'majorityResumedMs',
      electionBoundMs,
      resumedInCut === null ? Number.POSITIVE_INFINITY : Math.round(resumedInCut - o.cutAt),
    ),
    checkAtLeast('majorityConfirmsDuringCut', 1, confirmedAfter(o.history, o.majorityNode, o.cutAt, o.healAt).length),
    check('partitionObserved', true, o.majoritySawCutAt !== null && o.cutSawMajorityAt !== null),
    heldCheck(o, held),
    check('partitionHealed', true, o.healedSeenAt !== null),
    check('cutOffReplicaCaughtUp', true, idx !== null && idx.node === idx.leader && idx.state === 'follower'),
    ...historyChecks(a, a.published),
    unconfirmedResentCheck(o.history),
  ];
}
