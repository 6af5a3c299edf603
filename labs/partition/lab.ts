/**
 * partition — the quorum queue's leader's node is cut off from the other two (Erlang distribution
 * dropped both ways, src/services/link-cut.ts) while two producers publish with confirms, one through
 * that node and one through a majority node; held past the nodes' failure detector, then healed.
 * The run's history (src/history.ts) and the nodes' own views decide the checks (names.ts: topology).
 */
import type { Lab } from '../../src/lab.js';
import type { Fault } from './faults.js';
import type { Checkpoint } from './checkpoints.js';
import { EnvError, LabError } from '../../src/errors.js';
import { summaryLine } from '../../src/report/checks.js';
import { withVariants } from '../../src/variant.js';
import { analyse, firstConfirmAfter, History, historyEvent, outcomes } from '../../src/history.js';
import { PacedProducer, drainRecorded, resendUnconfirmed } from '../../src/broker/recorded-clients.js';
import { ownCluster, quorumQueue, waitForMembers, type ClusterNode } from '../../src/services/cluster.js';
import { caughtUp, declareThrough, replicasOnline, viewOf } from '../../src/services/cluster-watch.js';
import { cutLinks, linkCutRefusal, type LinkCut } from '../../src/services/link-cut.js';
import { NET_TICKTIME_S } from '../../src/defaults.js';
import { within } from '../../src/time.js';
import { CLUSTER_NODES, names, queueArguments } from './names.js';
import { variants, type PartitionSteps } from './variants.js';
import { verdicts, type Observed } from './verdicts.js';
import type { PartitionOptions } from './options.js';

const correct: PartitionSteps = {
  cutOff: (leader) => leader,
  cutFor: (ms) => ms,
  heal: true,
  resend: true,
  alsoResend: () => [],
  timeoutIsConfirm: false,
};

export const lab: Lab<PartitionOptions, Fault, Checkpoint> = {
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
    const steps = withVariants(ctx, correct, variants);
    const o = ctx.options;
    const x = names(ctx.names);
    const [node1, node2, node3] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    for (const node of cluster.nodes) node.resume(); // a node an interrupted node-pause run left stopped runs again
    for (const node of cluster.nodes.filter((n) => n.pid() === null)) {
      ctx.progress(`${node.name} does not run (left down by an earlier run?): starting it`);
      await node.start();
    }
    await waitForMembers(ctx.config, CLUSTER_NODES, 120_000);

    // the queue leads on node 2 (declared there, client-local); node 1 serves the engine and stays on the majority side
    await declareThrough(node2.amqpUrl, x.queue, { ...queueArguments });
    const before = await replicasOnline(ctx.mgmt, x.queue, CLUSTER_NODES);
    if (before.leader !== node2.name)
      throw new LabError(
        `the leader of ${x.queue} is ${before.leader}, not ${node2.name} through which it was declared`,
      );
    const leader = node2;
    const victim = steps.cutOff(leader, [node1, node3]);
    const majority = cluster.nodes.filter((n) => n !== victim);
    ctx.progress(
      `${x.queue}: leader ${leader.name}; producer A publishes through it, producer B through ${node3.name}`,
    );

    const history = new History(Date.now, (e) => ctx.log.emit('history', historyEvent(e)));
    let next = 1;
    const nextId = () => next++;
    const popts = {
      window: o.window,
      paceMs: Math.max(1, Math.round(1000 / o.rate)),
      confirmTimeoutMs: o.confirmTimeoutMs,
      timeoutIsConfirm: steps.timeoutIsConfirm,
    };
    const a = await PacedProducer.open(leader.amqpUrl, leader.name, history, popts);
    const b = await PacedProducer.open(node3.amqpUrl, node3.name, history, popts);
    let cut: LinkCut | null = null;
    try {
      a.start(x.queue, nextId);
      b.start(x.queue, nextId);
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
      const cutFor = steps.cutFor(o.cutForMs);
      const until = cutAt + cutFor;
      // each observation on its own: one that hangs (a call that waits on the cut-off node) delays no other
      const watch = async (seen: () => Promise<boolean>): Promise<number | null> => {
        while (Date.now() < until) {
          if (await seen().catch(() => false)) return Math.round(Date.now());
          await ctx.sleep(250);
        }
        return null;
      };
      let leaderDuringCut: string | null = null;
      const [electedAt, majoritySawCutAt, cutSawMajorityAt, abandonedAt] = await Promise.all([
        watch(async () => {
          const q = await within(quorumQueue(ctx.mgmt, x.queue), 3000, 'the queue');
          if (q?.leader && q.leader !== before.leader) leaderDuringCut = q.leader;
          return leaderDuringCut !== null;
        }),
        watch(async () => {
          const v = await viewOf(majority[0]!, ctx.config.vhost);
          return v !== null && !v.running.includes(victim.name);
        }),
        watch(async () => {
          const v = await viewOf(victim, ctx.config.vhost);
          return v !== null && majority.every((n) => !v.running.includes(n.name));
        }),
        // producer A gives the node up at its first confirm timeout, as a client should; its ids are resent elsewhere
        watch(async () => a.counts.timedOut > 0 && (await a.abandon(), true)),
      ]);
      await ctx.sleep(Math.max(0, until - Date.now())); // the cut is held for --cut-for, whatever was seen
      const after = (t: number | null) => (t === null ? 'not within the cut' : `after ${Math.round(t - cutAt)} ms`);
      ctx.progress(`the majority's new leader: ${leaderDuringCut ?? 'none'} ${after(electedAt)}`);
      ctx.progress(
        `${majority[0]!.name} saw ${victim.name} down ${after(majoritySawCutAt)}; ${victim.name} saw the others down ${after(cutSawMajorityAt)}`,
      );
      ctx.progress(
        `producer A: ${a.counts.timedOut} publish(es) timed out (no confirm, no nack${a.counts.nacked ? `; ${a.counts.nacked} nacked` : ''}); it gave ${leader.name} up ${after(abandonedAt)}`,
      );
      if (leaderDuringCut === null)
        leaderDuringCut = (await quorumQueue(ctx.mgmt, x.queue).catch(() => null))?.leader ?? null;
      await ctx.checkpoint('cut-off', { node: victim.name, leader: leaderDuringCut });
      const dropped = await cut.dropped();
      if (steps.heal) await cut.heal();
      const healAt = history.injected('heal', victim.name);
      ctx.progress(`healed after ${Math.round(healAt - cutAt)} ms (${dropped} packets dropped)`);

      // both sides see every member again (3.10: after the restart of the minority node); the producers run on, then stop
      let healedSeenAt: number | null = null;
      let partitionsAfterHeal: string[] = [];
      let restartedAt: number | null = null;
      const healEnd = healAt + o.catchUpTimeoutMs;
      while (Date.now() < healEnd) {
        const views = await Promise.all(cluster.nodes.map((n) => viewOf(n, ctx.config.vhost)));
        const listed = [...new Set(views.flatMap((v) => v?.partitions ?? []))];
        if (listed.length) partitionsAfterHeal = listed;
        if (views.every((v) => v && v.running.length === CLUSTER_NODES)) {
          healedSeenAt = Date.now();
          break;
        }
        // Mnesia's partition, kept under cluster_partition_handling=ignore (3.10's default): the nodes list it
        // once they meet again and stay apart until the minority node restarts (4.3 lists none: Khepri)
        if (steps.heal && restartedAt === null && listed.length && Date.now() > healAt + 2 * NET_TICKTIME_S * 1000) {
          ctx.progress(
            `the nodes stay partitioned with the links back (they list ${listed.join(', ')}; RabbitMQ ${ctx.caps.version}, cluster_partition_handling ignore): restarting ${victim.name}, the minority, as an operator must`,
          );
          await victim.kill(30_000);
          await victim.start();
          restartedAt = history.injected('restart', victim.name);
        }
        await ctx.sleep(500);
      }
      await ctx.sleep(o.streamMs);
      await Promise.all([a.stop(o.confirmTimeoutMs), b.stop(o.confirmTimeoutMs)]);
      const replicas = healedSeenAt
        ? await caughtUp(cluster, x.queue, ctx.config.vhost, victim.name, o.catchUpTimeoutMs, (l) => ctx.progress(l))
        : null;
      await ctx.checkpoint('healed', { node: victim.name });

      // the producer sends again what has no confirm, through a majority node; the consumer drains there
      const confirmed = [...analyse(history.entries).confirmed].sort((p, q) => p - q);
      const resent = steps.resend
        ? await resendUnconfirmed(history, node1.amqpUrl, node1.name, x.queue, 60_000, steps.alsoResend(confirmed))
        : 0;
      const byUrl = (url: string) => cluster.nodes.find((n) => n.amqpUrl === url)?.name ?? url;
      await drainRecorded(
        history,
        majority.map((n) => n.amqpUrl),
        byUrl,
        x.queue,
        () => ctx.broker.depth(x.queue),
        { quietMs: 1500, timeoutMs: 120_000 },
      );

      const observed: Observed = {
        history: history.entries,
        leaderBefore: before.leader,
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
      };
      const an = analyse(history.entries);
      const cutOffOut = outcomes(history.entries, leader.name, cutAt, healAt);
      const ms = (t: number | null) => (t === null ? null : Math.round(t - cutAt));
      const facts = {
        cutOff: victim.name,
        leaderBefore: before.leader,
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
        droppedPackets: dropped,
        history: history.toJSON(),
      };
      return {
        lines: [
          summaryLine('partition', {
            cutOff: victim.name,
            leader: `${before.leader}->${leaderDuringCut ?? 'none'}`,
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
          }),
        ],
        checks: verdicts(observed, o.electionBoundMs),
        facts,
      };
    } finally {
      await Promise.all([a.close(), b.close()]);
      await cut?.heal();
    }
  },
};
