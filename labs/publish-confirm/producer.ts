/**
 * The producer process of publish-confirm (d), spawned by lab.ts with runChild.
 *
 *   --attempt N              the publish attempt number, sent as the publishAttempt header
 *   --die-before-confirm     stop reading frames from the broker, hand the publish to the socket,
 *                            then SIGKILL itself: the broker's confirm may be on its way, but the
 *                            producer never reads it (a confirm lost on the way back),
 *                            so the result is unknown to the producer
 *
 * Test only (MQLAB_FAULT): publish-confirm:wait-for-confirm makes --die-before-confirm wait for the
 * confirm and exit 0 instead (the result is known: the crash window is missed).
 */
import { parseArgs } from 'node:util';
import type { Socket } from 'node:net';
import { childRuntime } from '../../src/kit/child/runtime.js';
import { EVENT_ID, type ConfirmNames } from './names.js';
import type { ProducerSteps } from './producer-steps.js';
import type { Fault } from './meta.js';

const { values } = parseArgs({
  options: { attempt: { type: 'string', default: '1' }, 'die-before-confirm': { type: 'boolean', default: false } },
});
const attempt = Number(values.attempt);
const rt = await childRuntime<ConfirmNames, Fault>();
const name = rt.names;
const fields = { eventId: EVENT_ID, publishAttempt: attempt, destination: name.events };
const props = { messageId: EVENT_ID, persistent: true, headers: { eventId: EVENT_ID, publishAttempt: attempt } };

// how the producer ends, as taught
const steps = await rt.steps<ProducerSteps>(
  { diesBeforeConfirm: values['die-before-confirm'] },
  async () => (await import('./variants.js')).producer,
);
if (steps.diesBeforeConfirm) {
  const socket = (rt.broker.connection.connection as unknown as { stream: Socket }).stream;
  // amqplib reads frames on 'readable': without its listener no confirm frame reaches the channel
  socket.removeAllListeners('readable');
  rt.emit('producer', { ...fields, status: 'publishing' });
  rt.broker.channel.publish('', name.events, Buffer.from(EVENT_ID), props, (err) =>
    rt.emit('producer', { ...fields, status: err ? 'nacked' : 'confirmed' }),
  );
  await flushed(socket);
  rt.emit('producer', { ...fields, status: 'killed_before_confirm' });
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.kill(process.pid, 'SIGKILL');
}

await rt.broker.publishConfirmed('', name.events, EVENT_ID, props);
rt.emit('producer', { ...fields, status: 'confirmed' });
await rt.close();

/** the publish frames have left the client: amqplib's muxer ran and the socket's buffer is written */
async function flushed(socket: Socket) {
  for (let i = 0; i < 3 || socket.writableLength > 0; i++) await new Promise((r) => setImmediate(r));
  await new Promise<void>((resolve) => socket.write(Buffer.alloc(0), () => resolve()));
}
