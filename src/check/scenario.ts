/**
 * One check group's run: its own work queue and dead-letter queue (quorum, named for this run), the
 * consumer started behind the AMQP and PostgreSQL proxies, the messages published with confirms, a
 * wait until every message is accounted for (or nothing moves for --settle), then the consumer
 * stopped, the queues read and deleted, and the ledger the anomalies are judged from. The groups
 * (groups/*.ts) say what happens in between.
 */
import type { Broker } from '../broker/broker.js';
import type { Capabilities } from '../broker/capabilities.js';
import type { Config } from '../core/config.js';
import type { Db } from '../db/client.js';
import { EnvError, Interrupted } from '../core/errors.js';
import { sleep } from '../core/time.js';
import { firstDeath } from '../kit/xdeath.js';
import { AmqpProxy } from './proxy/amqp-proxy.js';
import { Relay } from './proxy/relay.js';
import { ConsumerProcess } from './consumer-process.js';
import { delta, effectsFailed, logEffects, sqlEffects, type Effects } from './effects.js';
import type { DeadLetter, Ledger, Published } from './anomalies.js';
import type { Rng } from './seed.js';
import type { CheckOptions } from './options.js';

interface BrokerHolder {
  current: Broker;
  /** connect again (after a restart of the broker) */
  reconnect(): Promise<void>;
}

/** what every group of one `mqlab check` shares */
export interface RunEnv {
  config: Config;
  options: CheckOptions;
  caps: Capabilities;
  /** a few letters that make this run's queue names and message ids its own */
  runId: string;
  signal: AbortSignal;
  broker: BrokerHolder;
  db: Db | null;
  /** a progress line on stderr */
  say(line: string): void;
  /** the run's first start of the consumer: an exit or no consume is a usage error (exit 2) */
  firstStart: boolean;
}

const POLL_MS = 100;
/** the queues delete themselves when a run was killed before it could (x-expires, unused this long) */
const EXPIRES_MS = 30 * 60_000;
/** the work queue's delivery limit: the 4.x default, set on every line (3.10 has none by default) */
const DELIVERY_LIMIT = 20;

export class Scenario {
  readonly work: string;
  readonly dlq: string;
  readonly published: Published[] = [];
  readonly facts: Record<string, unknown> = {};
  proxy!: AmqpProxy;
  pg: Relay | null = null;
  consumer!: ConsumerProcess;
  effects!: Effects;
  private baseline = new Map<string, number>();
  private seq = 0;

  constructor(
    readonly env: RunEnv,
    readonly group: string,
    readonly rng: Rng,
  ) {
    const ns = env.config.namespace ? `${env.config.namespace}.` : '';
    this.work = `${ns}mqlab-check.${env.runId}.${group}`;
    this.dlq = `${this.work}.dlq`;
  }

  get broker(): Broker {
    return this.env.broker.current;
  }

  /** declare the queues, start the proxies and the consumer, and wait until it consumes */
  async open(queueArgs: Record<string, unknown> = {}): Promise<void> {
    const { config, options } = this.env;
    const ch = await this.broker.newChannel();
    try {
      const common = { 'x-queue-type': 'quorum', 'x-expires': EXPIRES_MS };
      await ch.assertQueue(this.dlq, { durable: true, arguments: common });
      await ch.assertQueue(this.work, {
        durable: true,
        arguments: {
          ...common,
          'x-dead-letter-exchange': '',
          'x-dead-letter-routing-key': this.dlq,
          'x-delivery-limit': DELIVERY_LIMIT,
          ...queueArgs,
        },
      });
    } finally {
      await ch.close().catch(() => {});
    }
    const amqp = new URL(config.amqpUrl);
    this.proxy = await AmqpProxy.start({ host: amqp.hostname, port: Number(amqp.port || 5672) });
    const pg = new URL(config.pgUrl);
    this.pg = await Relay.listen({ host: pg.hostname, port: Number(pg.port || 5432) });
    this.effects =
      options.effectsSql !== undefined && this.env.db ? sqlEffects(this.env.db, options.effectsSql) : logEffects();
    const through = (url: URL, port: number) => {
      const u = new URL(url.href);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.href;
    };
    this.consumer = new ConsumerProcess(
      options.command,
      {
        ...process.env,
        MQLAB_AMQP_URL: through(amqp, this.proxy.port),
        MQLAB_PG_URL: through(pg, this.pg.port),
        MQLAB_QUEUE: this.work,
        MQLAB_DLQ: this.dlq,
        MQLAB_NAMESPACE: config.namespace,
        MQLAB_CHECK_GROUP: this.group,
      },
      {
        onLine: (line, stream) => {
          if (stream === 'stdout') this.effects.line(line);
          if (options.verbose) process.stderr.write(`[consumer ${stream}] ${line}\n`);
        },
        onExit: (exit, n) => {
          if (options.verbose) process.stderr.write(`[consumer] instance ${n} exited: code=${exit.code}\n`);
        },
      },
    );
    this.consumer.start();
    await this.consuming();
    // after the consumer's start (it may create its tables), before any message
    this.baseline = await this.effects.counts().catch(async (err: unknown) => {
      await this.consumer.stop();
      throw effectsFailed(err, options.effectsSql ?? '');
    });
  }

  /** wait until the consumer running now consumes (bounded by --start-timeout) */
  async consuming(): Promise<void> {
    const { options } = this.env;
    const strict = this.env.firstStart;
    const startedAt = Date.now();
    const exitsBefore = this.consumer.exits.length;
    while (this.proxy.consuming === 0) {
      this.abortIfAsked();
      if (strict && this.consumer.exits.length > exitsBefore) {
        await this.consumer.stop();
        throw exitedAtOnce(options.command, this.consumer.exits[exitsBefore]!.code, this.consumer.lastStderr());
      }
      if (Date.now() - startedAt > options.startTimeoutMs) {
        await this.consumer.stop();
        throw await this.neverConsumed();
      }
      await sleep(20, this.env.signal);
    }
    this.consumer.consumed();
    this.env.firstStart = false;
  }

  private async neverConsumed(): Promise<EnvError> {
    const { options } = this.env;
    const direct = await this.broker.passive(this.work).catch(() => ({ consumers: 0 }));
    const seconds = `${options.startTimeoutMs / 1000} s`;
    if (direct.consumers > 0)
      return new EnvError(
        `the consumer consumes from ${this.work}, but not through MQLAB_AMQP_URL`,
        'connect to the URL in MQLAB_AMQP_URL as given: mqlab watches and cuts the connection there (docs/check.md)',
      );
    return new EnvError(
      `the consumer ran for ${seconds} and never consumed from ${this.work}${this.consumer.exits.length ? ` (it exited ${this.consumer.exits.length} time(s); last stderr: ${this.consumer.lastStderr() || 'none'})` : ''}`,
      'consume the queue named in MQLAB_QUEUE from MQLAB_AMQP_URL, with manual acks (docs/check.md); a consumer that starts slowly needs a longer --start-timeout',
    );
  }

  /** the next message id of this group */
  nextId(): string {
    return `chk-${this.env.runId}-${this.group}-${++this.seq}`;
  }

  /** publish `id` with a confirm (again, for a duplicate); a poison's body is not JSON */
  async publish(id: string, kind: Published['kind'] = 'work'): Promise<void> {
    const body = kind === 'poison' ? `poison ${id}` : JSON.stringify({ id, seq: this.seq });
    await this.broker.sendConfirmed(this.work, body, { messageId: id, contentType: 'application/json' });
    if (!this.published.some((p) => p.id === id)) this.published.push({ id, kind });
  }

  async publishNew(n: number, kind: Published['kind'] = 'work'): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = this.nextId();
      await this.publish(id, kind);
      ids.push(id);
    }
    return ids;
  }

  /** effects that appeared since the scenario began (a database not answering: null) */
  async effectsNow(): Promise<Map<string, number> | null> {
    return this.effects.counts().then(
      (now) => delta(this.baseline, now),
      () => null,
    );
  }

  /** kill the consumer at once and cut its connections, dropping what they hold (synchronous) */
  killNow(): void {
    this.consumer.kill();
    this.proxy.dropAll();
    this.pg?.dropAll();
  }

  /**
   * Wait until every published message has an effect or a dead letter, the work queue is empty and
   * nothing is unsettled — or nothing moved for --settle while the consumer consumed (or had its
   * --start-timeout to start). 'done' or 'quiet' (also when `stop` aborts).
   */
  async settle(stop?: AbortSignal): Promise<'done' | 'quiet'> {
    const { options } = this.env;
    let signature = '';
    let movedAt = Date.now();
    for (;;) {
      this.abortIfAsked();
      if (stop?.aborted) return 'quiet';
      const effects = await this.effectsNow();
      const [ready, dead] = await Promise.all([
        this.broker.depth(this.work).catch(() => -1),
        this.broker.depth(this.dlq).catch(() => -1),
      ]);
      const withEffect = this.published.filter((p) => (effects?.get(p.id) ?? 0) > 0).length;
      if (
        effects &&
        ready === 0 &&
        withEffect + dead >= this.published.length &&
        this.proxy.unsettled().length === 0 &&
        this.proxy.consuming > 0
      )
        return 'done';
      const now = [
        [...(effects?.values() ?? [])].reduce((a, b) => a + b, 0),
        dead,
        this.proxy.acks,
        this.consumer.starts,
      ].join();
      if (now !== signature) [signature, movedAt] = [now, Date.now()];
      // an instance that started a moment ago and has acked nothing yet gets its --start-timeout (a JVM's
      // first message took 3 s at a load of 17); one that runs longer (it ignored a cancel or a lost
      // connection) does not
      const starting =
        this.consumer.running &&
        this.proxy.lastAckAt < this.consumer.startedAt &&
        Date.now() - this.consumer.startedAt < options.startTimeoutMs;
      if (!starting && Date.now() - movedAt > options.settleMs) return 'quiet';
      await sleep(POLL_MS, this.env.signal);
    }
  }

  /** stop the consumer, read what is left in the queues, delete them: the ledger */
  async close(): Promise<Ledger> {
    const unsettled = this.proxy.unsettled().flatMap((d) => (d.messageId === undefined ? [] : [d.messageId]));
    await this.consumer.stop();
    this.proxy.dropAll();
    this.pg?.dropAll();
    let effects = await this.effectsNow();
    for (let i = 0; effects === null && i < 50; i++) {
      await sleep(POLL_MS);
      effects = await this.effectsNow();
    }
    const left = await this.drain(this.work);
    const dead: DeadLetter[] = (await this.drain(this.dlq)).map((m) => ({ id: m.id, reason: m.reason }));
    await Promise.all([this.proxy.close(), this.pg?.close()]);
    return {
      published: this.published,
      effects: effects ?? new Map(),
      dead,
      inQueue: [...new Set([...unsettled, ...left.flatMap((m) => (m.id === undefined ? [] : [m.id]))])],
      deliveries: this.proxy.deliveredTimes,
      poisonDeliveries: this.env.options.poisonDeliveries,
    };
  }

  /** every message of `queue` (read and removed) */
  private async drain(queue: string): Promise<{ id: string | undefined; reason: string | null }[]> {
    const out: { id: string | undefined; reason: string | null }[] = [];
    for (;;) {
      const m = await this.broker.get(queue);
      if (!m) return out;
      out.push({ id: m.messageId, reason: firstDeath(m.headers).reason });
      m.ack();
    }
  }

  /** delete the queues (also after an error); the broker's x-expires takes them if this cannot */
  async remove(): Promise<void> {
    this.proxy?.dropAll();
    this.pg?.dropAll();
    await this.consumer?.stop().catch(() => {});
    await Promise.all([this.proxy?.close().catch(() => {}), this.pg?.close().catch(() => {})]);
    const ch = await this.broker.newChannel().catch(() => null);
    if (!ch) return;
    for (const q of [this.work, this.dlq]) await ch.deleteQueue(q).catch(() => {});
    await ch.close().catch(() => {});
  }

  abortIfAsked(): void {
    if (this.env.signal.aborted) throw new Interrupted();
  }
}

function exitedAtOnce(command: string, code: number, stderr: string): EnvError {
  if (code === 127)
    return new EnvError(
      `the consumer command was not found: ${command}${stderr ? ` (${stderr})` : ''}`,
      'give --consumer a command this shell can run, e.g. --consumer "node dist/consumer.js"',
    );
  return new EnvError(
    `the consumer exited with code ${code} before it consumed anything${stderr ? `: ${stderr}` : ''}`,
    'run the command by hand with the MQLAB_* variables of docs/check.md to see why; it must consume MQLAB_QUEUE and keep running',
  );
}
