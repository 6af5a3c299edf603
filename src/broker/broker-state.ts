/**
 * The broker's state of a lab's queues and exchanges at a pause, read from the broker itself: each
 * queue's ready, unacked and held from one answer of its own counters and its record (the policy in
 * force), and the bindings from the lab's exchanges as the broker lists them — not the topology the
 * lab declared (a lab that unbinds a queue shows it unbound). Measured on RabbitMQ 4.3.6 at hold's
 * `letter-held`: the queue's own counters (Management.queueNow) said messages 1, ready 0, unacked 0
 * and policy `me12-hold` at once, while the statistics still showed no policy; /api/bindings no
 * longer listed the removed hold.dlx → hold.target binding.
 *
 * A quorum queue writes its counters on its tick (1 s on mqlab's services): they may be a tick
 * behind, and two queues' a tick apart — a message moving between them in that tick would be
 * counted in both or in neither. So each reading is checked against ready now (passive
 * queue.declare, exact at once): a queue whose counters say another ready is behind, and shows
 * ready only. `settled` reads again a tick later until two current readings agree (nothing moved in
 * between), within a bound — what a paused run (--step) can afford; `once` is one checked reading,
 * while the run goes on; `ready-only` counts ready now only, for a message on a timed hop that
 * leaves before a tick could show it.
 */
import type { Broker } from './broker.js';
import type { Management, QueueStats } from './management.js';
import { heldOf, type BindingAt, type BrokerAtCheckpoint, type QueueCounts } from '../core/checkpoint-view.js';

type Reading = 'settled' | 'once' | 'ready-only';

export interface LabObjects {
  queues: readonly string[];
  exchanges: readonly string[];
}

/** a quorum queue's tick on mqlab's services (1 s) and a margin: two readings this far apart see a new tick */
export const TICK_MS = 1100;
/** beyond a default broker's 5 s tick */
export const SETTLE_BOUND_MS = 8000;

interface Wait {
  sleep(ms: number): Promise<void>;
  now(): number;
}
const realTime: Wait = { sleep: (ms) => new Promise((r) => setTimeout(r, ms)), now: () => Date.now() };

/** the lab's counts, bindings and policies at a pause, read as `reading` says */
export async function brokerAtPause(
  broker: Broker,
  mgmt: Management,
  lab: LabObjects,
  reading: Reading,
  wait: Wait = realTime,
): Promise<{ queues: QueueCounts[]; broker: BrokerAtCheckpoint }> {
  if (reading === 'ready-only') {
    const [ready, rest] = await Promise.all([readyNow(broker, lab), readOnce(mgmt, lab)]);
    return {
      queues: lab.queues.map((queue, i) => ({ queue, ready: ready[i] ?? null, unacked: null, held: null })),
      broker: { ...rest.broker, reading: 'ready-only' },
    };
  }
  let last = await readChecked(broker, mgmt, lab);
  if (reading === 'once') return last.state;
  const end = wait.now() + SETTLE_BOUND_MS;
  while (wait.now() + TICK_MS <= end) {
    await wait.sleep(TICK_MS);
    const next = await readChecked(broker, mgmt, lab);
    if (next.current && last.current && sameState(last.state, next.state))
      return { ...next.state, broker: { ...next.state.broker, reading: 'settled' } };
    last = next;
  }
  return { ...last.state, broker: { ...last.state.broker, reading: 'changing' } };
}

/** ready now, by passive queue.declare (exact at once); null where the queue is not there */
const readyNow = (broker: Broker, lab: LabObjects) =>
  Promise.all(lab.queues.map((q) => broker.depth(q).catch(() => null)));

/**
 * one reading of the counters, checked against ready now: a queue whose counters' ready is not the
 * declare's has counters a tick behind — its ready is the declare's, its unacked and held unknown
 * (`current` false), never a number of another moment
 */
async function readChecked(broker: Broker, mgmt: Management, lab: LabObjects) {
  const [ready, state] = await Promise.all([readyNow(broker, lab), readOnce(mgmt, lab)]);
  let current = true;
  const queues = state.queues.map((q, i) => {
    if (q.ready === ready[i]) return q;
    current = false;
    return { queue: q.queue, ready: ready[i] ?? null, unacked: null, held: null };
  });
  return { state: { ...state, queues }, current };
}

/** one reading: each queue's record and counters, and the bindings from each of the lab's exchanges */
export async function readOnce(
  mgmt: Management,
  lab: LabObjects,
): Promise<{ queues: QueueCounts[]; broker: BrokerAtCheckpoint }> {
  const [stats, bindings] = await Promise.all([
    Promise.all(lab.queues.map((q) => mgmt.queueNowWithPolicy(q).catch(() => undefined))),
    Promise.all(lab.exchanges.map((x) => mgmt.exchangeBindings(x)))
      .then((all) =>
        all
          .flat()
          .map(bindingOf)
          .filter((b): b is BindingAt => b !== null),
      )
      .catch(() => null),
  ]);
  return {
    queues: lab.queues.map((queue, i) => countsOf(queue, stats[i])),
    broker: {
      at: new Date().toISOString(),
      reading: 'once',
      bindings,
      policies: stats.map((s) =>
        s === undefined
          ? null
          : s === null
            ? { name: null, definition: {} }
            : { name: s.policy, definition: s.policyDefinition ?? {} },
      ),
    },
  };
}

/** undefined: the API did not answer (every count unknown); null: no such queue (ready null too) */
function countsOf(queue: string, s: QueueStats | null | undefined): QueueCounts {
  if (!s) return { queue, ready: null, unacked: null, held: null };
  return { queue, ready: s.ready, unacked: s.unacked, held: heldOf(s) };
}

function bindingOf(b: { source: string; destination: string; destination_type: string; routing_key: string }) {
  return b.destination_type === 'queue' ? { exchange: b.source, queue: b.destination, key: b.routing_key } : null;
}

const key = (b: BindingAt) => `${b.exchange}\u0000${b.queue}\u0000${b.key}`;

/** the same counts, bindings and policies (a reading that failed somewhere is never the same) */
export function sameState(
  a: { queues: QueueCounts[]; broker: BrokerAtCheckpoint },
  b: { queues: QueueCounts[]; broker: BrokerAtCheckpoint },
): boolean {
  const counts = (x: typeof a) => JSON.stringify(x.queues.map((q) => [q.ready, q.unacked, q.held]));
  const binds = (x: typeof a) => (x.broker.bindings ? x.broker.bindings.map(key).sort().join('\n') : null);
  const policies = (x: typeof a) => JSON.stringify(x.broker.policies);
  const failed = (x: typeof a) => x.broker.bindings === null || x.broker.policies.some((p) => p === null);
  return !failed(a) && !failed(b) && counts(a) === counts(b) && binds(a) === binds(b) && policies(a) === policies(b);
}
