/**
 * Checks on what the definitions alone say (queue arguments, effective policies, exchanges,
 * bindings): dead-letter loops and lost letters, at-least-once that is not, retry loops.
 * The broker facts are read in the source (rabbit_quorum_queue.erl, v3.10.8 and v4.3.5) or measured
 * by the lab each check names.
 */
import { deadLetterTarget } from '../broker/dlx-graph.js';
import type { Check } from './finding.js';
import { graphs } from './graph.js';
import { SEE } from './labs.js';
import { setting, versionOf } from './snapshot.js';
import { text } from '../core/text.js';

const queue = (name: string) => ({ kind: 'queue' as const, name });
const keyText = (k: string | null) => (k === null ? "the messages' own routing keys" : `routing key '${k}'`);
const exchangeText = (x: string) => (x === '' ? 'the default exchange' : `exchange '${x}'`);

export const deadLetterLoop: Check = {
  id: 'dead-letter-loop',
  severity: 'error',
  title: 'dead-letter routes that lead back to their own queue with no TTL hop',
  lab: SEE.deadLetterLoop,
  fix: 'route dead letters to a queue outside the loop (a DLQ), or through a delay queue with a message TTL and a bound on attempts',
  needs: [],
  find: (s) =>
    graphs(s).flatMap((g) =>
      g.loops().map((l) => ({
        vhost: g.vhost,
        object: queue(l.queue),
        problem: `a dead letter comes straight back into the queue (${l.path.join(' → ')}) with no delay: a rejected message loops forever`,
        evidence: { path: l.path },
      })),
    ),
};

export const deadLetterExchangeMissing: Check = {
  id: 'dead-letter-exchange-missing',
  severity: 'error',
  title: 'a dead-letter exchange that does not exist',
  lab: SEE.lostLetters,
  fix: 'declare the dead-letter exchange and bind the DLQ to it, or correct dead-letter-exchange in the queue arguments or the policy',
  needs: [],
  find: (s) =>
    graphs(s).flatMap((g) =>
      g.queues.flatMap((q) => {
        const t = deadLetterTarget(g.node(q));
        if (!t || t.exchange === '' || g.exchanges.has(t.exchange)) return [];
        return [
          {
            vhost: g.vhost,
            object: queue(q.name),
            problem: `its dead letters go to exchange '${t.exchange}', which does not exist: they are dropped`,
            evidence: { deadLetterExchange: t.exchange },
          },
        ];
      }),
    ),
};

export const deadLetterUnroutable: Check = {
  id: 'dead-letter-unroutable',
  severity: 'error',
  title: 'a dead-letter exchange with no binding for the routing key the letters carry',
  lab: SEE.lostLetters,
  fix: 'bind a DLQ to the dead-letter exchange with the dead-letter routing key (or set dead-letter-routing-key to one that is bound)',
  needs: [],
  find: (s) =>
    graphs(s).flatMap((g) =>
      g.queues.flatMap((q) => {
        const t = deadLetterTarget(g.node(q));
        if (!t || (t.exchange !== '' && !g.exchanges.has(t.exchange))) return [];
        // an alternate exchange catches what the dead-letter exchange cannot route: not followed, not flagged
        if (t.exchange !== '' && g.exchanges.get(t.exchange)?.arguments['alternate-exchange'] !== undefined) return [];
        if (g.hops(q).length) return [];
        return [
          {
            vhost: g.vhost,
            object: queue(q.name),
            problem: `its dead letters go to ${exchangeText(t.exchange)} with ${keyText(t.key)}, which no binding routes: they are dropped`,
            evidence: { deadLetterExchange: t.exchange, deadLetterRoutingKey: t.key },
          },
        ];
      }),
    ),
};

export const atLeastOnceUnsafe: Check = {
  id: 'at-least-once-fallback',
  severity: 'error',
  title: 'dead-letter-strategy=at-least-once that the broker runs as at-most-once',
  lab: SEE.atLeastOnce,
  fix: 'at-least-once dead lettering needs a quorum queue with a dead-letter exchange and overflow=reject-publish (set them in the same policy)',
  needs: [],
  find: (s) =>
    s.queues.flatMap((q) => {
      if (setting(q, 'dead-letter-strategy') !== 'at-least-once') return [];
      const overflow = setting(q, 'overflow') ?? 'drop-head';
      const dlx = setting(q, 'dead-letter-exchange');
      const why =
        q.type !== 'quorum'
          ? `a ${q.type} queue cannot dead-letter at least once`
          : dlx === undefined || dlx === null
            ? 'it has no dead-letter exchange'
            : overflow !== 'reject-publish'
              ? `its overflow is ${text(overflow)}, not reject-publish`
              : null;
      if (!why) return [];
      return [
        {
          vhost: q.vhost,
          object: queue(q.name),
          problem: `at-least-once dead lettering is silently at-most-once here: ${why} (the broker only logs a warning)`,
          evidence: { type: q.type, overflow, deadLetterExchange: dlx ?? null },
        },
      ];
    }),
};

export const retryLoopUnbounded: Check = {
  id: 'retry-loop-unbounded',
  severity: 'info',
  title: 'a TTL retry loop: the broker bounds nothing, its consumers must count the attempts',
  lab: SEE.retryLoop,
  fix: "count attempts in the consumer (x-death's count for this queue and reason rejected, or a header of your own) and move the message to a DLQ at the bound",
  needs: [],
  find: (s) => {
    const carried = versionOf(s)[0] >= 4;
    return graphs(s).flatMap((g) =>
      g.queues.flatMap((q) => {
        const cycle = g.retryCycle(q);
        if (!cycle) return [];
        const allQuorum = cycle.every((n) => !g.byName.has(n) || g.byName.get(n)!.type === 'quorum');
        const limit = setting(q, 'delivery-limit');
        const worn =
          carried && allQuorum && q.type === 'quorum'
            ? `; on RabbitMQ 4.x a pass dead-lettered by reject(requeue=false) also adds to the delivery count the letter carries (on 4.0–4.2 a nack(requeue=false) too; an expiry adds nothing), so after ${text(limit, '20')} passes like that one requeue or consumer crash dead-letters it as delivery_limit (mqlab retry-loop-limit)`
            : '';
        return [
          {
            vhost: g.vhost,
            object: queue(q.name),
            problem: `dead letters cycle back through a TTL queue (${cycle.join(' → ')}) with no bound in the broker on how often${worn}`,
            evidence: { cycle, deliveryLimit: limit ?? null },
          },
        ];
      }),
    );
  },
};
