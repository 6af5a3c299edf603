/**
 * The outbox relay process, spawned by lab.ts with runChild: for each unsent outbox row, oldest first,
 * publish it with a confirm, then mark it sent.
 *
 *   --crash-after-confirm K  SIGKILL itself after the Kth confirm, before marking that row sent
 *
 * Each publish carries `publishId` = <this relay's process>/<its publish number> (a header, beside the
 * event id the consumer dedupes on), so a copy published again can be told from the first one where it
 * is received (the bench draws one token per copy). Nothing decides on it.
 */
import { parseArgs } from 'node:util';
import { childRuntime } from '../../src/kit/child/runtime.js';
import type { OutboxNames } from './names.js';
import type { RelaySteps } from './relay-steps.js';
import type { Fault } from './meta.js';

const { values } = parseArgs({ options: { 'crash-after-confirm': { type: 'string', default: '0' } } });
const rt = await childRuntime<OutboxNames, Fault>();
const name = rt.names;
// the relay's steps, as taught
const steps = await rt.steps<RelaySteps>(
  {
    crashAfter: Number(values['crash-after-confirm']),
    relayRow: async (publish, between, mark) => {
      await publish();
      await between(); // confirmed by the broker, not yet marked sent
      await mark();
    },
  },
  async () => (await import('./variants.js')).relay,
);
const unsent = await rt.db<
  { id: string; event_id: string; order_id: string; payload: string }[]
>`SELECT id, event_id, order_id, payload FROM ${rt.db(name.outbox)} WHERE sent_at IS NULL ORDER BY id`;
rt.emit('relay', { unsent: unsent.length, status: 'started' });
let confirms = 0;
let publishes = 0;

const crash = async (fields: Record<string, unknown>) => {
  rt.emit('relay', { ...fields, status: 'crash_injected' });
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.kill(process.pid, 'SIGKILL');
};
const publish = async (row: (typeof unsent)[number]) => {
  const publishId = `${rt.process}/${++publishes}`;
  await rt.broker.sendConfirmed(name.queue, String(row.payload), {
    messageId: String(row.event_id),
    headers: { eventId: row.event_id, orderId: row.order_id, publishId },
  });
  rt.emit('relay', {
    eventId: row.event_id,
    orderId: row.order_id,
    publishId,
    destination: name.queue,
    status: 'confirmed',
  });
};
const mark = async (row: (typeof unsent)[number]) => {
  await rt.db`UPDATE ${rt.db(name.outbox)} SET sent_at = now() WHERE id = ${row.id}`;
  rt.emit('relay', { eventId: row.event_id, orderId: row.order_id, status: 'marked_sent' });
};

for (const row of unsent) {
  const fields = { eventId: row.event_id, orderId: row.order_id };
  await steps.relayRow(
    () => publish(row),
    async () => {
      if (++confirms === steps.crashAfter) await crash(fields);
    },
    () => mark(row),
  );
}
rt.emit('relay', { relayed: unsent.length, status: 'done' });
await rt.close();
