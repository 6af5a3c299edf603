/**
 * TEST ONLY: retry-ladder's broken variants (declared in meta.ts; MQLAB_FAULT=retry-ladder:<name>,
 * src/lab/fault.ts), loaded only when a run asks for one: a replaced step of the consumer lab.ts runs
 * (`LadderSteps`), or the broker handle decorated. lab.ts reads as the correct ladder.
 */
import { decorate, onConsume, type VariantsOf } from '../../src/kit/index.js';
import type { meta } from './meta.js';
import type { LadderSteps } from './lab.js';
import { tiers } from './backoff.js';
import { EXHAUSTED_KEY, WORK_KEY, names, tierKey } from './names.js';

export const variants: VariantsOf<typeof meta, LadderSteps> = {
  // a consumer blind to the deadline
  'ignore-deadline': () => ({ deadlineOf: () => Infinity }),
  // the effect is written before the call's outcome is known
  'write-before-call': (s, ctx) => ({
    call: async (id, attempt) => {
      const effect = names(ctx.names).effect;
      await ctx.db`INSERT INTO ${ctx.db(effect)} (event_id, attempt) VALUES (${id}, ${attempt}) ON CONFLICT DO NOTHING`;
      return s.call(id, attempt);
    },
  }),
  // park `parked` at its first failure, whatever its deadline still covers
  'park-early': () => ({
    decide: (d, id) =>
      id === 'parked' && d.action === 'retry'
        ? { action: 'park', reason: 'deadline', remainingMs: NaN, neededMs: NaN }
        : d,
  }),
  'double-increment': () => ({ nextAttempt: (d) => d.nextAttempt + 1 }),
  'skip-delay': (_, ctx) => ({ retryRoute: () => [names(ctx.names).business, WORK_KEY] }),
  // the application copies it to the DLQ itself, so the broker writes no x-death
  'self-dead-letter': (_, ctx) => ({
    exhaust: async (m, headers) => {
      await ctx.broker.publishConfirmed(names(ctx.names).dead, EXHAUSTED_KEY, m.body, {
        messageId: m.messageId,
        headers,
      });
      m.ack();
    },
  }),
  'park-twice': () => ({
    publishParked: async (publish) => {
      await publish();
      await publish();
    },
  }),
  // a handler still running after shutdown schedules one more retry of `exhausted` (with this run's header)
  'late-retry': {
    broker: (broker, ctx) => {
      const name = names(ctx.names);
      let run: unknown;
      const remembering = decorate(broker, {
        publishConfirmed: (exchange, key, body, props) => {
          run ??= (props?.headers as Record<string, unknown> | undefined)?.run;
          return broker.publishConfirmed(exchange, key, body, props);
        },
      });
      return onConsume(remembering, name.work, {
        cancel: async (cancel) => {
          await cancel();
          await broker.publishConfirmed(name.retry, tierKey(tiers(ctx.options).at(-1)!), '{"eventId":"exhausted"}', {
            messageId: 'exhausted',
            headers: { run, attempt: ctx.options.maxAttempts },
          });
        },
      });
    },
  },
};
