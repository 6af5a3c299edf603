/**
 * `mqlab check`: each selected group in turn, against the user's consumer. Connects, holds the set
 * of services (alone when a group stops a service), runs every group in a scenario of its own and
 * judges its ledger; always deletes what it declared and stops what it started, whatever ended it.
 */
import crypto from 'node:crypto';
import { Broker } from '../broker/broker.js';
import { capabilities, type Capabilities } from '../broker/capabilities.js';
import type { Config } from '../core/config.js';
import { EnvError } from '../core/errors.js';
import { openDb, type Db } from '../db/client.js';
import { check, evaluate, formatValue, type CheckResult } from '../report/checks.js';
import { holdHome, type SetLock } from '../services/set-lock.js';
import { ANOMALIES, judge, type Anomaly, type AnomalyKind } from './anomalies.js';
import type { GroupName } from './group-names.js';
import { GROUPS } from './groups/index.js';
import type { Group } from './groups/group.js';
import type { CheckOptions } from './options.js';
import { Scenario, type RunEnv } from './scenario.js';
import { rng } from './seed.js';

interface GroupReport {
  group: GroupName;
  title: string;
  status: 'passed' | 'failed' | 'skipped';
  skipped?: string;
  /** `crash: published=16 effects=16 …` */
  line: string;
  checks: CheckResult[];
  anomalies: Anomaly[];
  facts: Record<string, unknown>;
  startedAt: Date;
  ms: number;
}

export interface CheckRun {
  seed: number;
  command: string;
  effects: 'sql' | 'log';
  runId: string;
  broker: { product: string; version: string };
  postgres: string | null;
  capabilities: Capabilities;
  groups: GroupReport[];
  ms: number;
}

export async function runCheck(
  config: Config,
  options: CheckOptions,
  signal: AbortSignal,
  say: (line: string) => void,
): Promise<CheckRun> {
  const t0 = Date.now();
  const broker = await Broker.connect(config.amqpUrl);
  let db: Db | null = null;
  let lock: SetLock | null = null;
  const env: RunEnv = {
    config,
    options,
    caps: capabilities(broker.version),
    runId: crypto.randomBytes(3).toString('hex'),
    signal,
    broker: {
      current: broker,
      async reconnect() {
        await this.current.close().catch(() => {});
        this.current = await Broker.connect(config.amqpUrl);
      },
    },
    db: null,
    say,
    firstStart: true,
  };
  try {
    let postgres: string | null = null;
    if (options.effectsSql !== undefined || options.cleanupSql !== undefined) {
      const opened = await openDb(config.pgUrl);
      [db, postgres, env.db] = [opened.db, opened.version, opened.db];
    }
    const selected = options.groups.map((g) => GROUPS[g]);
    const exclusive = selected.some((g) => g.exclusive?.(env));
    lock = await holdHome(config.home, {
      mode: exclusive ? 'exclusive' : 'shared',
      what: 'check',
      wait: true,
      say,
      signal,
    });
    const groups: GroupReport[] = [];
    for (const g of selected) groups.push(await runGroup(env, g));
    return {
      seed: options.seed,
      command: options.command,
      effects: options.effectsSql === undefined ? 'log' : 'sql',
      runId: env.runId,
      broker: { product: broker.product, version: broker.version },
      postgres,
      capabilities: env.caps,
      groups,
      ms: Date.now() - t0,
    };
  } finally {
    if (options.cleanupSql !== undefined && db) await db.unsafe(options.cleanupSql).catch(() => {});
    await env.broker.current.close().catch(() => {});
    await db?.end({ timeout: 1 }).catch(() => {});
    lock?.release();
  }
}

async function runGroup(env: RunEnv, g: Group): Promise<GroupReport> {
  const startedAt = new Date();
  const base = { group: g.name, title: g.title, startedAt, facts: {}, anomalies: [], checks: [] };
  const why = (await g.cannotRun?.(env)) ?? null;
  if (why) {
    if (env.options.only) throw new EnvError(`check group ${g.name} cannot run here: ${why}`);
    return { ...base, status: 'skipped', skipped: why, line: `${g.name}: skipped`, ms: 0 };
  }
  env.say(`${g.name}: ${g.title}`);
  const s = new Scenario(env, g.name, rng(env.options.seed + GROUP_SALT[g.name]));
  const restore = await g.before?.(env);
  try {
    await s.open(g.queueArgs?.(env));
    await g.run(s);
    const ledger = await s.close();
    const anomalies = judge(ledger);
    const checks = checksOf(g, anomalies).map(evaluate);
    const effects = [...ledger.effects.values()].reduce((a, b) => a + b, 0);
    const fields: Record<string, unknown> = {
      published: ledger.published.length,
      effects,
      deadLettered: ledger.dead.length,
      inQueue: ledger.inQueue.length,
      restarts: Math.max(0, s.consumer.starts - 1),
      ...summaryFacts(s.facts),
    };
    return {
      ...base,
      status: checks.every((c) => c.pass) ? 'passed' : 'failed',
      line: `${g.name}: ${Object.entries(fields)
        .map(([k, v]) => `${k}=${formatValue(v)}`)
        .join(' ')}`,
      checks,
      anomalies,
      facts: { ...s.facts, queue: s.work, deadLetterQueue: s.dlq, deliveries: Object.fromEntries(ledger.deliveries) },
      ms: Date.now() - startedAt.getTime(),
    };
  } finally {
    await s.remove();
    await restore?.();
  }
}

/** a group's seed is the run's, moved by a constant of its own: --only crash kills where a whole run does */
const GROUP_SALT: Record<GroupName, number> = {
  crash: 0,
  duplicate: 101,
  poison: 202,
  'consumer-timeout': 303,
  'broker-restart': 404,
  'db-outage': 505,
};

/** one check per anomaly the group exposes, and one for any other anomaly found there */
function checksOf(g: Pick<Group, 'name' | 'exposes'>, anomalies: readonly Anomaly[]) {
  const kinds = ANOMALIES.filter((k) => g.exposes.includes(k) || anomalies.some((a) => a.kind === k));
  const count = (k: AnomalyKind) => anomalies.find((a) => a.kind === k)?.messageIds.length ?? 0;
  return kinds.map((k) => check(`${g.name}.${k}`, 0, count(k)));
}

/** the group's own numbers on its summary line (kills, the broker's answer …) */
function summaryFacts(facts: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) if (typeof v === 'number' || typeof v === 'string') out[k] = v;
  return out;
}
