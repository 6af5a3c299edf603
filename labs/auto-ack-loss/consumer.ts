/**
 * The consumer process of auto-ack-loss, spawned by lab.ts with runChild.
 *
 *   --phase auto|manual|forget  auto: noAck=true (the broker forgets each message as it sends it);
 *                               manual: a row is committed, then the message acked;
 *                               forget: manual ack mode, but never acks
 *   --prefetch N                basic.qos (ignored by the broker for a noAck consumer)
 *   --crash-after K             SIGKILL itself after the Kth committed row (0: never)
 *   --expect N                  exit 0 after N messages were settled (manual)
 *   --work-ms MS                the business work per message (default WORK_MS, 20)
 *   --idle-file PATH            forget: once no delivery came for IDLE_MS (300), write the number received here
 *   --release-file PATH         forget: hold the channel open until this file exists, then close it
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { childRuntime } from '../../src/kit/child/runtime.js';
import { deferred, sleep } from '../../src/kit/index.js';
import { IDLE_MS, WORK_MS, queueOf, type AckNames, type Phase } from './names.js';
import type { ConsumerSettings } from './consumer-steps.js';
import type { Fault } from './meta.js';

const rt = await childRuntime<AckNames, Fault>();
// rt.args: as started, then what the lab added when it told this process to start (--expect)
const { values } = parseArgs({
  args: rt.args,
  options: {
    phase: { type: 'string', default: 'manual' },
    prefetch: { type: 'string', default: '10' },
    'crash-after': { type: 'string', default: '0' },
    expect: { type: 'string', default: '0' },
    'work-ms': { type: 'string', default: String(WORK_MS) },
    'release-file': { type: 'string', default: '' },
    'idle-file': { type: 'string', default: '' },
    'timeout-ms': { type: 'string', default: '20000' },
  },
});
const phase = values.phase as Phase;
const name = rt.names;
const queue = queueOf(name, phase);
const expect = Number(values.expect);
// how this phase consumes, as taught
const { crashAfter, noAck, acks } = await rt.steps<ConsumerSettings>(
  {
    crashAfter: Number(values['crash-after']),
    noAck: phase === 'auto',
    acks: phase !== 'forget',
  },
  async () => (await import('./variants.js')).consumer,
);

const ch = await rt.broker.connection.createChannel();
await ch.prefetch(Number(values.prefetch));
let received = 0;
let commits = 0;
let settled = 0;
let chain = Promise.resolve();
let lastDeliveryAt = 0;
const done = deferred();
const fields = { phase, destination: queue, noAck };

await ch.consume(
  queue,
  (msg) => {
    if (!msg) return done.reject(new Error('consumer cancelled by the broker'));
    received += 1;
    lastDeliveryAt = Date.now();
    const messageId = msg.properties.messageId as string | undefined;
    rt.emit('consumer', { ...fields, messageId, redelivered: msg.fields.redelivered, received, status: 'received' });
    chain = chain.then(async () => {
      if (phase === 'forget') {
        if (acks) ch.ack(msg);
        rt.emit('consumer', { ...fields, messageId, status: acks ? 'acked' : 'not_acked' });
        return;
      }
      await sleep(Number(values['work-ms']));
      await rt.db`INSERT INTO ${rt.db(name.rows)} (phase, message_id, process) VALUES (${phase}, ${messageId ?? ''}, ${rt.process}) ON CONFLICT DO NOTHING`;
      commits += 1;
      if (!noAck) ch.ack(msg);
      settled += 1;
      rt.emit('consumer', { ...fields, messageId, commits, status: noAck ? 'committed' : 'committed_acked' });
      if (crashAfter > 0 && commits === crashAfter) {
        rt.emit('consumer', { ...fields, received, commits, status: 'crash_injected' });
        await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
        process.kill(process.pid, 'SIGKILL');
      }
      if (expect > 0 && settled >= expect) done.resolve();
    });
  },
  { noAck },
);

if (phase === 'forget') {
  let idle = false;
  while (!fs.existsSync(values['release-file'] ?? '')) {
    if (!idle && lastDeliveryAt > 0 && Date.now() - lastDeliveryAt >= IDLE_MS) {
      idle = true;
      fs.writeFileSync(values['idle-file'] ?? '', String(received));
      rt.emit('consumer', { ...fields, received, status: 'idle' });
    }
    await sleep(50);
  }
  rt.emit('consumer', { ...fields, received, status: 'closing_channel' });
  await ch.close();
  done.resolve();
}
const timer = setTimeout(() => done.reject(new Error('timeout')), Number(values['timeout-ms']));
const outcome = await done.promise.then(
  () => 'done',
  (e: Error) => e.message,
);
clearTimeout(timer);
rt.emit('consumer', {
  ...fields,
  received,
  commits,
  status: outcome === 'done' ? 'done' : 'failed',
  reason: outcome === 'done' ? undefined : outcome,
});
await ch.close().catch(() => {});
await rt.close();
process.exitCode = outcome === 'done' ? 0 : 3;
