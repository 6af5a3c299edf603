/**
 * consumer-timeout: the consumer is frozen (SIGSTOP) as the first delivery reaches it and held past
 * the work queue's consumer timeout, then thawed; more messages follow. What the broker does is the
 * line's (Capabilities.consumerTimeoutCancels): 4.3 returns the delivery uncounted and sends
 * basic.cancel, older lines close the channel with 406. Either way the consumer must notice — exit or
 * consume again — and must not apply the redelivered message twice.
 *
 * 3.10 has no per-queue timeout: on the services `mqlab up` started the group sets the broker-wide
 * consumer_timeout for its run (the set held alone) and sets it back; below 4.3 it also shortens the
 * channel tick that checks it (60 s by default) there.
 */
import { sleep } from '../../core/time.js';
import type { Group } from './group.js';
import { ownServicesOnly } from './own-services.js';

/** the channel's check every this often, on services of mqlab's own, below 4.3 (default 60 s) */
const TICK_MS = 200;
const DEFAULT_TICK_MS = 60_000;

export const consumerTimeout: Group = {
  name: 'consumer-timeout',
  title: 'a delivery held (the consumer frozen) past the consumer timeout, then more messages',
  exposes: ['stuck', 'duplicated'],
  async cannotRun(env) {
    if (env.caps.consumerTimeoutPerQueue) return null;
    const own = await ownServicesOnly(env);
    return (
      own && `RabbitMQ ${env.caps.version} has only the broker-wide consumer_timeout (per queue from 3.12.0): ${own}`
    );
  },
  exclusive: (env) => !env.caps.consumerTimeoutPerQueue,
  queueArgs: (env) => (env.caps.consumerTimeoutPerQueue ? { 'x-consumer-timeout': env.options.consumerTimeoutMs } : {}),
  async before(env) {
    if (env.caps.consumerTimeoutCancels || (await ownServicesOnly(env))) return undefined;
    const { setRabbitEnv } = await import('../../services/broker-env.js');
    const values = {
      channel_tick_interval: TICK_MS,
      ...(env.caps.consumerTimeoutPerQueue ? {} : { consumer_timeout: env.options.consumerTimeoutMs }),
    };
    const old = await setRabbitEnv(env.config, values);
    return async () => void (await setRabbitEnv(env.config, old));
  },
  async run(s) {
    const { options, caps } = s.env;
    let frozenAt = 0;
    s.proxy.seams = {
      onDeliver(d) {
        if (d.index !== 1) return;
        s.consumer.freeze(); // before the delivery reaches it: it holds it, unacked
        frozenAt = Date.now();
      },
    };
    await s.publishNew(1);
    // 4.3: the queue's own timer; below, the channel's tick (ours, or 60 s on a broker of another's)
    const bound = options.consumerTimeoutMs + (caps.consumerTimeoutCancels ? 0 : DEFAULT_TICK_MS) + 5000;
    const t0 = Date.now();
    while ((frozenAt === 0 || s.proxy.serverActions.length === 0) && Date.now() - t0 < bound)
      await sleep(20, s.env.signal);
    s.proxy.seams = {};
    const action = s.proxy.serverActions[0];
    s.facts.brokerAction = action?.action.split(' ').slice(0, 2).join(' ') ?? 'none';
    s.facts.expected = caps.consumerTimeoutCancels ? 'basic.cancel' : 'channel.close 406';
    s.facts.heldMs = action && frozenAt ? action.at - frozenAt : null;
    s.consumer.thaw();
    await s.publishNew(2);
    s.facts.end = await s.settle();
  },
};
