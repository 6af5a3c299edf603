/**
 * quorum-failover — the broker layer of the three-layer guarantee (docs/labs/quorum-failover.md),
 * proven by a fault: a quorum queue on 3 nodes keeps every confirmed message when its leader's node
 * is SIGKILLed mid-stream; the producer resends
 * what was unconfirmed; the consumer's unique key absorbs the duplicates (names.ts: the topology).
 */
import { type LabContext, ReconnectingConsumer, LabError, summaryLine, labCode } from '../../src/kit/index.js';
import { meta } from './meta.js';
import {
  clusterRunning,
  declareReplicated,
  REPLACED_REPLICA_GONE_MS,
  ownCluster,
  quorumQueue,
  type ClusterNode,
  type OwnCluster,
  type ReplicaStatus,
  analyse,
  History,
  historyEvent,
} from '../../src/kit/cluster/index.js';
import { CLUSTER_NODES, names, queueArguments, reset, schema } from './names.js';
import { stream } from './producer.js';
import { caughtUp, verdicts, type Row } from './verdicts.js';
import type { QuorumFailoverOptions } from './options.js';
import type { FailoverSteps } from './steps.js';

type Ctx = LabContext<QuorumFailoverOptions>;

export const lab = labCode(meta, {
  schema,
  reset,

  async run(ctx) {
    const cluster = ownCluster(ctx.config, CLUSTER_NODES);
    if ('missing' in cluster) return { lines: [], checks: [], skipped: cluster.missing };
    const name = names(ctx.names);
    // the experiment's steps, as taught
    const steps = ctx.steps<FailoverSteps>({
      pauseAfterDelete: () => REPLACED_REPLICA_GONE_MS,
      victim: (leader) => leader,
      restart: (node) => node.start(),
      countConfirm: (confirm, count) => confirm.then(count),
      reconnect: (pub) => pub.reconnect(),
      resend: (lost, confirmed) => lost.filter((id) => !confirmed.has(id)),
    });
    const [node1, node2] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    // a node an interrupted run left down (or frozen) runs again first (the lab starts only nodes mqlab started)
    await clusterRunning(ctx.config, cluster, (line) => ctx.progress(line));

    // a fresh queue, its leader on node 2 (declared there, client-local): never node 1, which the engine uses.
    // The previous run's queue is deleted first; the declare waits until its replicas have terminated
    // (a node killed after a declare that came sooner may never restart the new replica: capabilities.ts
    // quorumRedeclareStaleReplica). Where that is so (3.10), twice: a node that did come back without its
    // replica keeps a stale entry until its replica is deleted while it runs, which the second delete does
    const before = await declareReplicated(
      ctx.mgmt,
      node2.amqpUrl,
      name.queue,
      { ...queueArguments },
      CLUSTER_NODES,
      (line) => ctx.progress(line),
      { rounds: ctx.caps.quorumRedeclareStaleReplica ? 2 : 1, pauseMs: steps.pauseAfterDelete() },
    );
    if (!before.leader || before.leader === node1.name)
      throw new LabError(
        `the leader of ${name.queue} is ${before.leader ?? 'unknown'}, not a node the lab may kill (node 1 serves the run itself)`,
      );
    const leader = byName(cluster, before.leader);
    const victim = steps.victim(
      leader,
      cluster.nodes.filter((n) => n !== node1 && n !== leader),
    );
    const survivors = cluster.nodes.filter((n) => n !== victim);
    ctx.progress(
      `${name.queue}: leader ${before.leader}, replicas ${before.members.join(', ')}; the producer starts on the leader's node`,
    );

    let killedPid = 0;
    const history = new History(Date.now, (e) => ctx.log.emit('history', historyEvent(e)));
    const nodeOf = (url: string | null) => (url && byUrl(cluster, url)) || 'none';
    const s = await stream(
      ctx,
      steps,
      [leader.amqpUrl, ...cluster.nodes.filter((n) => n !== leader).map((n) => n.amqpUrl)],
      name.queue,
      () => ctx.checkpoint('before-kill', { node: victim.name }),
      async () => {
        const at = Date.now();
        killedPid = await victim.kill(30_000);
        history.injected('kill', victim.name);
        ctx.log.emit('lab', { status: 'node_killed', node: victim.name, pid: killedPid, signal: 'SIGKILL' });
        ctx.progress(`SIGKILL ${victim.name} (pid ${killedPid}): the process is gone`);
        return at;
      },
      history,
      nodeOf,
    );
    const failoverMs = s.killAt !== null && s.firstConfirmAfter !== null ? s.firstConfirmAfter - s.killAt : null;
    const leaderAfter = await newLeader(ctx, name.queue, victim.name);
    await ctx.checkpoint('failed-over', { leader: leaderAfter, failoverMs });

    // the restart, then the drain, then the replicas compared
    await steps.restart(victim);
    const rows = await drain(
      ctx,
      survivors.map((n) => n.amqpUrl),
      name.queue,
      name.received,
      (id, url, redelivered) => history.consume(id, nodeOf(url), redelivered),
    );
    const replicas = await caughtUpReplicas(ctx, cluster, name.queue, victim.name);
    await ctx.checkpoint('rejoined', { node: victim.name });

    const idx = caughtUp(replicas, victim.name);
    const analysis = analyse(history.entries);
    const dups = analysis.duplicates;
    const observed = {
      messages: ctx.options.messages,
      history: analysis,
      leaderBefore: before.leader,
      leaderAfter,
      killed: victim.name,
      replicas,
      failoverMs,
    };
    return {
      lines: [
        summaryLine('quorum-failover', {
          messages: ctx.options.messages,
          confirmed: s.confirmed.size,
          killed: victim.name,
          leader: `${before.leader}->${leaderAfter ?? 'none'}`,
          unconfirmedAtKill: s.unconfirmedAtKill.size,
          resent: s.resent,
          nacked: s.nackedIds.size,
          consumed: rows.length,
          duplicates: dups.length,
          failoverMs,
        }),
      ],
      checks: verdicts(observed, ctx.options.failoverBoundMs),
      facts: {
        killedNode: victim.name,
        killedPid,
        leaderBefore: before.leader,
        leaderAfter,
        failoverMs,
        unconfirmedAtKill: s.unconfirmedAtKill.size,
        resent: s.resent,
        nackedAndSentAgain: s.renacked,
        // RabbitMQ 3.10 nacks on a channel whose first publish found the leader's node down, until a fresh channel (capabilities.ts)
        nackSticksToChannel: ctx.caps.quorumPublishNackSticksToChannel,
        channelsRenewed: s.channelsRenewed,
        pauseAfterDeleteMs: steps.pauseAfterDelete(),
        duplicateIds: dups.slice(0, 50),
        redeliveries: rows.reduce((n, r) => n + r.redeliveries, 0),
        commitIndex: idx,
        reconnectedTo: s.reconnectedTo && byUrl(cluster, s.reconnectedTo),
        unconfirmedThenDelivered: analysis.unconfirmedThenDelivered.length,
        rowsInTable: rows.length,
        history: history.toJSON(),
      },
    };
  },
});

const byName = (c: OwnCluster, name: string) =>
  c.nodes.find((n) => n.name === name) ??
  (() => {
    throw new LabError(`${name} is not a node mqlab started`);
  })();
const byUrl = (c: OwnCluster, url: string) => c.nodes.find((n) => n.amqpUrl === url)?.name ?? null;

/** the leader the management API names after the kill: another node, or null within the bound */
async function newLeader(ctx: Ctx, queue: string, killed: string): Promise<string | null> {
  const end = Date.now() + ctx.options.failoverBoundMs;
  let seen: string | null;
  do {
    seen = (await quorumQueue(ctx.mgmt, queue))?.leader ?? null;
    if (seen && seen !== killed) return seen;
    await ctx.sleep(300);
  } while (Date.now() < end);
  return seen;
}

/** consume every copy from a surviving node into the table (unique key; ack after commit; then `consumed`) until the queue is empty and quiet */
async function drain(
  ctx: Ctx,
  urls: string[],
  queue: string,
  table: string,
  consumed: (id: number, url: string, redelivered: boolean) => void,
): Promise<Row[]> {
  let last = Date.now();
  const consumer = await ReconnectingConsumer.start({
    urls,
    maxWaitMs: 30_000,
    queue,
    prefetch: 50,
    handler: async (m, url) => {
      const id = Number(m.body);
      const fresh = m.redelivered ? 0 : 1;
      await ctx.db`INSERT INTO ${ctx.db(table)} AS t (id, copies, redeliveries) VALUES (${id}, ${fresh}, ${1 - fresh})
        ON CONFLICT (id) DO UPDATE SET copies = t.copies + EXCLUDED.copies, redeliveries = t.redeliveries + EXCLUDED.redeliveries`;
      consumed(id, url, m.redelivered);
      m.ack();
      last = Date.now();
    },
  });
  try {
    const end = Date.now() + 120_000;
    for (;;) {
      const ready = await ctx.within(
        Promise.race([ctx.broker.depth(queue), consumer.failure]),
        30_000,
        `the depth of ${queue}`,
      );
      if (ready === 0 && Date.now() - last > 1500) break;
      if (Date.now() > end) throw new LabError(`${queue} still holds ${ready} ready messages after 120 s of draining`);
      await ctx.sleep(300);
    }
  } finally {
    await consumer.close();
  }
  return (await ctx.db<Row[]>`SELECT id, copies, redeliveries FROM ${ctx.db(table)} ORDER BY id`).map((r) => ({
    id: Number(r.id),
    copies: Number(r.copies),
    redeliveries: Number(r.redeliveries),
  }));
}

/** quorum_status until the killed node's replica holds the leader's commit index (or the timeout): the last status */
async function caughtUpReplicas(
  ctx: Ctx,
  cluster: OwnCluster,
  queue: string,
  killed: string,
): Promise<ReplicaStatus[] | null> {
  const end = Date.now() + ctx.options.catchUpTimeoutMs;
  let last: ReplicaStatus[] | null = null;
  do {
    last = await cluster
      .quorumStatus(queue, ctx.config.vhost)
      .catch((err: Error) => (ctx.progress(`quorum_status: ${err.message}`), last));
    const idx = caughtUp(last, killed);
    if (idx && idx.killed === idx.leader) return last;
    ctx.progress(
      `waiting for ${killed} to catch up: ${idx ? `commit index ${idx.killed} of the leader's ${idx.leader}` : 'not back in the quorum yet'}`,
    );
    await ctx.sleep(1000);
  } while (Date.now() < end);
  return last;
}
