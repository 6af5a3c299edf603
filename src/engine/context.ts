/**
 * A lab's ctx: what the lab gets from the engine — the broker, the database, the management API, the
 * event log, its options and names — and its checkpoints (--step pauses, with what each shows).
 */
import type { LabContext, LabMeta } from '../lab/lab.js';
import type { Broker } from '../broker/broker.js';
import { Management } from '../broker/management.js';
import type { EventLog } from '../log/events.js';
import type { Names } from '../core/names.js';
import { UsageError } from '../core/errors.js';
import { sleep, within } from '../core/time.js';
import { FAULT_ENV, faultsFor } from '../lab/fault.js';
import { labServices } from './outage.js';
import type { CheckpointView, MessageAtCheckpoint } from '../core/checkpoint-view.js';
import type { LabRun } from './run-options.js';
import { brokerAtPause } from '../broker/broker-state.js';
import type { RunVariants } from './variants.js';

/** what runOne set up for the lab before its ctx is built */
interface LabSetup {
  log: EventLog;
  names: Names;
  /** the topology's queues: the counts a checkpoint shows */
  queues: readonly string[];
  /** the topology's exchanges: the bindings from them a checkpoint shows */
  exchanges: readonly string[];
  /** the --live page's depth sample at a --step pause (a no-op until the sampler runs) */
  pause: { sample(): Promise<void> };
  /** aborted when the lab's run has settled (LabContext.ended) */
  ended: AbortSignal;
  /** the broken variants MQLAB_FAULT asks for (none: the lab's own steps) */
  variants: RunVariants;
}

/** the lab's ctx; `run.signal` is the lab's own (it also ends when a service is lost) */
export function context<O>(
  run: LabRun<O>,
  { log, names, queues, exchanges, pause, ended, variants }: LabSetup,
): LabContext<O> {
  const { entry, options, config, runOptions, hooks, signal, broker, db, watch } = run;
  let seq = 0;
  const mgmt = new Management(config.mgmtUrl, config.vhost);
  const faults = faultsFor(entry);
  if (faults.size)
    hooks.stderr(
      `${entry.name}: ${FAULT_ENV} asks for the broken variant(s) ${[...faults].join(', ')}: not the correct experiment (predict which checks FAIL)`,
    );
  return variants.context({
    lab: entry.name,
    names,
    broker,
    db,
    mgmt,
    caps: run.capabilities,
    log,
    options,
    outDir: runOptions.out,
    config,
    async checkpoint(name, detail = {}, message) {
      if (!Object.hasOwn(entry.checkpoints, name)) {
        throw new UsageError(
          `${entry.name} called the checkpoint '${name}' that its meta.checkpoints does not declare (a lab bug)`,
          `declare it in labs/${entry.name}/meta.ts`,
        );
      }
      const token = `${entry.name}-${name}-${++seq}`;
      // the view (description, message, counts) costs a few requests: only when someone looks at it
      const view =
        runOptions.step || runOptions.views
          ? await checkpointView(
              entry,
              { name, seq, detail, message },
              { queues, exchanges, broker, mgmt, settle: runOptions.step },
            )
          : undefined;
      log.emit(
        'checkpoint',
        { checkpoint: name, ...detail, token, status: 'waiting' },
        undefined,
        view ? { view } : undefined,
      );
      if (runOptions.step && view) {
        const { checkpointLines } = await import('./checkpoint-text.js');
        hooks.stderr('\n' + checkpointLines(view, hooks.width).join('\n'));
        if (hooks.observer) await pause.sample(); // the live page shows the counts of this moment
        await hooks.waitForEnter('  press Enter to continue (Ctrl-C stops the lab) ');
      }
      log.emit('checkpoint', { checkpoint: name, ...detail, token, status: 'released' });
    },
    progress: (message) => hooks.stderr(`${entry.name}: ${message}`),
    // an interrupt rejects every pending sleep at once: one the lab had not awaited yet (a window it
    // races later) must not crash the process as an unhandled rejection; awaiting it still throws
    sleep: (ms) => handled(sleep(ms, signal)),
    // a paused (--step) run waits for the user, not for a clock
    within: (p, ms, what) => handled(within(p, runOptions.step ? 24 * 3600_000 : ms, what, signal)),
    signal,
    ended,
    now: () => performance.now(),
    services: labServices(config, watch, log, entry.disruptive === true, entry.name, (line) =>
      hooks.stderr(`${entry.name}: ${line}`),
    ),
  });
}

/** one call of ctx.checkpoint: its name, its number in the lab's run, what the lab passed with it */
interface CheckpointCall {
  name: string;
  seq: number;
  detail: Record<string, unknown>;
  message: MessageAtCheckpoint | undefined;
}

/** where a checkpoint's counts come from; `settle`: read until nothing moves (a paused run, --step) */
interface CountsSource {
  queues: readonly string[];
  exchanges: readonly string[];
  broker: Broker;
  mgmt: Management;
  settle: boolean;
}

/**
 * what a checkpoint shows: the lab's description of it, the message, and the broker's state — every
 * queue's counts, the bindings and policies — from one reading (src/broker/broker-state.ts)
 */
async function checkpointView(
  entry: LabMeta,
  { name, seq, detail, message }: CheckpointCall,
  { queues, exchanges, broker, mgmt, settle }: CountsSource,
): Promise<CheckpointView> {
  // loaded here: only --step, --live and --html runs take views
  const { factsOf, messageOf } = await import('../core/checkpoint-view.js');
  const at = new Date().toISOString();
  // a message on a TTL hop (message.queue) leaves before a tick could show it: ready only, then
  const state = await brokerAtPause(
    broker,
    mgmt,
    { queues, exchanges },
    message?.queue ? 'ready-only' : settle ? 'settled' : 'once',
  );
  const msg = goneFrom(
    message ?? messageOf(undefined, typeof detail.messageId === 'string' ? detail.messageId : undefined),
    state.queues,
  );
  return {
    lab: entry.name,
    checkpoint: name,
    seq,
    description: entry.checkpoints[name] ?? null,
    ...(typeof detail.process === 'string' ? { process: detail.process } : {}),
    ...(msg ? { message: msg } : {}),
    queues: state.queues,
    broker: state.broker,
    facts: factsOf(detail),
    at,
  };
}

/**
 * the message as the reading shows it: where the lab saw it in a queue the reading found empty, it
 * had left before the reading (its TTL ran out on the way), and the view says so instead of "now in"
 */
function goneFrom(
  msg: MessageAtCheckpoint | undefined,
  queues: readonly { queue: string; ready: number | null }[],
): MessageAtCheckpoint | undefined {
  if (!msg?.queue || queues.find((q) => q.queue === msg.queue)?.ready !== 0) return msg;
  const { queue, ...rest } = msg;
  return { ...rest, leftQueue: queue };
}

/** the same promise, its rejection marked as handled (whoever awaits it still gets it) */
function handled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}
