/**
 * The bench's audit measurement: fill the vhost with generated queues (classic, durable; every tenth
 * dead-letters through an exchange, every twentieth has a TTL, half are bound; two in a hundred hold
 * one message, half of those a dead-lettering one, which the audit finds as a delay queue), for
 * `mqlab audit` to read and check. Run it on a set of your own (MQLAB_HOME + MQLAB_PORT_OFFSET): thousands of queues
 * slow a shared broker's management API for everyone.
 */
import { Broker, closeChannel } from '../src/broker/broker.js';
import { loadConfig } from '../src/core/config.js';

export const AUDIT_NAMESPACE = 'bench_audit';
/** the queues that hold one message: i % 100 = 3 (plain) and 10 (dead-letters, no TTL: a delay queue to the audit) */
export const HOLDS_ONE = (i: number) => i % 100 === 3 || i % 100 === 10;

/** declare `count` queues under bench_audit (idempotent), `parallel` channels at a time; returns how long it took */
export async function fillQueues(count: number, parallel = 8): Promise<number> {
  const t = performance.now();
  const broker = await Broker.connect(loadConfig({}, process.env).amqpUrl);
  try {
    const setup = await broker.newChannel();
    await setup.assertExchange(`${AUDIT_NAMESPACE}.work`, 'direct', { durable: true });
    await setup.assertExchange(`${AUDIT_NAMESPACE}.dead`, 'direct', { durable: true });
    await closeChannel(setup);
    let next = 0;
    const worker = async () => {
      const ch = await broker.newChannel();
      while (next < count) {
        const i = next++;
        const name = `${AUDIT_NAMESPACE}.q${String(i).padStart(5, '0')}`;
        const args: Record<string, unknown> = { 'x-queue-type': 'classic' };
        if (i % 10 === 0)
          Object.assign(args, {
            'x-dead-letter-exchange': `${AUDIT_NAMESPACE}.dead`,
            'x-dead-letter-routing-key': 'dead',
          });
        if (i % 20 === 5) args['x-message-ttl'] = 60_000;
        await ch.assertQueue(name, { durable: true, arguments: args });
        if (i % 2 === 0) await ch.bindQueue(name, `${AUDIT_NAMESPACE}.work`, `k${i}`);
        if (i === 1) await ch.bindQueue(name, `${AUDIT_NAMESPACE}.dead`, 'dead');
        if (HOLDS_ONE(i)) {
          await ch.purgeQueue(name); // one message, however often the bench filled the queue
          ch.sendToQueue(name, Buffer.from('held'), { persistent: true });
          await ch.waitForConfirms();
        }
      }
      await closeChannel(ch);
    };
    await Promise.all(Array.from({ length: parallel }, worker));
  } finally {
    await broker.close();
  }
  return performance.now() - t;
}

/** delete what fillQueues declared (on the broker of MQLAB_* in this environment); returns how many queues went */
export async function dropQueues(count: number, parallel = 8): Promise<number> {
  const broker = await Broker.connect(loadConfig({}, process.env).amqpUrl);
  let next = 0;
  let dropped = 0;
  try {
    const worker = async () => {
      const ch = await broker.newChannel();
      while (next < count) {
        const i = next++;
        await ch.deleteQueue(`${AUDIT_NAMESPACE}.q${String(i).padStart(5, '0')}`);
        dropped++;
      }
      await closeChannel(ch);
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    const ch = await broker.newChannel();
    for (const x of ['work', 'dead']) await ch.deleteExchange(`${AUDIT_NAMESPACE}.${x}`);
    await closeChannel(ch);
  } finally {
    await broker.close();
  }
  return dropped;
}
