/**
 * TEST ONLY: where the quorum-failover lab's broken variants (declared in meta.ts;
 * MQLAB_FAULT=quorum-failover:<name>, src/lab/fault.ts) replace a step of the experiment (`FailoverSteps`:
 * lab.ts, producer.ts). Those files read as the correct experiment.
 */
import type { ReconnectingPublisher, Variants } from '../../src/kit/index.js';
import type { ClusterNode } from '../../src/kit/cluster/index.js';
import type { Fault } from './meta.js';

/** the steps of the experiment a broken variant may replace */
export interface FailoverSteps {
  /** between the delete of the previous run's queue and its declare: ms for the deleted replicas to terminate */
  pauseAfterDelete(): number;
  /** the node killed: the queue leader's (`followers`: the nodes the lab may kill besides) */
  victim(leader: ClusterNode, followers: ClusterNode[]): ClusterNode;
  /** after the failover: start the killed node again */
  restart(node: ClusterNode): Promise<void>;
  /** the producer counts an id confirmed (`count`) when the broker's confirm comes (`confirm` resolves) */
  countConfirm(confirm: Promise<void>, count: () => void): Promise<void>;
  /** after the loss: connect to the next node (its URL) */
  reconnect(pub: ReconnectingPublisher): Promise<string>;
  /** after the reconnect: the ids sent again, those of `lost` without a confirm */
  resend(lost: readonly number[], confirmed: ReadonlySet<number>): number[];
}

export const variants = (run: {
  options: { failoverBoundMs: number; window: number };
  sleep(ms: number): Promise<void>;
}): Variants<FailoverSteps, Fault> => ({
  'kill-follower': { victim: (_leader, followers) => followers[0]! },
  // counted at the write to the socket, not at the confirm (and so nothing is resent)
  'confirm-early': {
    countConfirm: (confirm, count) => {
      count();
      return confirm;
    },
  },
  'no-resend': { resend: () => [] },
  // after no-resend when both are asked: the window alone
  'resend-window': (applied) => ({
    resend: (lost, confirmed) => [...applied.resend(lost, confirmed), ...[...confirmed].slice(-run.options.window)],
  }),
  'no-restart': { restart: () => Promise.resolve() },
  'slow-reconnect': {
    reconnect: async (pub) => {
      await run.sleep(run.options.failoverBoundMs + 1000);
      return pub.reconnect();
    },
  },
  'declare-at-once': { pauseAfterDelete: () => 0 },
});
