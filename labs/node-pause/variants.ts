/**
 * TEST ONLY: where the node-pause lab's broken variants (declared in meta.ts; MQLAB_FAULT=node-pause:<name>,
 * src/lab/fault.ts) replace a step of the experiment lab.ts runs (`PauseSteps`). lab.ts reads as the correct
 * experiment.
 */
import type { Variants } from '../../src/kit/index.js';
import type { ClusterNode } from '../../src/kit/cluster/index.js';
import type { Fault } from './meta.js';

/** the steps of the node-pause experiment a broken variant may replace */
export interface PauseSteps {
  /** the node frozen: the queue leader's */
  frozen(leader: ClusterNode, others: ClusterNode[]): ClusterNode;
  /** how long it stays frozen (the option) */
  pauseFor(optionMs: number): number;
  /** keep it frozen past pauseFor until the majority saw it and, when the leader's node is frozen, a new leader is named and B confirms (at most 2 × net_ticktime more) */
  holdUntilSeen: boolean;
  /** SIGCONT before the checks (else only when the lab ends) */
  resume: boolean;
  /** send every id without a confirm again, through a majority node */
  resend: boolean;
  /** ids sent again although confirmed: none */
  alsoResend(confirmed: number[]): number[];
  /** a publish past its confirm deadline counts as unconfirmed */
  timeoutIsConfirm: boolean;
  /** deliveries the consumer acks without recording them: none */
  ackUnrecorded: number;
}

export const variants: Variants<PauseSteps, Fault> = {
  'pause-follower': { frozen: (_leader, others) => others[others.length - 1]! },
  'no-resume': { resume: false },
  'no-resend': { resend: false },
  'resend-confirmed': { alsoResend: (confirmed) => confirmed.slice(-50) },
  'timeout-is-confirm': { timeoutIsConfirm: true, resend: false },
  'ack-before-record': { ackUnrecorded: 20 },
  // resumed after 2 s: below the failure detector's 10–12.5 s (defaults.ts NET_TICKTIME_S)
  'short-pause': { pauseFor: () => 2000, holdUntilSeen: false },
};
