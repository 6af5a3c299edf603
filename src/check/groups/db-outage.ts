/**
 * db-outage: the consumer is frozen as a delivery reaches it, the PostgreSQL `mqlab up` started is
 * stopped, and the consumer thawed: it must fail that message's transaction without acking it, and
 * take it again once the database is back. More messages follow.
 */
import { deferred, sleep } from '../../core/time.js';
import type { Group } from './group.js';
import { ownControl, ownServicesOnly } from './own-services.js';

export const dbOutage: Group = {
  name: 'db-outage',
  title: 'PostgreSQL stopped while the consumer holds a delivery before its commit',
  exposes: ['lost', 'stuck'],
  cannotRun: ownServicesOnly,
  exclusive: () => true,
  async run(s) {
    const control = await ownControl(s.env);
    const k = s.rng.int(1, 2);
    const frozen = deferred<string | undefined>();
    const answered = deferred<string>();
    let target: string | undefined;
    s.proxy.seams = {
      onDeliver(d) {
        if (d.index !== k) return;
        s.consumer.freeze();
        target = d.messageId;
        frozen.resolve(d.messageId);
      },
      onSettled(d, how) {
        if (d.messageId === target) answered.resolve(how);
      },
    };
    await s.publishNew(4);
    const id = await Promise.race([frozen.promise, sleep(s.env.options.settleMs * 5, s.env.signal).then(() => null)]);
    s.facts.heldDelivery = id ?? 'none';
    await control.stop('PostgreSQL');
    const exits = s.consumer.exits.length;
    s.consumer.thaw();
    // what it does with the held delivery while the database is gone: settles it, exits, or neither
    const until = Date.now() + s.env.options.settleMs;
    while (Date.now() < until && s.consumer.exits.length === exits) {
      const how = await Promise.race([answered.promise, sleep(50, s.env.signal).then(() => null)]);
      if (how) break;
    }
    s.facts.duringOutage =
      s.consumer.exits.length > exits ? 'exited' : await Promise.race([answered.promise, Promise.resolve('nothing')]);
    await control.start('PostgreSQL');
    s.proxy.seams = {};
    await s.publishNew(2);
    s.facts.end = await s.settle();
  },
};
