/**
 * Every reference consumer of `mqlab check`, with the checks each must FAIL when every group runs: none
 * for the correct ones, exactly its anomaly for each broken one. `npm run examples` and the tests
 * (test/check-consumers.int.test.ts) hold each to it; examples/consumers/catalogue.test.ts holds that
 * every check a group prints is failed by one of them (a check that cannot fail is a defect).
 */
export type Language = 'typescript' | 'python';

export interface ReferenceConsumer {
  /** the file, from the project's root */
  file: string;
  language: Language;
  /** the checks (`group.anomaly`) a run of every group prints FAIL for; [] for a correct consumer */
  fails: readonly string[];
  /**
   * checks it may FAIL besides, depending on the broker line and the client library (never a check
   * that only this consumer would show failing)
   */
  mayFail?: readonly string[];
}

/** the interpreter of the Python consumers: Debian's, where apt-get puts python3-pika and python3-psycopg2 */
export const PYTHON = '/usr/bin/python3';

const BROKEN: Record<string, readonly string[]> = {
  'ack-before-commit': ['crash.lost', 'db-outage.lost'],
  'no-dedupe': ['crash.duplicated', 'duplicate.duplicated', 'consumer-timeout.duplicated', 'broker-restart.duplicated'],
  'requeue-poison': ['poison.poison-not-parked'],
  'ignore-cancel': ['consumer-timeout.stuck', 'broker-restart.stuck'],
  'unknown-id': ['poison.unexpected'],
  'swallow-db-error': ['db-outage.stuck'],
};

export const REFERENCE_CONSUMERS: readonly ReferenceConsumer[] = [
  { file: 'examples/consumers/typescript/consumer.ts', language: 'typescript', fails: [] },
  { file: 'examples/consumers/python/consumer.py', language: 'python', fails: [] },
  ...Object.entries(BROKEN).flatMap(([name, fails]): ReferenceConsumer[] => [
    { file: `examples/consumers/typescript/broken-${name}.ts`, language: 'typescript', fails },
    { file: `examples/consumers/python/broken_${name.replaceAll('-', '_')}.py`, language: 'python', ...python(fails) },
  ]),
];

/**
 * consumer-timeout below 4.3 closes the channel (406) while the frozen consumer holds the delivery:
 * thawed, pika reads the delivery and the close together and drops the delivery with its channel, so
 * the broken no-dedupe Python consumer never applies it twice there (measured on 3.10.8); amqplib
 * runs the delivery's callback first (the TypeScript one shows the check failing on every line)
 */
function python(fails: readonly string[]): Pick<ReferenceConsumer, 'fails' | 'mayFail'> {
  const lineDependent = ['consumer-timeout.duplicated'];
  return {
    fails: fails.filter((f) => !lineDependent.includes(f)),
    mayFail: fails.filter((f) => lineDependent.includes(f)),
  };
}

/** the command that starts it, from the project's root (the TypeScript ones as compiled into dist/) */
export const commandOf = (c: ReferenceConsumer): string =>
  c.language === 'python' ? `${PYTHON} ${c.file}` : `node dist/${c.file.replace(/\.ts$/, '.js')}`;

/** their effects and dedupe tables (namespaced as the consumers name them, tables() in consumer.ts) */
export function exampleSql(namespace = '') {
  const ns = namespace ? `${namespace}_` : '';
  return {
    effects: `SELECT message_id FROM ${ns}check_example_effects`,
    cleanup: `DELETE FROM ${ns}check_example_effects WHERE message_id LIKE 'chk-%' OR message_id = 'unknown'; DELETE FROM ${ns}check_example_processed WHERE message_id LIKE 'chk-%'`,
  };
}
