/**
 * Checks on the dead-letter routes (model.ts): loops, letters dropped (all or some of their keys),
 * retry loops, retries that reach other queues too. One finding per cause: a loop once with all its
 * queues; lost letters once per dead-letter exchange and per place the setting comes from.
 */
import { grouped, type Check, type Draft } from './finding.js';
import { SEE } from './labs.js';
import { text } from '../core/text.js';
import { sourcesOf, type DeadLetter, type VhostModel } from './model.js';
import { ANY } from './routes.js';
import { setting } from './settings.js';
import { atLeast, versionText, type Version } from './target.js';

const queueObject = (name: string) => ({ kind: 'queue' as const, name });
const exchangeText = (x: string) => (x === '' ? 'the default exchange' : `exchange '${x}'`);
const list = (names: readonly string[], max = 5) =>
  names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
/** "argument" or the policy a setting came from: letters of one cause share it */
const origin = (from: string) => (from.startsWith('argument') ? 'argument' : from.replace(/ \(.*$/, ''));

/** a queue whose dead-letter settings come from a policy and which is itself a target of that exchange: the pattern is too wide */
function policyCatchesTarget(m: VhostModel, dl: DeadLetter): string | null {
  if (origin(dl.exchangeFrom) === 'argument') return null;
  const fed = (m.routesInto.get(dl.queue.name) ?? []).some((r) => m.routeFrom.get(r)!.exchange === dl.exchange);
  return fed ? origin(dl.exchangeFrom) : null;
}

export const deadLetterLoop: Check = {
  id: 'dead-letter-loop',
  severity: 'error',
  title: 'dead-letter routes that lead back to their own queue with no TTL hop',
  lab: SEE.deadLetterLoop,
  fix: 'route dead letters to a queue outside the loop (a DLQ), or through a delay queue with a message TTL and a bound on attempts',
  needs: [],
  find: ({ model }) =>
    model.vhosts.flatMap((m) =>
      m.loops.map((l): Draft => {
        const dl = m.deadLetters.get(l.queues[0]!)!;
        const policy = policyCatchesTarget(m, dl);
        return {
          vhost: m.vhost,
          object: queueObject(l.queues[0]!),
          ...(l.queues.length > 1 ? { queues: l.queues } : {}),
          problem: `a dead letter comes straight back (${l.path.join(' → ')}) with no delay: a rejected message loops forever`,
          evidence: { path: l.path, deadLetterExchange: dl.exchange, from: dl.exchangeFrom },
          ...(policy
            ? {
                fix: `${policy} also gives the queues that receive its dead letters a dead-letter exchange: narrow its pattern so it leaves them out (e.g. ^(?!.*\\.dlq$)…), or give them settings of their own`,
              }
            : {}),
        };
      }),
    ),
};

export const deadLetterExchangeMissing: Check = {
  id: 'dead-letter-exchange-missing',
  severity: 'error',
  title: 'a dead-letter exchange that does not exist',
  lab: SEE.lostLetters,
  fix: 'declare the dead-letter exchange and bind the DLQ to it, or correct dead-letter-exchange in the queue arguments or the policy',
  needs: [],
  find: ({ model }) =>
    model.vhosts.flatMap((m) => {
      const missing = [...m.deadLetters.values()].filter((dl) => !m.router.exists(dl.exchange));
      return grouped(missing, (dl) => `${dl.exchange}\u0000${origin(dl.exchangeFrom)}`).map((g): Draft => ({
        vhost: m.vhost,
        object: { kind: 'exchange', name: g[0]!.exchange },
        queues: g.map((dl) => dl.queue.name),
        problem: `${g.length} queue(s) (${list(g.map((dl) => dl.queue.name))}) dead-letter to exchange '${g[0]!.exchange}', which does not exist: their dead letters are dropped`,
        evidence: { deadLetterExchange: g[0]!.exchange, from: g[0]!.exchangeFrom },
      }));
    }),
};

export const deadLetterUnroutable: Check = {
  id: 'dead-letter-unroutable',
  severity: 'error',
  title: 'dead letters (all, or those with some keys) that the dead-letter exchange routes nowhere',
  lab: SEE.lostLetters,
  fix: 'bind a DLQ to the dead-letter exchange for every key the letters carry (or set dead-letter-routing-key to one that is bound, or give the exchange an alternate-exchange)',
  needs: [],
  find: ({ model }) =>
    model.vhosts.flatMap((m) => {
      // letters that may carry any key (through a fanout exchange from publishers) are lost only where nothing takes them
      const losing = (dl: DeadLetter, i: number) => {
        const r = dl.routes[i]!;
        return r.dropped.length > 0 && !r.unknown && !(dl.keys[i] === ANY && r.queues.size > 0);
      };
      const lost = [...m.deadLetters.values()].filter(
        (dl) => m.router.exists(dl.exchange) && dl.routes.some((_, i) => losing(dl, i)),
      );
      return grouped(lost, (dl) => `${dl.exchange}\u0000${origin(dl.exchangeFrom)}`).map((g): Draft => {
        const per = g.map((dl) => {
          const dropped = [...new Set(dl.routes.flatMap((r, i) => (losing(dl, i) ? r.dropped : [])))];
          const routed = dl.routes.some((r) => r.queues.size);
          return { dl, dropped, routed };
        });
        const partly = per.filter((p) => p.routed);
        const sample = per[0]!;
        const x = sample.dl.exchange;
        const keys = (p: (typeof per)[number]) => p.dropped.map((k) => `'${k}'`).join(', ');
        const dropped = per
          .slice(0, 3)
          .map((p) => `${p.dl.queue.name}: ${keys(p)}`)
          .join('; ');
        // the exchange binds nothing at all, one key for every queue, or keys per queue
        const what =
          x !== '' && m.router.bindingCount(x) === 0
            ? `${exchangeText(x)}, which has no binding: all their dead letters are dropped`
            : sample.dl.key !== null && per.every((p) => p.dl.key === sample.dl.key)
              ? `${exchangeText(x)} with routing key '${sample.dl.key}', which no binding routes: their dead letters are dropped`
              : partly.length
                ? `${exchangeText(x)} with the keys that brought messages in, some of which no binding routes (${dropped}${per.length > 3 ? '; …' : ''}): those letters are dropped while the others are routed`
                : `${exchangeText(x)} with the keys that brought messages in, which no binding routes (${dropped}${per.length > 3 ? '; …' : ''}): their dead letters are dropped`;
        const policy = policyCatchesTarget(m, sample.dl);
        return {
          vhost: m.vhost,
          object: { kind: 'exchange', name: sample.dl.exchange },
          queues: g.map((dl) => dl.queue.name),
          problem: `${g.length} queue(s) (${list(g.map((dl) => dl.queue.name))}) dead-letter (from ${origin(sample.dl.exchangeFrom)}) to ${what}`,
          evidence: {
            deadLetterExchange: sample.dl.exchange,
            from: sample.dl.exchangeFrom,
            deadLetterRoutingKey: sample.dl.key,
            dropped: Object.fromEntries(per.map((p) => [p.dl.queue.name, p.dropped])),
            routedElsewhere: Object.fromEntries(
              partly.map((p) => [p.dl.queue.name, [...new Set(p.dl.routes.flatMap((r) => [...r.queues.keys()]))]]),
            ),
          },
          ...(policy
            ? {
                fix: `${policy} also gives the queues that receive its dead letters a dead-letter exchange: narrow its pattern so it leaves them out, or bind their keys`,
              }
            : {}),
        };
      });
    }),
};

export const atLeastOnceUnsafe: Check = {
  id: 'at-least-once-fallback',
  severity: 'error',
  title: 'dead-letter-strategy=at-least-once that the broker runs as at-most-once',
  lab: SEE.atLeastOnce,
  fix: 'at-least-once dead lettering needs a quorum queue with a dead-letter exchange and overflow=reject-publish (set them in the same policy)',
  needs: [],
  find: ({ model, target }) =>
    model.vhosts.flatMap((m) => {
      const bad = m.queues.flatMap((q) => {
        const strategy = settingOf(m, q.name, 'dead-letter-strategy', target);
        if (q.type !== 'quorum' || !strategy || strategy.value !== 'at-least-once') return [];
        const overflow = settingOf(m, q.name, 'overflow', target);
        const dl = m.deadLetters.get(q.name);
        const why = !dl
          ? 'it has no dead-letter exchange: dead lettering is disabled (the broker logs a warning)'
          : (overflow?.value ?? 'drop-head') !== 'reject-publish'
            ? `its overflow is ${text(overflow?.value, 'drop-head')}${overflow ? ` (from ${overflow.from})` : ' (the default)'}, not reject-publish: the broker falls back to at-most-once and logs a warning`
            : null;
        return why ? [{ q, why, strategy, overflow }] : [];
      });
      return grouped(bad, (b) => `${b.why}\u0000${origin(b.strategy.from)}`).map((g): Draft => ({
        vhost: m.vhost,
        object: queueObject(g[0]!.q.name),
        ...(g.length > 1 ? { queues: g.map((b) => b.q.name) } : {}),
        problem: `at-least-once dead lettering (from ${g[0]!.strategy.from}) is not: ${g[0]!.why}`,
        evidence: {
          type: 'quorum',
          strategyFrom: g[0]!.strategy.from,
          overflow: g[0]!.overflow?.value ?? 'drop-head',
          overflowFrom: g[0]!.overflow?.from ?? 'default',
          deadLetterExchange: m.deadLetters.get(g[0]!.q.name)?.exchange ?? null,
        },
      }));
    }),
};

export const retryLoopUnbounded: Check = {
  id: 'retry-loop-unbounded',
  severity: 'info',
  title: 'a TTL retry loop: the broker bounds nothing, its consumers must count the attempts',
  lab: SEE.retryLoop,
  fix: "count attempts in the consumer (x-death's count for this queue and reason rejected, or a header of your own) and move the message to a DLQ at the bound",
  needs: [],
  // one finding per shape of loop (the exchanges it passes): 500 services built alike are one design
  find: ({ model, target }) =>
    model.vhosts.flatMap((m) =>
      grouped(m.retries, (c) => c.path.filter((_, i) => i % 2 === 1).join('\u0000')).map((g): Draft => {
        const c = g[0]!;
        const work = g.flatMap((c) => c.queues.filter((n) => !m.ttl.has(n)));
        const q = m.byName.get(work[0]!)!;
        const allQuorum = g.every((c) => c.queues.every((n) => m.byName.get(n)?.type === 'quorum'));
        const limit = settingOf(m, q.name, 'delivery-limit', target);
        // 4.3.0: the delivery count a dead-lettered copy carries is the one the next queue's limit reads
        const worn =
          atLeast(target, '4.3.0') && allQuorum
            ? `; on RabbitMQ 4.3 (from 4.3.0), with quorum queues all round, a pass dead-lettered by reject(requeue=false) also adds to the delivery count the letter carries, so after ${text(limit?.value, '20')} such passes one requeue or consumer crash dead-letters it as delivery_limit (mqlab retry-loop-limit; on 4.0–4.2 the carried count is not the one the limit reads)`
            : '';
        const more = g.length > 1 ? ` (and ${g.length - 1} more loop(s) through the same exchanges)` : '';
        return {
          vhost: m.vhost,
          object: queueObject(q.name),
          ...(work.length > 1 ? { queues: work } : {}),
          problem: `dead letters cycle back through a TTL queue (${c.path.join(' → ')})${more} with no bound in the broker on how often${worn}`,
          evidence: {
            cycle: c.path,
            loops: g.length,
            deliveryLimit: limit?.value ?? null,
            target: versionText(target),
          },
        };
      }),
    ),
};

export const retryFanout: Check = {
  id: 'dead-letter-retry-fanout',
  severity: 'warning',
  title: 'a TTL retry queue whose letters also reach queues other than the one they retry',
  lab: SEE.retryLoop,
  fix: "route each retry back to its own queue only: give the delay queue x-dead-letter-routing-key (the work queue's name through the default exchange), or a dead-letter exchange of its own",
  needs: [],
  find: ({ model }) =>
    model.vhosts.flatMap((m) =>
      [...m.ttl].flatMap((t): Draft[] => {
        const delay = m.deadLetters.get(t);
        if (!delay) return [];
        const extra = new Map<string, string[]>();
        for (const source of sourcesOf(m, t)) {
          const from = m.deadLetters.get(source)!;
          const keys = delay.key !== null ? delay.keys : from.keys.filter((_, i) => from.routes[i]!.queues.has(t));
          const reached = new Set(keys.flatMap((k) => [...m.router.route(delay.exchange, k).queues.keys()]));
          if (!reached.has(source)) continue; // not a retry of this queue: the delay forwards
          const others = [...reached].filter((n) => n !== source && n !== t);
          if (others.length) extra.set(source, others);
        }
        if (!extra.size) return [];
        const [first, others] = [...extra][0]!;
        return [
          {
            vhost: m.vhost,
            object: queueObject(t),
            queues: [...new Set([...extra.values()].flat())],
            problem: `retries of ${list([...extra.keys()])} come back through ${exchangeText(delay.exchange)}, which also delivers every retry to ${list(others)}: each failure there is a new message in another consumer's queue (${first} → ${t} → ${others[0]})`,
            evidence: {
              retried: Object.fromEntries(extra),
              deadLetterExchange: delay.exchange,
              from: delay.exchangeFrom,
            },
          },
        ];
      }),
    ),
};

const settingOf = (m: VhostModel, queue: string, key: string, v: Version) => setting(m.byName.get(queue)!, key, v);
