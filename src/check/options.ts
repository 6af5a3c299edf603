/** `mqlab check`'s flags, parsed once into CheckOptions (usage errors: exit 2, one line). */
import { UsageError } from '../core/errors.js';
import { duration, integer } from '../core/options.js';
import { GROUP_NAMES, type GroupName } from './group-names.js';
import { freshSeed } from './seed.js';

export interface CheckOptions {
  command: string;
  effectsSql: string | undefined;
  cleanupSql: string | undefined;
  groups: GroupName[];
  /** the groups were named with --only (one that cannot run here is then an error, not a SKIP) */
  only: boolean;
  seed: number;
  settleMs: number;
  startTimeoutMs: number;
  consumerTimeoutMs: number;
  poisonDeliveries: number;
  verbose: boolean;
}

export interface CheckFlags {
  consumer?: string;
  effects?: string;
  cleanup?: string;
  only?: string;
  seed?: string;
  settle: string;
  startTimeout: string;
  consumerTimeout: string;
  poisonDeliveries: string;
  verbose?: boolean;
}

export const CHECK_DEFAULTS = {
  settle: '2s',
  startTimeout: '20s',
  consumerTimeout: '2s',
  poisonDeliveries: '5',
} as const;

export function parseCheckFlags(f: CheckFlags): CheckOptions {
  const command = f.consumer?.trim();
  if (!command)
    throw new UsageError(
      '--consumer is missing',
      'name the command that starts your consumer: mqlab check --consumer "node dist/consumer.js"',
    );
  const sql = (flag: string, v: string | undefined) => {
    if (v !== undefined && !v.trim())
      throw new UsageError(`${flag} is empty`, `give a SQL statement, e.g. ${flag} "SELECT message_id FROM orders"`);
    return v?.trim();
  };
  return {
    command,
    effectsSql: sql('--effects', f.effects),
    cleanupSql: sql('--cleanup', f.cleanup),
    groups: parseGroups(f.only),
    only: f.only !== undefined,
    seed: f.seed === undefined ? freshSeed() : integer(1, 2_147_483_647)(f.seed, '--seed'),
    settleMs: duration({ min: 200, max: 600_000 })(f.settle, '--settle'),
    startTimeoutMs: duration({ min: 1000, max: 600_000 })(f.startTimeout, '--start-timeout'),
    consumerTimeoutMs: duration({ min: 1000, max: 600_000 })(f.consumerTimeout, '--consumer-timeout'),
    poisonDeliveries: integer(1, 1000)(f.poisonDeliveries, '--poison-deliveries'),
    verbose: Boolean(f.verbose),
  };
}

/** `--only crash,duplicate`: those groups, in the run's own order; none given: all */
export function parseGroups(list: string | undefined): GroupName[] {
  if (list === undefined) return [...GROUP_NAMES];
  const names = list
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(GROUP_NAMES as readonly string[]).includes(n));
  if (unknown.length || !names.length)
    throw new UsageError(
      `--only takes check groups, got '${unknown.join(',') || list}'`,
      `the groups: ${GROUP_NAMES.join(', ')}`,
    );
  return GROUP_NAMES.filter((g) => names.includes(g));
}
