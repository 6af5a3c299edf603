/**
 * crash-loop's consumer process (spawned by lab.ts with src/kit/child/child.ts runChild): it consumes one
 * queue (manual ack, prefetch 1) and the poison pill kills it: on its first delivery it prints what
 * the broker sent (x-delivery-count, x-acquired-count, redelivered) and SIGKILLs itself, so the ack
 * never leaves and the broker sees the connection die with the message unacked.
 *
 *   --queue Q          the queue to consume
 *   --publish ID       once consuming, publish message ID to the queue itself (confirmed): the
 *                      message arrives while this process is the queue's highest-priority consumer
 *   --timeout-ms MS    exit 3 when nothing came by then (the parent normally stops it first)
 */
import { parseArgs } from 'node:util';
import { childRuntime } from '../../src/kit/child/runtime.js';
import { deferred } from '../../src/kit/index.js';
import type { CrashLoopNames } from './names.js';
import type { PoisonSteps } from './poison-consumer-steps.js';
import type { Fault } from './meta.js';

const { values } = parseArgs({
  options: {
    queue: { type: 'string' },
    publish: { type: 'string' },
    'timeout-ms': { type: 'string', default: '20000' },
  },
});
const queue = String(values.queue);
const rt = await childRuntime<CrashLoopNames, Fault>();
const flushed = () => new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
const idle = deferred();
// how the consumer fails on the poison message, as taught: it dies
const steps = await rt.steps<PoisonSteps>(
  {
    fail: async (m) => {
      rt.emit('consumer', { messageId: m.messageId, queue, status: 'crash_injected' });
      await flushed(); // the lines above reach the parent
      process.kill(process.pid, 'SIGKILL');
    },
  },
  async () => (await import('./variants.js')).poisonConsumer,
);

await rt.broker.consume(
  queue,
  async (m) => {
    const h = m.headers;
    rt.emit('consumer', {
      messageId: m.messageId,
      queue,
      deliveryCount: 'x-delivery-count' in h ? h['x-delivery-count'] : 'absent',
      acquiredCount: 'x-acquired-count' in h ? h['x-acquired-count'] : 'absent',
      redelivered: m.redelivered,
      at: Date.now(),
      status: 'received',
    });
    await steps.fail(m);
  },
  { prefetch: 1 },
);
rt.emit('consumer', { queue, at: Date.now(), status: 'consuming' });
if (values.publish) await rt.broker.sendConfirmed(queue, values.publish, { messageId: values.publish });
const timer = setTimeout(() => idle.resolve(), Number(values['timeout-ms']));
await idle.promise;
clearTimeout(timer);
rt.emit('consumer', { queue, status: 'idle' });
await rt.close();
process.exitCode = 3;
