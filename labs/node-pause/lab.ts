/**
 * node-pause — the quorum queue's leader's node is frozen (SIGSTOP of its Erlang VM: sockets open,
 * nothing answered) while two producers publish with confirms, one through that node and one through
 * a majority node; held past the failure detector, then resumed (SIGCONT). The run's history
 * (src/kit/cluster/history.ts) and the majority's view decide the checks (names.ts: the topology).
 */
import { summaryLine, NET_TICKTIME_S, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import {
  analyse,
  firstConfirmAfter,
  firstOutcomes,
  outcomes,
  openLeaderStream,
  ownCluster,
  recordConsumed,
  recordTimeout,
  type ClusterNode,
  type History,
  type Held,
  type HoldOptions,
  type LeaderStream,
} from '../../src/kit/cluster/index.js';
import { CLUSTER_NODES, names, queueArguments } from './names.js';
import { verdicts, type Observed } from './verdicts.js';

/** the steps of the node-pause experiment a broken variant may replace (variants.ts, TEST ONLY) */
export interface PauseSteps {
  /** the node frozen: the queue leader's */
  frozen(leader: ClusterNode, others: ClusterNode[]): ClusterNode;
  /** frozen for --pause-for, then on until the majority saw it (and, when the leader's node is frozen, a new leader confirms) */
  hold(stream: LeaderStream, o: HoldOptions): Promise<Held>;
  /** SIGCONT: the pid resumed (null: none) */
  resume(node: ClusterNode): number | null;
  /** a publish past its confirm deadline: recorded as timed out, not as confirmed */
  timedOut(history: History, id: number, node: string): void;
  /** every id without a confirm sent again, through a majority node: the count sent */
  resend(stream: LeaderStream): Promise<number>;
  /** how the consumer records a delivery, then acks it */
  consumed(history: History, id: number, node: string, redelivered: boolean): void;
}

const correct: PauseSteps = {
  frozen: (leader) => leader,
  hold: (stream, o) => stream.hold(o),
  resume: (node) => node.resume(),
  timedOut: recordTimeout,
  resend: (stream) => stream.resendUnconfirmed(),
  consumed: recordConsumed,
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
    const steps = ctx.steps(correct);
    const o = ctx.options;
    const name = names(ctx.names);
    const stream = await openLeaderStream(ctx, cluster, name.queue, queueArguments, {
      window: o.window,
      paceMs: Math.max(1, Math.round(1000 / o.rate)),
      confirmTimeoutMs: o.confirmTimeoutMs,
      timedOut: (history, id, node) => steps.timedOut(history, id, node),
    });
    const { nodes, leader, majorityNode: node3, history, a } = stream;
    const node1 = nodes[0];
    const victim = steps.frozen(leader, [node1, node3]);
    const majority = nodes.filter((n) => n !== victim);
    ctx.progress(
      `${name.queue}: leader ${leader.name}; producer A publishes through it, producer B through ${node3.name}`,
    );
    try {
      stream.start();
      await ctx.sleep(o.streamMs);
      await ctx.checkpoint('before-pause', { node: victim.name });

      const frozenPid = victim.pause();
      const pauseAt = history.injected('pause', victim.name);
      ctx.progress(`SIGSTOP ${victim.name} (pid ${frozenPid}): frozen, its sockets open`);
      const held = await steps.hold(stream, {
        failed: victim,
        at: pauseAt,
        forMs: o.pauseForMs,
        untilSeen: true,
        viewer: majority[0]!,
        word: 'pause',
      });
      const { electedAt, leader: leaderDuringPause, viewerSawAt: majoritySawPauseAt, abandonedAt } = held;
      const after = (t: number | null) => (t === null ? 'not within the pause' : `after ${Math.round(t - pauseAt)} ms`);
      ctx.progress(`${majority[0]!.name} saw ${victim.name} down ${after(majoritySawPauseAt)}`);
      ctx.progress(
        `producer A: ${a.counts.timedOut} publish(es) timed out, ${a.counts.nacked} nacked, ${a.counts.lost} lost with the connection (its TCP connection stayed open); it gave ${leader.name} up ${after(abandonedAt)}`,
      );
      await ctx.checkpoint('frozen', { node: victim.name, leader: leaderDuringPause });
      const resumed = steps.resume(victim) !== null;
      const resumeAt = history.injected('resume', victim.name);
      ctx.progress(`SIGCONT ${victim.name} after ${Math.round(resumeAt - pauseAt)} ms`);

      // node 1 sees every member again (3.10: after the restart of the resumed node); the producers run on, then stop
      const settled = await stream.settle({
        failed: victim,
        since: resumeAt,
        viewers: [node1],
        restart: resumed,
        timeoutMs: o.catchUpTimeoutMs,
        streamMs: o.streamMs,
        graceMs: o.confirmTimeoutMs,
        // 3.10 (cluster_partition_handling ignore): the others declared the frozen node down, Mnesia calls
        // the meeting after the resume a partition and keeps it until the minority node restarts
        restarting: (listed) =>
          `the nodes stay partitioned after the resume (${listed.join(', ')}; RabbitMQ ${ctx.caps.version}, cluster_partition_handling ignore): restarting ${victim.name}, as an operator must`,
      });
      const { seenAt: resumedSeenAt, restartedAt, replicas } = settled;
      await ctx.checkpoint('resumed', { node: victim.name });

      const resent = await steps.resend(stream);
      await stream.drain(
        majority,
        () => ctx.broker.depth(name.queue),
        (history, id, node, redelivered) => steps.consumed(history, id, node, redelivered),
      );

      const observed: Observed = {
        history: history.entries,
        leaderBefore: leader.name,
        frozen: victim.name,
        majorityNode: node3.name,
        pauseAt,
        resumeAt,
        abandonedAt,
        leaderDuringPause,
        majoritySawPauseAt,
        resumedSeenAt,
        replicas,
      };
      const an = analyse(history.entries);
      const frozenOut = outcomes(history.entries, leader.name, pauseAt, resumeAt);
      // what frozenLeaderAnsweredNothing counts, named when it is not nothing: each publish and its first answer
      const answered = firstOutcomes(history.entries, leader.name, pauseAt, abandonedAt ?? resumeAt).filter(
        (p) => p.first && p.first.kind !== 'timeout',
      );
      if (answered.length)
        ctx.progress(
          `${leader.name} answered ${answered.length} publish(es) A sent while it was frozen: ${answered
            .slice(0, 5)
            .map((p) => `id ${p.id} sent +${p.sentAt - pauseAt} ms: ${p.first!.kind} +${p.first!.t - pauseAt} ms`)
            .join('; ')}${answered.length > 5 ? '; …' : ''}`,
        );
      const ms = (t: number | null) => (t === null ? null : Math.round(t - pauseAt));
      const facts = {
        frozen: victim.name,
        frozenPid,
        leaderBefore: leader.name,
        leaderDuringPause,
        netTicktimeS: NET_TICKTIME_S,
        electionMs: ms(electedAt),
        majoritySawPauseMs: ms(majoritySawPauseAt),
        majorityResumedMs: ms(firstConfirmAfter(history.entries, node3.name, pauseAt)),
        frozenAbandonedMs: ms(abandonedAt),
        resumedSeenMs: resumedSeenAt === null ? null : Math.round(resumedSeenAt - resumeAt),
        restartedAfterResumeMs: restartedAt === null ? null : Math.round(restartedAt - resumeAt),
        frozenLeaderPublishes: frozenOut,
        majorityPublishes: outcomes(history.entries, node3.name, pauseAt, resumeAt),
        resent,
        unconfirmedThenDelivered: an.unconfirmedThenDelivered.length,
        history: history.toJSON(),
      };
      return {
        lines: [
          summaryLine('node-pause', {
            frozen: victim.name,
            leader: `${leader.name}->${leaderDuringPause ?? 'none'}`,
            electionMs: facts.electionMs,
            majoritySawPauseMs: facts.majoritySawPauseMs,
            majorityResumedMs: facts.majorityResumedMs,
            published: an.published,
            confirmed: an.confirmed.size,
            frozenTimedOut: frozenOut.timeout,
            frozenNacked: frozenOut.nack,
            frozenLost: frozenOut.lost,
            restarted: restartedAt !== null,
            resent,
            consumed: an.consumed.size,
            duplicates: an.duplicates.length,
          }),
        ],
        checks: verdicts(observed, o.electionBoundMs),
        facts,
      };
    } finally {
      victim.resume();
      await stream.close();
    }
  },
});
