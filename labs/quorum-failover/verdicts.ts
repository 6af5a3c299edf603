/** The quorum-failover checks, from what the run observed and its history (pure: unit-tested). */
import type { meta } from './meta.js';
import { check, checkAtMost, type CheckOf } from '../../src/kit/index.js';
import { historyChecks, type HistoryAnalysis, type ReplicaStatus } from '../../src/kit/cluster/index.js';

export interface Row {
  id: number;
  copies: number;
  redeliveries: number;
}

export interface Observed {
  messages: number;
  /** the run's history (src/kit/cluster/history.ts): publishes, confirms, nacks, losses with the connection, consumed copies */
  history: HistoryAnalysis;
  leaderBefore: string;
  /** the leader the management API named after the kill (null: none seen) */
  leaderAfter: string | null;
  killed: string;
  /** quorum_status after the restart (null: the node was not seen back) */
  replicas: readonly ReplicaStatus[] | null;
  /** kill → first confirm over the new connection (null: none came) */
  failoverMs: number | null;
}

/** ids recorded more than once as a fresh (not redelivered) copy: the queue held them twice */
export const duplicateIds = (rows: readonly Row[]) => rows.filter((r) => r.copies > 1).map((r) => r.id);

/** the killed node's replica holds the leader's commit index (null when either is missing) */
export function caughtUp(
  replicas: readonly ReplicaStatus[] | null,
  killed: string,
): { leader: number; killed: number } | null {
  const leader = replicas?.find((r) => r.raftState === 'leader');
  const back = replicas?.find((r) => r.node === killed);
  return leader && back ? { leader: leader.commitIndex, killed: back.commitIndex } : null;
}

export function verdicts(o: Observed, failoverBoundMs: number): CheckOf<typeof meta>[] {
  const idx = caughtUp(o.replicas, o.killed);
  return [
    check('leaderChanged', true, o.leaderAfter !== null && o.leaderAfter !== o.leaderBefore),
    ...historyChecks(o.history, o.messages),
    check('killedReplicaCaughtUp', true, idx !== null && idx.killed === idx.leader),
    checkAtMost('failoverMs', failoverBoundMs, o.failoverMs ?? Number.POSITIVE_INFINITY),
  ];
}
