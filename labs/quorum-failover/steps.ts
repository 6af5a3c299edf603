/**
 * What quorum-failover runs that a broken variant may replace: lab.ts and producer.ts run it as taught
 * (ctx.steps), variants.ts (TEST ONLY) replaces parts of it. All three take the type from here, so the
 * producer does not import the lab that imports it.
 */
import type { ReconnectingPublisher } from '../../src/kit/index.js';
import type { ClusterNode } from '../../src/kit/cluster/index.js';

/** the steps of the experiment a broken variant may replace (variants.ts, TEST ONLY) */
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
