/**
 * crash: SIGKILL of the consumer at chosen points of the protocol, each as the seed picks it — as a
 * delivery reaches it; after its ack left it but before the broker saw it (the effect committed,
 * the ack lost: the redelivery must be deduplicated); after the broker saw its ack while its database
 * traffic is held (the commit never lands: a consumer that acks first loses the message); and a few
 * ms after a delivery. The supervisor starts it again after each kill; then every message must have
 * exactly one effect.
 */
import { deferred } from '../../core/time.js';
import type { DeliveryInfo } from '../proxy/amqp-proxy.js';
import type { Scenario } from '../scenario.js';
import type { Group } from './group.js';

const MESSAGES = 16;

const MOMENTS = ['on-delivery', 'after-ack-sent', 'after-ack-before-commit', 'after-delay'] as const;
type MomentKind = (typeof MOMENTS)[number];

interface Moment {
  kind: MomentKind;
  /** the k-th delivery after the consumer (re)started */
  k: number;
  /** after-delay: ms after that delivery */
  delayMs: number;
}

/** the kill moments of a seed: each kind once, in the seed's order, each at the seed's delivery */
function plan(s: Pick<Scenario, 'rng'>): Moment[] {
  return s.rng.shuffle(MOMENTS).map((kind) => ({
    kind,
    k: s.rng.int(1, 3),
    delayMs: kind === 'after-delay' ? s.rng.int(1, 20) : 0,
  }));
}

export const crash: Group = {
  name: 'crash',
  title: 'SIGKILL of the consumer at chosen moments, between its effect and its ack among them',
  exposes: ['lost', 'duplicated'],
  async run(s) {
    await s.publishNew(MESSAGES);
    const done: Record<string, unknown>[] = [];
    for (const m of plan(s)) {
      const exits = s.consumer.exits.length;
      const moment = await killAt(s, m);
      done.push(moment);
      if (!moment.killed) break; // every message settled before this moment came
      await s.consumer.exitedTimes(exits + 1, s.env.signal);
      await new Promise((r) => setImmediate(r)); // the dropped connections' close events
      await s.consuming();
    }
    s.proxy.seams = {};
    s.facts.moments = done;
    s.facts.kills = done.filter((d) => d.killed).length;
    s.facts.end = await s.settle();
  },
};

/** arm one moment and wait until it killed the consumer (or every message was settled before it came) */
async function killAt(s: Scenario, m: Moment): Promise<Record<string, unknown>> {
  const target = s.proxy.deliveries + m.k;
  const fired = deferred<Record<string, unknown>>();
  const bound = Math.min(1000, s.env.options.settleMs / 2);
  let armed: DeliveryInfo | null = null;
  let timer: NodeJS.Timeout | undefined;
  const kill = (d: DeliveryInfo, what: string) => {
    clearTimeout(timer);
    s.killNow();
    fired.resolve({ ...m, delivery: d.index, messageId: d.messageId, killed: what });
  };
  s.proxy.seams = {
    onDeliver(d) {
      if (d.index !== target) return;
      armed = d;
      if (m.kind === 'on-delivery') kill(d, 'as the delivery reached it');
      else if (m.kind === 'after-delay')
        timer = setTimeout(() => kill(d, `${m.delayMs} ms after the delivery`), m.delayMs);
      else if (m.kind === 'after-ack-before-commit') {
        // from here on nothing it sends the database arrives; the bound runs from its first write there
        // (it then waits on the database: an ack sent before that write is already on its way), not from
        // the delivery — a consumer on a loaded machine took longer than the bound to get that far
        const giveUp = () => kill(d, `no ack within ${bound} ms of its first write to the held database`);
        if (s.pg) {
          s.pg.stall();
          s.pg.onHeldClientData = () => (timer ??= setTimeout(giveUp, bound));
        } else timer = setTimeout(giveUp, bound);
      }
    },
    holdSettleOf: (d) => m.kind === 'after-ack-sent' && d === armed,
    onHeld: (d, how) => kill(d, `its ${how} sent, not delivered to the broker`),
    onSettled(d, how) {
      if (m.kind === 'after-ack-before-commit' && d === armed)
        kill(d, `its ${how} delivered to the broker, its database held`);
    },
  };
  const stop = new AbortController();
  const first = await Promise.race([fired.promise, s.settle(stop.signal).then((end) => ({ ...m, killed: null, end }))]);
  stop.abort();
  clearTimeout(timer);
  if (s.pg) s.pg.onHeldClientData = null;
  s.proxy.seams = {};
  return first;
}
