/**
 * TEST ONLY: where the partition lab's broken variants (declared in meta.ts; MQLAB_FAULT=partition:<name>,
 * src/lab/fault.ts) replace a step of the experiment lab.ts runs (`PartitionSteps`). lab.ts reads as the
 * correct experiment.
 */
import type { Variants } from '../../src/kit/index.js';
import type { ClusterNode } from '../../src/kit/cluster/index.js';
import type { Fault } from './meta.js';

/** the steps of the partition experiment a broken variant may replace */
export interface PartitionSteps {
  /** the node cut off from the others: the queue leader's */
  cutOff(leader: ClusterNode, others: ClusterNode[]): ClusterNode;
  /** how long the links stay cut (the option) */
  cutFor(optionMs: number): number;
  /** hold the cut past cutFor until both sides saw it and, when the leader's node is cut, a new leader is named and B confirms (at most 2 × net_ticktime more) */
  holdUntilSeen: boolean;
  /** heal the links before the checks (else only when the lab ends) */
  heal: boolean;
  /** send every id without a confirm again, through a majority node */
  resend: boolean;
  /** ids sent again although confirmed: none */
  alsoResend(confirmed: number[]): number[];
  /** a publish past its confirm deadline counts as unconfirmed */
  timeoutIsConfirm: boolean;
}

export const variants: Variants<PartitionSteps, Fault> = {
  'cut-follower': { cutOff: (_leader, others) => others[others.length - 1]! },
  'no-heal': { heal: false },
  'no-resend': { resend: false },
  'resend-confirmed': { alsoResend: (confirmed) => confirmed.slice(-50) },
  'timeout-is-confirm': { timeoutIsConfirm: true, resend: false },
  // healed after 2 s: below the failure detector's 10–12.5 s (defaults.ts NET_TICKTIME_S)
  'short-cut': { cutFor: () => 2000, holdUntilSeen: false },
};
