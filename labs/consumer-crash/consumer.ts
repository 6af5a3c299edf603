/**
 * The consumer process of consumer-crash, spawned twice by lab.ts (src/kit/child/child.ts runChild).
 * Manual ack, prefetch 1. Per delivery: one transaction (processed_messages claim, then the
 * order row), commit, and only then ack.
 *
 *   --crash-after-commits N  after the Nth business commit and before its ack, SIGKILL itself
 *                            (no ack leaves the process; the shell sees exit code 137)
 *   --expect N               stop after N distinct messages were settled (acked)
 *   --gate-ms MS             hold each replay-gate checkpoint this long (the lab's --gate)
 *   --timeout-ms MS          give up (exit 3) when neither happened by then (time held at a
 *                            gate, e.g. a --step pause, does not count)
 */
import { parseArgs } from 'node:util';
import { childRuntime } from '../../src/kit/child/runtime.js';
import { deferred, pauses, replayGate, heldDeadline } from '../../src/kit/index.js';
import { CONSUMER, SERVICE, envelopeFields, parseEnvelope, processOnce } from './orders.js';
import type { CrashNames } from './names.js';
import type { ConsumerSteps } from './consumer-steps.js';
import type { Fault } from './meta.js';

const rt = await childRuntime<CrashNames, Fault>();
// rt.args: as started, then what the lab added when it told this process to start (run 2's --expect)
const { values } = parseArgs({
  args: rt.args,
  options: {
    'crash-after-commits': { type: 'string', default: '0' },
    expect: { type: 'string', default: '0' },
    'gate-ms': { type: 'string' },
    'timeout-ms': { type: 'string', default: '15000' },
  },
});
const crashAfter = Number(values['crash-after-commits']);
const expect = Number(values.expect);
const gateMs = Number(values['gate-ms']);
if (!Number.isSafeInteger(gateMs)) throw new Error(`--gate-ms: a whole number of ms, got ${values['gate-ms']}`);

const name = rt.names;
/** a replay-gate checkpoint: logged waiting/released, a checkpoint of the parent (--step), held only with --gate-ms */
const gate = replayGate({ holdMs: gateMs });

let received = 0;
let commits = 0;
let stopping = false;
const settled = new Set<string>();
const finished = deferred();
// the consumer's steps, as taught
const steps = await rt.steps<ConsumerSteps>(
  {
    commitThenAck: async (commit, ack) => {
      await commit();
      ack();
    },
    dedupe: true,
    crashAt: crashAfter,
    die: () => process.kill(process.pid, 'SIGKILL'),
    prefetch: 1,
  },
  async () => (await import('./variants.js')).consumer,
);

const consumer = await rt.broker.consume(
  name.queue,
  async (m) => {
    if (stopping) return; // pushed after the last expected ack: left unacked, the broker takes it back
    const e = parseEnvelope(m.body);
    const attempt = Number(m.headers.attempt ?? 1);
    const meta = { ...SERVICE, ...envelopeFields(e), destination: name.queue };
    received += 1;
    rt.emit('consumer', { ...meta, consumer: CONSUMER, attempt, redelivered: m.redelivered, status: 'received' });
    const shown = { label: e.payload.orderId, attempt, redelivered: m.redelivered };
    await gate('after-delivery', e.messageId, shown);
    const commit = async () => {
      const outcome = await processOnce(rt.db, name, e, !steps.dedupe);
      rt.emit('consumer', { ...meta, attempt, status: outcome });
      if (outcome === 'business_committed') commits += 1;
      await gate('before-ack', e.messageId, shown);
      if (outcome === 'business_committed' && commits === steps.crashAt) {
        rt.emit('consumer', { ...meta, status: 'crash_injected' });
        await new Promise<void>((resolve) => process.stdout.write('', () => resolve())); // the lines above reach the parent
        steps.die(); // the committed transaction stays, the ack is never sent
      }
    };
    const ack = () => {
      m.ack();
      rt.emit('consumer', { ...meta, attempt, status: 'acked' });
    };
    await steps.commitThenAck(commit, ack);
    settled.add(e.messageId);
    if (expect > 0 && settled.size >= expect) {
      stopping = true;
      finished.resolve();
    }
  },
  { prefetch: steps.prefetch },
);

// the bound leaves out the time held at the gates (a class at --step)
const timer = heldDeadline(Number(values['timeout-ms']), pauses, () => finished.reject(new Error('timeout')));
const outcome = await Promise.race([finished.promise, consumer.failure]).then(
  () => 'done',
  (err: Error) => (err.message === 'timeout' ? 'timeout' : `failed: ${err.message}`),
);
timer.clear();
await consumer.cancel();
rt.emit('consumer', {
  ...SERVICE,
  queue: name.queue,
  received,
  status: outcome === 'done' ? 'done' : outcome.split(':')[0],
});
if (outcome !== 'done') process.stderr.write(`${rt.process}: ${outcome}\n`);
await rt.close();
process.exitCode = outcome === 'done' ? 0 : 3;
