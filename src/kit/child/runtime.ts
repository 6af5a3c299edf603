/**
 * The child side of runChild: what a lab's separate process (consumer, archiver, producer) uses.
 * It reads the run's URLs and the lab's names (built by the parent) from MQLAB_* variables and
 * prints events on stdout.
 * A service lost (or refused) while the child runs ends it at once with CHILD_LOST_EXIT and one
 * `[lost] service=… cause=…` line on stderr, which the parent turns into an environment error.
 */
import { Broker } from '../../broker/broker.js';
import { dbLossProbe, openDb, type Db } from '../../db/client.js';
import { loadConfig, type Config } from '../../core/config.js';
import { eventFields, formatEvent } from '../../log/events.js';
import { faultEntries } from '../../lab/fault.js';
import type { AnyVariants, Variants } from '../../lab/variant.js';
import { CHILD_LOST_EXIT, ServiceLost, isConnectionLoss, lossCause, type ServiceName } from '../../core/lost.js';
import { EnvError } from '../../core/errors.js';
import { redactSecrets } from '../../core/secrets.js';
import { WAIT_FOR_START_ENV } from './start.js';

export interface ChildRuntime<N, F extends string = string> {
  config: Config;
  /** the process's arguments: those it was started with, then those the parent gave with the word to start */
  args: string[];
  /** the lab's resource names, as the parent passed them to runChild */
  names: N;
  /** the process name given by the parent, e.g. consumer-run1 */
  process: string;
  lab: string;
  broker: Broker;
  db: Db;
  /** print one event line: [source] timestamp=… lab=… key=value … */
  emit(source: string, fields: Record<string, unknown>): void;
  /**
   * The steps this process runs: `correct` itself, or (TEST ONLY: MQLAB_FAULT, inherited from the parent,
   * names this lab) with the asked-for variants of `load` applied, which loads them only then; a
   * variant's `broker` part decorates `broker` (ask before using it). `rt.steps(correct, async () =>
   * (await import('./variants.js')).consumer)`
   */
  steps<S extends object>(correct: S, load: () => Promise<Variants<S, F, ChildRuntime<N, F>>>): Promise<S>;
  close(): Promise<void>;
}

/**
 * mqlab died without ending this process (its parent alone SIGKILLed, or crashed): a consumer left
 * running would go on holding the lab's queue for the next run, so it ends too, within ORPHAN_POLL_MS
 * (the kernel gives an orphan a new parent: its ppid changes)
 */
function exitWhenOrphaned(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid === parent) return;
    process.stderr.write(`${process.env.MQLAB_PROCESS ?? 'child'}: mqlab (pid ${parent}) is gone: this process ends\n`);
    process.exit(CHILD_ORPHANED_EXIT);
  }, ORPHAN_POLL_MS).unref();
}

const ORPHAN_POLL_MS = 250;
/** the exit code of a child whose mqlab died (nobody reads it: for ps and a shell that started it) */
const CHILD_ORPHANED_EXIT = 4;

export async function childRuntime<N, F extends string = string>(): Promise<ChildRuntime<N, F>> {
  const config = loadConfig();
  const lab = process.env.MQLAB_LAB ?? 'unknown';
  let ending = false;
  let db: Db | undefined;
  const urlOf = (s: ServiceName) =>
    s === 'PostgreSQL' ? config.pgUrl : s === 'RabbitMQ' ? config.amqpUrl : config.mgmtUrl;
  const lost = (service: ServiceName, cause: string) => exitLost(new ServiceLost(service, urlOf(service), cause));
  exitOnLoss(config, lost);
  exitWhenOrphaned();
  const onDbClose = dbLossProbe(
    () => db,
    () => ending,
    (cause) => lost('PostgreSQL', cause),
  );
  const [b, d] = await Promise.allSettled([Broker.connect(config.amqpUrl), openDb(config.pgUrl, 2, onDbClose)]);
  if (b.status === 'rejected') lost('RabbitMQ', causeOf(b.reason));
  if (d.status === 'rejected') lost('PostgreSQL', causeOf(d.reason));
  const broker = (b as PromiseFulfilledResult<Broker>).value;
  db = (d as PromiseFulfilledResult<{ db: Db }>).value.db;
  broker.onLost((cause) => lost('RabbitMQ', cause));
  const more = process.env[WAIT_FOR_START_ENV] ? await startWord() : [];
  const asked = new Set(faultEntries().flatMap((e) => (e.lab === lab ? [e.fault] : [])));
  const rt: ChildRuntime<N, F> = {
    config,
    args: [...process.argv.slice(2), ...more],
    names: JSON.parse(process.env.MQLAB_LAB_NAMES ?? '{}') as N,
    process: process.env.MQLAB_PROCESS ?? 'child',
    lab,
    broker,
    db,
    emit(source, fields) {
      process.stdout.write(formatEvent({ source, fields: eventFields({ lab }, fields) }) + '\n');
    },
    async steps(correct, load) {
      if (!asked.size) return correct;
      const [variants, { applySteps, askedParts, decorateBroker }] = await Promise.all([
        load(),
        import('../../lab/variant.js'),
      ]);
      const parts = askedParts<typeof correct, ChildRuntime<N, F>>(variants as AnyVariants, asked);
      if (parts.some((p) => p.after ?? p.topology ?? p.during))
        throw new Error(`${lab}: a child process's variants replace steps or decorate its broker, nothing else`);
      rt.broker = decorateBroker(rt.broker, parts, rt);
      return applySteps(correct, parts, rt);
    },
    async close() {
      ending = true;
      await broker.close();
      await db.end({ timeout: 1 });
    },
  };
  return rt;
}

/**
 * Started ahead (runChild's startWhen): connected, wait for the parent's word on stdin, one JSON line
 * of more arguments. A parent that ended first closes the pipe: this process ends too, having done nothing.
 */
function startWord(): Promise<string[]> {
  return new Promise((resolve) => {
    let said = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (text: string) => {
      said += text;
      if (!said.includes('\n')) return;
      process.stdin.removeAllListeners().destroy();
      resolve((JSON.parse(said.slice(0, said.indexOf('\n'))) as unknown[]).map(String));
    });
    process.stdin.on('end', () => {
      if (!said.includes('\n')) process.exit(0);
    });
  });
}

/** the cause in an EnvError's message, after "<service> at <url>: " */
function causeOf(err: unknown): string {
  const msg = err instanceof EnvError ? err.message : lossCause(err, 'unreachable');
  return msg.replace(/^.*? at \S+: /, '');
}

function exitLost(e: ServiceLost): never {
  process.stderr.write(
    formatEvent({ source: 'lost', fields: { service: e.service, cause: redactSecrets(e.reason) } }) + '\n',
  );
  process.exit(CHILD_LOST_EXIT);
}

/** an error nobody caught that says a connection went away: the service it came from is lost */
function exitOnLoss(config: Config, lost: (s: ServiceName, cause: string) => void) {
  const pgPort = portOf(config.pgUrl, '5432');
  const onError = (err: unknown) => {
    if (!isConnectionLoss(err)) {
      process.stderr.write(redactSecrets(String((err as Error)?.stack ?? err)) + '\n');
      process.exit(1);
    }
    const e = err as { code?: string; port?: number };
    const pg = String(e.code ?? '').startsWith('CONNECT') || String(e.port ?? '') === pgPort;
    lost(pg ? 'PostgreSQL' : 'RabbitMQ', lossCause(err, 'connection lost during the run'));
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
}

function portOf(url: string, fallback: string): string {
  try {
    return new URL(url).port || fallback;
  } catch {
    return fallback;
  }
}
