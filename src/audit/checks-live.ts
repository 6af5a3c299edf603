/**
 * Checks that need what the broker sees now (consumers, channels, message rates, replicas, nodes):
 * skipped on a definitions file. Thresholds are constants here and on docs/audit.md.
 */
import { hasMessageTtl } from '../broker/dlx-graph.js';
import type { Check } from './finding.js';
import { graphs } from './graph.js';
import { SEE } from './labs.js';
import { setting, underDefaultLimit, versionOf, type AuditQueue } from './snapshot.js';

/** redeliveries per second that make a requeue storm, when they are also most of the deliveries */
export const STORM_RATE = 20;
/** replicas a quorum queue should have on a cluster of at least that many nodes */
export const REPLICAS = 3;

const queue = (name: string) => ({ kind: 'queue' as const, name });
const stats = (q: AuditQueue) =>
  q.stats ?? {
    messages: 0,
    ready: 0,
    unacked: 0,
    consumers: 0,
    redeliverRate: 0,
    deliverRate: 0,
    ackRate: 0,
    redelivered: 0,
  };
const unset = (v: unknown) => v === undefined || v === null;

export const quorumDefaultLimit: Check = {
  id: 'quorum-default-delivery-limit',
  severity: 'warning',
  title: 'a quorum queue whose messages come back, with no dead-letter target, under the default delivery limit',
  lab: SEE.deliveryLimit,
  fix: 'give the queue a dead-letter exchange with a bound DLQ (and set delivery-limit to the bound you mean), or delivery-limit=-1 to keep requeued messages',
  needs: ['statistics'],
  notApplicable: (s) =>
    versionOf(s)[0] < 4 ? `RabbitMQ ${s.broker?.version ?? '?'} has no default delivery limit (20 from 4.0)` : null,
  find: (s) =>
    s.queues.flatMap((q) => {
      if (!underDefaultLimit(q) || stats(q).redelivered === 0) return [];
      return [
        {
          vhost: q.vhost,
          object: queue(q.name),
          problem: `messages return to it (${stats(q).redelivered} redeliveries) and after 20 deliveries the broker drops a message: it has no dead-letter exchange`,
          evidence: { redelivered: stats(q).redelivered },
        },
      ];
    }),
};

export const delayQueueMessageTtl: Check = {
  id: 'delay-queue-per-message-ttl',
  severity: 'warning',
  title: 'a delay queue without a queue TTL: per-message TTLs expire only at the head',
  lab: SEE.delayQueue,
  fix: 'one delay queue per delay with x-message-ttl on the queue (a ladder of tiers), or the broker’s delayed retry on 4.3',
  needs: ['statistics'],
  find: (s) =>
    s.queues.flatMap((q) => {
      const st = stats(q);
      if (
        unset(setting(q, 'dead-letter-exchange')) ||
        !unset(setting(q, 'message-ttl')) ||
        st.consumers > 0 ||
        st.ready === 0
      )
        return [];
      // a bounded queue sheds its head by overflow: not a delay queue
      if (!unset(setting(q, 'max-length')) || !unset(setting(q, 'max-length-bytes'))) return [];
      return [
        {
          vhost: q.vhost,
          object: queue(q.name),
          problem: `${st.ready} message(s) wait with no consumer and no queue TTL, to leave by dead lettering: each message's own TTL expires only at the head, so a long delay blocks every shorter one behind it`,
          evidence: { ready: st.ready, consumers: st.consumers },
        },
      ];
    }),
};

export const growingDlq: Check = {
  id: 'dead-letter-queue-grows',
  severity: 'warning',
  title: 'a dead-letter queue that only grows: no consumer, no TTL, no max-length',
  lab: SEE.growingDlq,
  fix: 'consume the DLQ (archive, alert, replay), or bound it with x-message-ttl or max-length so it cannot fill the broker',
  needs: ['statistics'],
  find: (s) =>
    graphs(s).flatMap((g) => {
      const targets = g.deadLetterTargets();
      return g.queues.flatMap((q) => {
        const st = stats(q);
        if (!targets.has(q.name) || hasMessageTtl(g.node(q)) || st.consumers > 0 || st.messages === 0) return [];
        if (!unset(setting(q, 'max-length')) || !unset(setting(q, 'max-length-bytes')) || !unset(setting(q, 'expires')))
          return [];
        return [
          {
            vhost: g.vhost,
            object: queue(q.name),
            problem: `it receives dead letters (${st.messages} now) and nothing removes them: no consumer, no TTL, no max-length`,
            evidence: { messages: st.messages },
          },
        ];
      });
    }),
};

export const requeueStorm: Check = {
  id: 'requeue-storm',
  severity: 'error',
  title: 'a queue whose deliveries are mostly redeliveries (nack/reject with requeue in a loop)',
  lab: SEE.requeueStorm,
  fix: 'do not requeue a failed message at once: reject it without requeue into a delay queue (TTL) or a DLQ, with a bound on attempts',
  needs: ['statistics'],
  find: (s) =>
    s.queues.flatMap((q) => {
      const st = stats(q);
      if (st.redeliverRate < STORM_RATE || st.redeliverRate < st.deliverRate / 2) return [];
      return [
        {
          vhost: q.vhost,
          object: queue(q.name),
          problem: `${st.redeliverRate.toFixed(0)} redeliveries per second of ${st.deliverRate.toFixed(0)} deliveries: messages are requeued and delivered again at once, a storm that holds the consumer and the broker`,
          evidence: { redeliverRate: st.redeliverRate, deliverRate: st.deliverRate },
        },
      ];
    }),
};

export const unackedPile: Check = {
  id: 'unacked-pile',
  severity: 'warning',
  title: 'unacked messages held by consumers that ack nothing while others wait',
  lab: SEE.unackedPile,
  fix: 'find the stuck consumer (its channel holds the unacked messages): ack or reject each delivery, set a consumer timeout, and restart it',
  needs: ['statistics'],
  find: (s) =>
    s.queues.flatMap((q) => {
      const st = stats(q);
      if (st.consumers === 0 || st.unacked === 0 || st.ready === 0 || st.ackRate > 0) return [];
      return [
        {
          vhost: q.vhost,
          object: queue(q.name),
          problem: `${st.unacked} message(s) unacked under ${st.consumers} consumer(s) that ack none, while ${st.ready} wait`,
          evidence: { unacked: st.unacked, ready: st.ready, ackRate: st.ackRate },
        },
      ];
    }),
};

export const autoAck: Check = {
  id: 'consumer-auto-ack',
  severity: 'warning',
  title: 'consumers with automatic acknowledgement (noAck)',
  lab: SEE.autoAck,
  fix: 'consume with manual acks: ack after the work is done (committed), so a crash returns the message',
  needs: ['statistics'],
  find: (s) =>
    (s.consumers ?? [])
      .filter((c) => !c.ackRequired)
      .map((c) => ({
        vhost: c.vhost,
        object: { kind: 'consumer' as const, name: c.tag, queue: c.queue },
        problem: `a consumer of queue '${c.queue}' takes messages with auto-ack: whatever it holds when it crashes is lost`,
        evidence: { queue: c.queue, channel: c.channel },
      })),
};

export const unlimitedPrefetch: Check = {
  id: 'consumer-unlimited-prefetch',
  severity: 'warning',
  title: 'consumers with manual acks and no prefetch limit',
  lab: SEE.prefetch,
  fix: 'set a prefetch (basic.qos), e.g. 10-100: the broker then holds the rest for other consumers',
  needs: ['statistics'],
  find: (s) =>
    (s.consumers ?? [])
      .filter((c) => c.ackRequired && c.prefetch === 0 && c.channelPrefetch === 0)
      .map((c) => ({
        vhost: c.vhost,
        object: { kind: 'consumer' as const, name: c.tag, queue: c.queue },
        problem: `a consumer of queue '${c.queue}' has no prefetch limit: the broker pushes it every ready message, which a crash returns all at once`,
        evidence: { queue: c.queue, channel: c.channel },
      })),
};

export const noConfirms: Check = {
  id: 'publisher-without-confirms',
  severity: 'warning',
  title: 'channels that publish without publisher confirms',
  lab: SEE.confirms,
  fix: 'publish on a confirm channel (confirm.select) and resend what is not confirmed',
  needs: ['statistics'],
  find: (s) =>
    (s.channels ?? [])
      .filter((c) => !c.confirm && c.published > 0)
      .map((c) => ({
        vhost: c.vhost,
        object: { kind: 'channel' as const, name: c.name },
        problem: `channel of user '${c.user}' published ${c.published} message(s) without confirms: a message lost on the way is never known`,
        evidence: { published: c.published, user: c.user },
      })),
};

const clusterOnly = (s: { nodes: string[] | null }) =>
  (s.nodes?.length ?? 0) < 2 ? `one node (${s.nodes?.[0] ?? '?'}): nothing to replicate` : null;

export const fewReplicas: Check = {
  id: 'quorum-few-replicas',
  severity: 'warning',
  title: 'quorum queues with fewer replicas than the cluster allows',
  lab: SEE.replicas,
  fix: `grow the queue (rabbitmq-queues grow <node> all, or add_member) to ${REPLICAS} replicas (or every node, on a smaller cluster)`,
  needs: ['statistics', 'cluster'],
  notApplicable: clusterOnly,
  find: (s) => {
    const want = Math.min(REPLICAS, s.nodes?.length ?? 0);
    return s.queues.flatMap((q) =>
      q.type === 'quorum' && q.members && q.members.length < want
        ? [
            {
              vhost: q.vhost,
              object: queue(q.name),
              problem: `${q.members.length} replica(s) on a cluster of ${s.nodes!.length} nodes: it survives the loss of ${Math.max(0, Math.floor((q.members.length - 1) / 2))} node(s)`,
              evidence: { members: q.members, nodes: s.nodes },
            },
          ]
        : [],
    );
  },
};

export const classicOnCluster: Check = {
  id: 'classic-durable-on-cluster',
  severity: 'warning',
  title: 'durable classic queues on a cluster: their messages live on one node',
  lab: SEE.replicas,
  fix: 'declare durable data as a quorum queue (x-queue-type=quorum): it keeps a replica on several nodes',
  needs: ['cluster'],
  notApplicable: clusterOnly,
  find: (s) =>
    s.queues
      .filter((q) => q.type === 'classic' && q.durable && !q.exclusive && !q.autoDelete)
      .map((q) => ({
        vhost: q.vhost,
        object: queue(q.name),
        problem: `a durable classic queue on a cluster of ${s.nodes!.length} nodes: while its node is down its messages cannot be reached, and a lost disk loses them`,
        evidence: { nodes: s.nodes },
      })),
};
