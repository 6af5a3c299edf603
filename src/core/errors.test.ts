import { describe, expect, it } from 'vitest';
import { EnvError, Interrupted, LabError, MqlabError, TimedOut, UsageError } from './errors.js';
import { ServiceLost } from './lost.js';

describe('each error class carries the exit code main ends with (README: 2 usage/environment, 130 interrupted)', () => {
  it.each([
    [new EnvError('RabbitMQ at amqp://x: unreachable'), 2],
    [new UsageError('--jobs takes 1 to 32'), 2],
    [new ServiceLost('PostgreSQL', 'postgres://app:pw@127.0.0.1:5432/lab', 'connection closed'), 2],
    [new Interrupted(), 130],
    [new LabError('the consumer never started'), 1],
    [new TimedOut(1500, 'the redelivery'), 1],
  ] as const)('%s: exit %i', (err, code) => {
    expect(err).toBeInstanceOf(MqlabError);
    expect(err.exitCode).toBe(code);
  });

  // the kind names the --junit <error type> of a run that ended early (main.ts runEnd)
  it.each([
    [new EnvError('RabbitMQ at amqp://x: unreachable'), 'environment'],
    [new UsageError('--jobs takes 1 to 32'), 'usage'],
    [new ServiceLost('RabbitMQ', 'amqp://h', 'connection closed'), 'environment'],
    [new Interrupted(), 'interrupted'],
    [new LabError('the consumer never started'), 'internal'],
    [new TimedOut(1500, 'the redelivery'), 'internal'],
  ] as const)('%s: kind %s', (err, kind) => {
    expect(err.kind).toBe(kind);
  });
});
