/**
 * Checks that need what the broker sees now (consumers, channels, message rates, replicas, nodes):
 * skipped on a definitions file. Thresholds are constants here and on docs/audit.md.
 */
import { grouped, type Check, type Draft } from './finding.js';
import { SEE } from './labs.js';
import { valueOf } from './settings.js';
import { underDefaultLimit, type AuditQueue } from './snapshot.js';
import { atLeast, parseVersion, versionText } from './target.js';

/** redeliveries per second that make a requeue storm, when they are also most of the deliveries */
const STORM_RATE = 20;
/** replicas a quorum queue should have on a cluster of at least that many nodes */
const REPLICAS = 3;

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
const list = (names: readonly string[], max = 4) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;

/** DEFAULT_DELIVERY_LIMIT in rabbit_quorum_queue.erl (v4.0.0 … v4.3.5) */
const DEFAULT_DELIVERY_LIMIT = 20;
const DROPPED = `a message is dropped at its ${DEFAULT_DELIVERY_LIMIT + 1}st return (after ${DEFAULT_DELIVERY_LIMIT + 1} deliveries; \`DeliveryCount > DeliveryLimit\` on a return, rabbit_fifo.erl v4.3.5; from 4.3 only reject(requeue=true) and a lost consumer count, nack(requeue=true) does not) and, with no dead-letter exchange, lost`;

export const quorumDefaultLimit: Check = {
  id: 'quorum-default-delivery-limit',
  severity: 'warning',
  title: 'quorum queues with no dead-letter exchange under the default delivery limit (20, from RabbitMQ 4.0)',
  lab: SEE.deliveryLimit,
  fix: 'give the queue a dead-letter exchange with a bound DLQ (and set delivery-limit to the bound you mean), or delivery-limit=-1 for no limit (a policy’s -1 does not lift a positive x-delivery-limit argument: from 4.0 the larger wins when one is negative)',
  needs: [],
  notApplicable: (c) =>
    atLeast(c.target, '4.0.0')
      ? null
      : `RabbitMQ ${versionText(c.target)} has no default delivery limit (${DEFAULT_DELIVERY_LIMIT} from 4.0)`,
  find: ({ snapshot: s }) => {
    // live: the queues whose messages did come back; a file: every queue the default governs
    const hit = s.queues.filter((q) => underDefaultLimit(q) && (s.consumers === null || stats(q).redelivered > 0));
    // a file: one finding per vhost (one cause: the default); live: per queue (its own redeliveries)
    return grouped(hit, (q) => (s.consumers === null ? q.vhost : `${q.vhost}\u0000${q.name}`)).map((g): Draft => ({
      vhost: g[0]!.vhost,
      object: queue(g[0]!.name),
      ...(g.length > 1 ? { queues: g.map((q) => q.name) } : {}),
      problem:
        s.consumers === null
          ? `${g.length} quorum queue(s) (${list(g.map((q) => q.name))}) have no delivery-limit and no dead-letter exchange: from 4.0 the default limit is ${DEFAULT_DELIVERY_LIMIT}, so ${DROPPED}`
          : `messages return to ${g.length} quorum queue(s) (${g
              .map((q) => `${q.name}: ${stats(q).redelivered} redeliveries`)
              .slice(0, 4)
              .join(', ')}) with no delivery-limit and no dead-letter exchange: ${DROPPED}`,
      evidence: Object.fromEntries(
        g.slice(0, 50).map((q) => [q.name, { redelivered: q.stats ? stats(q).redelivered : null }]),
      ),
    }));
  },
};

export const delayQueueMessageTtl: Check = {
  id: 'delay-queue-per-message-ttl',
  severity: 'warning',
  title: 'a delay queue without a queue TTL: per-message TTLs expire only at the head',
  lab: SEE.delayQueue,
  fix: 'one delay queue per delay with x-message-ttl on the queue (a ladder of tiers), or the broker’s delayed retry on 4.3',
  needs: ['statistics'],
  find: ({ snapshot: s, target: v }) =>
    s.queues.flatMap((q) => {
      const st = stats(q);
      const setting = (q: AuditQueue, key: string) => valueOf(q, key, v);
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
  find: ({ model, target: v }) =>
    model.vhosts.flatMap((g) => {
      const setting = (q: AuditQueue, key: string) => valueOf(q, key, v);
      return g.queues.flatMap((q) => {
        const st = stats(q);
        if (!g.routesInto.has(q.name) || g.ttl.has(q.name) || st.consumers > 0 || st.messages === 0) return [];
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
  find: ({ snapshot: s }) =>
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
  find: ({ snapshot: s }) =>
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
  find: ({ snapshot: s }) =>
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
  find: ({ snapshot: s }) =>
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
  find: ({ snapshot: s }) =>
    (s.channels ?? [])
      .filter((c) => !c.confirm && c.published > 0)
      .map((c) => ({
        vhost: c.vhost,
        object: { kind: 'channel' as const, name: c.name },
        problem: `channel of user '${c.user}' published ${c.published} message(s) without confirms: a message lost on the way is never known`,
        evidence: { published: c.published, user: c.user },
      })),
};

const clusterOnly = ({ snapshot: s }: { snapshot: { nodes: string[] | null } }) =>
  (s.nodes?.length ?? 0) < 2 ? `one node (${s.nodes?.[0] ?? '?'}): nothing to replicate` : null;

export const fewReplicas: Check = {
  id: 'quorum-few-replicas',
  severity: 'warning',
  title: 'quorum queues with fewer replicas than the cluster allows',
  lab: SEE.replicas,
  fix: `grow the queue (rabbitmq-queues grow <node> all, or add_member) to ${REPLICAS} replicas (or every node, on a smaller cluster)`,
  needs: ['statistics', 'cluster'],
  notApplicable: clusterOnly,
  find: ({ snapshot: s }) => {
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
  find: ({ snapshot: s }) => {
    // before 4.0 an ha-mode policy mirrors a classic queue (rabbit_mirror_queue_misc.erl v3.10.8); 4.0 removed it
    const running = parseVersion(s.broker?.version ?? '');
    const mirrors = running !== null && !atLeast(running, '4.0.0');
    return s.queues
      .filter((q) => q.type === 'classic' && q.durable && !q.exclusive && !q.autoDelete)
      .filter((q) => !(mirrors && q.policy?.['ha-mode'] !== undefined))
      .map((q) => ({
        vhost: q.vhost,
        object: queue(q.name),
        problem: `a durable classic queue on a cluster of ${s.nodes!.length} nodes: while its node is down its messages cannot be reached, and a lost disk loses them`,
        evidence: { nodes: s.nodes },
      }));
  },
};
