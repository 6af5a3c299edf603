/**
 * node-pause — the quorum queue's leader's node is frozen (SIGSTOP of its Erlang VM: sockets open,
 * nothing answered) while two producers publish with confirms, one through that node and one through
 * a majority node; held past the failure detector, then resumed (SIGCONT). The run's history
 * (src/kit/cluster/history.ts) and the majority's view decide the checks (names.ts: the topology).
 */
import { summaryLine, withVariants, NET_TICKTIME_S, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import {
  analyse,
  firstConfirmAfter,
  firstOutcomes,
  outcomes,
  openLeaderStream,
  ownCluster,
} from '../../src/kit/cluster/index.js';
import { CLUSTER_NODES, names, queueArguments } from './names.js';
import { variants, type PauseSteps } from './variants.js';
import { verdicts, type Observed } from './verdicts.js';

const correct: PauseSteps = {
  frozen: (leader) => leader,
  pauseFor: (ms) => ms,
  holdUntilSeen: true,
  resume: true,
  resend: true,
  alsoResend: () => [],
  timeoutIsConfirm: false,
  ackUnrecorded: 0,
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
    const steps = withVariants(ctx, correct, variants);
    const o = ctx.options;
    const name = names(ctx.names);
    const stream = await openLeaderStream(ctx, cluster, name.queue, queueArguments, {
      window: o.window,
      paceMs: Math.max(1, Math.round(1000 / o.rate)),
      confirmTimeoutMs: o.confirmTimeoutMs,
      timeoutIsConfirm: steps.timeoutIsConfirm,
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
      const held = await stream.hold({
        failed: victim,
        at: pauseAt,
        forMs: steps.pauseFor(o.pauseForMs),
        untilSeen: steps.holdUntilSeen,
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
      if (steps.resume) victim.resume();
      const resumeAt = history.injected('resume', victim.name);
      ctx.progress(`SIGCONT ${victim.name} after ${Math.round(resumeAt - pauseAt)} ms`);

      // node 1 sees every member again (3.10: after the restart of the resumed node); the producers run on, then stop
      const settled = await stream.settle({
        failed: victim,
        since: resumeAt,
        viewers: [node1],
        restart: steps.resume,
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

      const resent = steps.resend ? await stream.resendUnconfirmed(steps.alsoResend(stream.confirmed())) : 0;
      await stream.drain(majority, () => ctx.broker.depth(name.queue), steps.ackUnrecorded);

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
