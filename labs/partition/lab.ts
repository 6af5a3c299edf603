/**
 * partition — the quorum queue's leader's node is cut off from the other two (Erlang distribution
 * dropped both ways, src/services/link-cut.ts) while two producers publish with confirms, one through
 * that node and one through a majority node; held past the nodes' failure detector, then healed.
 * The run's history (src/kit/cluster/history.ts) and the nodes' own views decide the checks (names.ts: topology).
 */
import { EnvError, summaryLine, NET_TICKTIME_S, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import {
  analyse,
  declareReplicated,
  firstConfirmAfter,
  holdDelivery,
  outcomes,
  openLeaderStream,
  ownCluster,
  viewOf,
  cutLinks,
  linkCutRefusal,
  recordTimeout,
  type ClusterNode,
  type History,
  type Held,
  type HeldDelivery,
  type HoldOptions,
  type LeaderStream,
  type LinkCut,
} from '../../src/kit/cluster/index.js';
import { CLUSTER_NODES, heldQueueArguments, names, queueArguments } from './names.js';
import { verdicts, type Observed } from './verdicts.js';

/** the steps of the partition experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface PartitionSteps {
  /** the node cut off from the others: the queue leader's */
  cutOff(leader: ClusterNode, others: ClusterNode[]): ClusterNode;
  /** the cut held for --cut-for, then on until both sides saw it (and, when the leader's node is cut, a new leader confirms) */
  hold(stream: LeaderStream, o: HoldOptions): Promise<Held>;
  /** the links back: true when they were cut */
  heal(cut: LinkCut): Promise<boolean>;
  /** a publish past its confirm deadline: recorded as timed out, not as confirmed */
  timedOut(history: History, id: number, node: string): void;
  /** every id without a confirm sent again, through a majority node: the count sent */
  resend(stream: LeaderStream): Promise<number>;
  /** the held queue's x-consumer-disconnected-timeout (ms), on a broker that has it (4.3.0+) */
  disconnectedTimeout(ms: number): number;
}

const correct: PartitionSteps = {
  cutOff: (leader) => leader,
  hold: (stream, o) => stream.hold(o),
  heal: (cut) => cut.heal(),
  timedOut: recordTimeout,
  resend: (stream) => stream.resendUnconfirmed(),
  disconnectedTimeout: (ms) => ms,
};

export const lab = labCode(meta, {
  // nothing declared up front: the run declares its queue through the node it fails (names.ts); named here for `--names`
  topology: (n) => {
    names(n);
    return { queues: [] };
  },

  async run(ctx) {
    const cluster = ownCluster(ctx.config, CLUSTER_NODES);
    if ('missing' in cluster) return { lines: [], checks: [], skipped: cluster.missing };
    const refused = await linkCutRefusal(ctx.config.ports);
    if (refused) throw new EnvError(refused, 'nothing was changed');
    const steps = ctx.steps(correct);
    const o = ctx.options;
    const name = names(ctx.names);
    const stream = await openLeaderStream(ctx, cluster, name.queue, queueArguments, {
      window: o.window,
      paceMs: Math.max(1, Math.round(1000 / o.rate)),
      confirmTimeoutMs: o.confirmTimeoutMs,
      timedOut: (history, id, node) => steps.timedOut(history, id, node),
    });
    const { nodes, leader, majorityNode: node3, history, a, b } = stream;
    const victim = steps.cutOff(leader, [nodes[0], node3]);
    const majority = nodes.filter((n) => n !== victim);
    ctx.progress(
      `${name.queue}: leader ${leader.name}; producer A publishes through it, producer B through ${node3.name}`,
    );
    // pt.held, led by node 1: its one delivery held by a consumer on the node about to be cut off
    const kept = ctx.caps.consumerDisconnectedTimeout;
    const timeoutMs = steps.disconnectedTimeout(o.consumerDisconnectedTimeoutMs);
    let cut: LinkCut | null = null;
    let held: HeldDelivery | null = null;
    try {
      await declareReplicated(
        ctx.mgmt,
        nodes[0].amqpUrl,
        name.held,
        heldQueueArguments(kept ? timeoutMs : null),
        CLUSTER_NODES,
        (line) => ctx.progress(line),
      );
      held = await holdDelivery(name.held, victim, nodes[0]);
      ctx.progress(
        kept
          ? `${name.held}: a consumer on ${victim.name} holds its delivery; x-consumer-disconnected-timeout ${timeoutMs} ms`
          : `${name.held}: a consumer on ${victim.name} holds its delivery; RabbitMQ ${ctx.caps.version} has no consumer_disconnected_timeout (4.3.0+)`,
      );
      stream.start();
      await ctx.sleep(o.streamMs);
      await ctx.checkpoint('before-cut', { node: victim.name, confirmed: a.counts.confirmed + b.counts.confirmed });

      cut = await cutLinks(
        ctx.config.ports,
        [victim.address],
        majority.map((n) => n.address),
      );
      const cutAt = history.injected('cut', victim.name);
      ctx.progress(
        `cut ${victim.name} (${victim.address}) off from ${majority.map((n) => n.address).join(', ')}: nft table ${cut.table}`,
      );
      // both sides' views: node 1's (the majority's) and the cut-off node's own
      const cutOffSees = async () => {
        const v = await viewOf(victim, ctx.config.vhost);
        return v !== null && majority.every((n) => !v.running.includes(n.name));
      };
      const heldDelivery = held;
      const seen = await steps.hold(stream, {
        failed: victim,
        at: cutAt,
        forMs: o.cutForMs,
        untilSeen: true,
        viewer: majority[0]!,
        also: cutOffSees,
        // the held delivery back on node 1: after the timeout, within --election-bound after the node is seen down
        awaited: {
          seen: () => heldDelivery.returned() !== null,
          forMs: (kept ? o.consumerDisconnectedTimeoutMs : 0) + o.electionBoundMs,
        },
        word: 'cut',
      });
      const {
        electedAt,
        leader: leaderDuringCut,
        viewerSawAt: majoritySawCutAt,
        alsoSeenAt: cutSawMajorityAt,
        abandonedAt,
      } = seen;
      const returned = heldDelivery.returned();
      ctx.progress(
        returned === null
          ? `${name.held}: the delivery ${victim.name}'s consumer held did not come back during the cut`
          : `${name.held}: the delivery ${victim.name}'s consumer held went to ${heldDelivery.other}'s consumer ${Math.round(returned.at - cutAt)} ms after the cut (${returned.redelivered ? 'redelivered' : 'not redelivered'}, x-delivery-count ${returned.deliveryCount ?? 'absent'})`,
      );
      const after = (t: number | null) => (t === null ? 'not within the cut' : `after ${Math.round(t - cutAt)} ms`);
      ctx.progress(
        `${majority[0]!.name} saw ${victim.name} down ${after(majoritySawCutAt)}; ${victim.name} saw the others down ${after(cutSawMajorityAt)}`,
      );
      ctx.progress(
        `producer A: ${a.counts.timedOut} publish(es) timed out (no confirm, no nack${a.counts.nacked ? `; ${a.counts.nacked} nacked` : ''}); it gave ${leader.name} up ${after(abandonedAt)}`,
      );
      await ctx.checkpoint('cut-off', { node: victim.name, leader: leaderDuringCut });
      const dropped = await cut.dropped();
      // the heal's moment is taken before the rules go: the packets TCP held during the cut arrive at
      // once when they do, and their confirms (seen on a loaded CI machine: 215 of them while `nft`
      // returned) belong after the cut, not in it
      const healAt = history.injected('heal', victim.name);
      const healed = await steps.heal(cut);
      ctx.progress(`healed after ${Math.round(healAt - cutAt)} ms (${dropped} packets dropped)`);

      // both sides see every member again (3.10: after the restart of the minority node); the producers run on, then stop
      const settled = await stream.settle({
        failed: victim,
        since: healAt,
        viewers: nodes,
        restart: healed,
        timeoutMs: o.catchUpTimeoutMs,
        streamMs: o.streamMs,
        graceMs: o.confirmTimeoutMs,
        restarting: (listed) =>
          `the nodes stay partitioned with the links back (they list ${listed.join(', ')}; RabbitMQ ${ctx.caps.version}, cluster_partition_handling ignore): restarting ${victim.name}, the minority, as an operator must`,
      });
      const { seenAt: healedSeenAt, partitions: partitionsAfterHeal, restartedAt, replicas } = settled;
      await ctx.checkpoint('healed', { node: victim.name });

      // the producer sends again what has no confirm, through a majority node; the consumer drains there
      const resent = await steps.resend(stream);
      await stream.drain(majority, () => ctx.broker.depth(name.queue));

      const observed: Observed = {
        history: history.entries,
        leaderBefore: leader.name,
        cutOff: victim.name,
        majorityNode: node3.name,
        cutAt,
        healAt,
        leaderDuringCut,
        electedAt,
        majoritySawCutAt,
        cutSawMajorityAt,
        healedSeenAt,
        replicas,
        heldReturnedAt: returned?.at ?? null,
      };
      const an = analyse(history.entries);
      const cutOffOut = outcomes(history.entries, leader.name, cutAt, healAt);
      const ms = (t: number | null) => (t === null ? null : Math.round(t - cutAt));
      const facts = {
        cutOff: victim.name,
        leaderBefore: leader.name,
        leaderDuringCut,
        netTicktimeS: NET_TICKTIME_S,
        electionMs: ms(electedAt),
        majoritySawCutMs: ms(majoritySawCutAt),
        cutSawMajorityMs: ms(cutSawMajorityAt),
        majorityResumedMs: ms(firstConfirmAfter(history.entries, node3.name, cutAt)),
        cutOffAbandonedMs: ms(abandonedAt),
        healedSeenMs: healedSeenAt === null ? null : Math.round(healedSeenAt - healAt),
        partitionsAfterHeal,
        minorityRestartedMs: restartedAt === null ? null : Math.round(restartedAt - healAt),
        cutOffLeaderPublishes: cutOffOut,
        majorityPublishes: outcomes(history.entries, node3.name, cutAt, healAt),
        resent,
        unconfirmedThenDelivered: an.unconfirmedThenDelivered.length,
        consumerDisconnectedTimeoutMs: kept ? timeoutMs : null,
        heldReturnedMs: returned === null ? null : Math.round(returned.at - cutAt),
        heldRedelivered: returned?.redelivered ?? null,
        // the return counted as a failed delivery (3.10, 4.0–4.2) or not (4.3: x-delivery-count absent)
        heldDeliveryCount: returned?.deliveryCount ?? null,
        droppedPackets: dropped,
        history: history.toJSON(),
      };
      return {
        lines: [
          summaryLine('partition', {
            cutOff: victim.name,
            leader: `${leader.name}->${leaderDuringCut ?? 'none'}`,
            electionMs: facts.electionMs,
            majoritySawCutMs: facts.majoritySawCutMs,
            cutSawMajorityMs: facts.cutSawMajorityMs,
            majorityResumedMs: facts.majorityResumedMs,
            published: an.published,
            confirmed: an.confirmed.size,
            cutOffTimedOut: cutOffOut.timeout,
            cutOffNacked: cutOffOut.nack,
            cutOffConfirmedLate: cutOffOut.confirmedLate,
            minorityRestarted: restartedAt !== null,
            resent,
            consumed: an.consumed.size,
            duplicates: an.duplicates.length,
            heldReturnedMs: facts.heldReturnedMs,
          }),
        ],
        checks: verdicts(observed, o.electionBoundMs, { timeoutMs: o.consumerDisconnectedTimeoutMs, kept }),
        facts,
      };
    } finally {
      await stream.close();
      await held?.close();
      await cut?.heal();
    }
  },
});
