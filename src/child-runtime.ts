/**
 * The child side of runChild: what a lab's separate process (consumer, archiver, producer) uses.
 * It reads the run's URLs and namespace from MQLAB_* variables and prints events on stdout.
 */
import { Broker } from './broker/broker.js';
import { openDb, type Db } from './db/client.js';
import { loadConfig, type Config } from './config.js';
import { eventFields, formatEvent } from './log/events.js';
import { names, type Names } from './names.js';
import { faultsFor } from './fault.js';

export interface ChildRuntime {
  config: Config;
  names: Names;
  /** the process name given by the parent, e.g. consumer-run1 */
  process: string;
  lab: string;
  broker: Broker;
  db: Db;
  /** print one event line: [source] timestamp=… lab=… key=value … */
  emit(source: string, fields: Record<string, unknown>): void;
  /** TEST ONLY: the broken variant `name` of this lab is asked for (MQLAB_FAULT, inherited from the parent) */
  fault(name: string): boolean;
  close(): Promise<void>;
}

export async function childRuntime(): Promise<ChildRuntime> {
  const config = loadConfig();
  const lab = process.env.MQLAB_LAB ?? 'unknown';
  const [broker, { db }] = await Promise.all([Broker.connect(config.amqpUrl), openDb(config.pgUrl, 2)]);
  return {
    config,
    names: names(config.namespace),
    process: process.env.MQLAB_PROCESS ?? 'child',
    lab,
    broker,
    db,
    emit(source, fields) {
      process.stdout.write(formatEvent({ source, fields: eventFields({ lab }, fields) }) + '\n');
    },
    fault: (name) => faultsFor(lab).has(name),
    async close() {
      await broker.close();
      await db.end({ timeout: 1 });
    },
  };
}
