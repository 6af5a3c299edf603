/**
 * broker-restart: the RabbitMQ node `mqlab up` started is restarted while the consumer holds a
 * delivery whose effect it committed and whose ack has not reached the broker (held by the proxy);
 * more messages follow the restart. The consumer must come back (reconnect, or exit and be started
 * again) and must not apply the redelivered message twice.
 */
import { deferred, sleep } from '../../core/time.js';
import type { DeliveryInfo } from '../proxy/amqp-proxy.js';
import type { Group } from './group.js';
import { ownControl, ownServicesOnly } from './own-services.js';

export const brokerRestart: Group = {
  name: 'broker-restart',
  title: 'the RabbitMQ node restarted while the consumer holds a committed, unacked delivery',
  exposes: ['stuck', 'duplicated'],
  cannotRun: ownServicesOnly,
  exclusive: () => true,
  async run(s) {
    const control = await ownControl(s.env);
    const k = s.rng.int(1, 2);
    const held = deferred<DeliveryInfo>();
    s.proxy.seams = {
      holdSettleOf: (d) => d.index === k,
      onHeld: (d) => held.resolve(d),
    };
    await s.publishNew(4);
    const d = await Promise.race([held.promise, sleep(s.env.options.settleMs * 5, s.env.signal).then(() => null)]);
    s.facts.heldDelivery = d?.messageId ?? 'none';
    if (d?.messageId) {
      // its effect first (a consumer that commits before it acks has committed by now, or soon)
      const until = Date.now() + s.env.options.settleMs;
      while (Date.now() < until && !((await s.effectsNow())?.get(d.messageId) ?? 0)) await sleep(50, s.env.signal);
    }
    await control.stop('RabbitMQ');
    await control.start('RabbitMQ');
    s.proxy.seams = {};
    await s.env.broker.reconnect();
    await s.publishNew(3);
    s.facts.end = await s.settle();
  },
};
