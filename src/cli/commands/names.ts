/**
 * `mqlab <lab> --names`: the run's own queue, exchange, policy and table names (with its
 * --namespace), read from the lab's topology, schema and reset as data — nothing is connected to,
 * nothing runs. A student copies the table names into the SQL of a lab page's "Try this".
 */
import type { LabMeta } from '../../lab/lab.js';
import type { Config } from '../../core/config.js';
import { namesFor, type Names } from '../../core/names.js';

export interface RunNames {
  namespace: string;
  queues: string[];
  exchanges: string[];
  policies: string[];
  tables: string[];
}

/** every name the lab's topology, schema and reset ask for, in the order first asked */
export async function runNames(entry: LabMeta, config: Config, options: unknown): Promise<RunNames> {
  const { lab } = await entry.load();
  const base = namesFor(config);
  const seen = {
    queues: new Set<string>(),
    exchanges: new Set<string>(),
    policies: new Set<string>(),
    tables: new Set<string>(),
  };
  const keep = (set: Set<string>, name: string) => (set.add(name), name);
  const recording: Names = {
    namespace: base.namespace,
    q: (n) => keep(seen.queues, base.q(n)),
    x: (n) => keep(seen.exchanges, base.x(n)),
    p: (n) => keep(seen.policies, base.p(n)),
    t: (n) => keep(seen.tables, base.t(n)),
    exact: base.exact,
  };
  const topology = lab.topology?.(recording, options);
  for (const q of topology?.queues ?? []) seen.queues.add(q.name);
  for (const x of topology?.exchanges ?? []) seen.exchanges.add(x.name);
  lab.schema?.(recording);
  lab.reset?.(recording);
  return {
    namespace: base.namespace,
    queues: [...seen.queues],
    exchanges: [...seen.exchanges],
    policies: [...seen.policies],
    tables: [...seen.tables],
  };
}

/** `student`: a class student's run (MQLAB_STUDENT): their tables are in their own schema, on their search_path */
export function renderNames(lab: string, n: RunNames, student = ''): string[] {
  const list = (xs: string[]) => (xs.length ? xs.join('  ') : '-');
  if (!n.queues.length && !n.exchanges.length && !n.policies.length && !n.tables.length)
    return [
      `${lab}: it declares its queues itself while it runs (they depend on the broker); docs/labs/${lab}.md names them`,
    ];
  return [
    `${lab} ${n.namespace ? `in namespace ${n.namespace}` : 'without a namespace'}:`,
    `  queues     ${list(n.queues)}`,
    `  exchanges  ${list(n.exchanges)}`,
    `  policies   ${list(n.policies)}`,
    `  tables     ${list(n.tables)}${!n.tables.length ? '' : student ? `  (your own schema ${student}: SELECT * FROM <table>)` : '  (schema lab on the services mqlab starts: SELECT * FROM lab.<table>)'}`,
  ];
}
