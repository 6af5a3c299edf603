import { describe, expect, it } from 'vitest';
import {
  CONFIG,
  expectLabPasses,
  mqlab,
  startMqlab,
  upAgainAfterFailure,
  useNamespace,
  useServices,
} from '../../test/helpers.js';
import { Broker } from '../../src/broker/broker.js';

const n = useNamespace('t_broker_restart');

/** does the broker accept the app now? (a fresh connection: the restart closed the old ones) */
async function brokerUp(): Promise<boolean> {
  try {
    await (await Broker.connect(CONFIG.amqpUrl)).close();
    return true;
  } catch {
    return false;
  }
}

upAgainAfterFailure();

describe('broker-restart against the RabbitMQ node and PostgreSQL mqlab started', () => {
  const s = useServices();

  it('passes twice in a row; every id once in the effect table, the queue empty, the node up after each run', async () => {
    await expectLabPasses(['broker-restart'], {
      line: /^broker-restart: restartMs=\d+ heldRedelivered=5 unconfirmedAtRestart=[1-9]\d* resentConfirmed=[1-9]\d* survived=\d+ effectRows=\d+ duplicates=0 missing=0$/,
      pass: {
        brokerPidChanged: 'true',
        brokerRefused: 'ECONNREFUSED',
        heldRedelivered: '5',
        duplicateEffects: '0',
        missingIds: '0',
      },
      check: async (r) => {
        expect(await brokerUp()).toBe(true);
        const effectRows = /effectRows=(\d+)/.exec(r.lines[0] ?? '')?.[1];
        const rows =
          await s.db`SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS ids FROM ${s.db(n.t('brk_effect'))}`;
        expect(rows[0]).toEqual({ n: Number(effectRows), ids: Number(effectRows) });
        const after = await Broker.connect(CONFIG.amqpUrl);
        expect(await after.depth(n.q('brk.work')).finally(() => after.close())).toBe(0);
      },
    });
  }, 300_000);

  it('Ctrl-C while the node is down: the node is started again before mqlab exits 130', async () => {
    const run = startMqlab(['broker-restart', '-v']);
    await run.stderrShows('status=stopped', 120_000);
    expect(await brokerUp()).toBe(false);
    run.child.kill('SIGINT');
    const r = await run.exited(240_000);
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(String(r.stderr)).toMatch(/\[services\] .*service=RabbitMQ .*status=ready/);
    // the user is told the node is back: the lab's own line, or the outage's when the lab stopped before its end
    expect(String(r.stderr)).toMatch(
      /^broker-restart: (RabbitMQ is running again|the node accepts connections again) \((it accepted connections )?\d+ ms after its start\)$/m,
    );
    expect(await brokerUp()).toBe(true);
  }, 300_000);

  it('killed (SIGKILL) while the node is down: `mqlab up` starts it again', async () => {
    const run = startMqlab(['broker-restart', '-v']);
    await run.stderrShows('status=stopped', 120_000);
    run.child.kill('SIGKILL');
    await run.exited(240_000);
    expect(await brokerUp()).toBe(false);
    const up = await mqlab(['up']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stderr).toMatch(/RabbitMQ node \S+ starting/);
    expect(await brokerUp()).toBe(true);
  }, 300_000);
});
