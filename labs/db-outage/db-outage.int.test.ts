import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { runLabs } from '../../src/engine/run-labs.js';
import { planLab } from '../../src/lab/lab.js';
import { catalogue } from '../catalogue.js';
import { openDb } from '../../src/db/client.js';
import { closeConnections } from '../../src/services/admin.js';

const n = useNamespace('t_db_outage');

/** does PostgreSQL accept the app now? (a fresh connection: the outage closed the pooled ones) */
async function postgresUp(): Promise<boolean> {
  try {
    const { db } = await openDb(CONFIG.pgUrl, 1);
    await db.end({ timeout: 1 });
    return true;
  } catch {
    return false;
  }
}

upAgainAfterFailure();

describe('db-outage against the PostgreSQL and RabbitMQ mqlab started', () => {
  const s = useServices();

  it('passes twice in a row; each id has one effect row and PostgreSQL is up again after each run', async () => {
    await expectLabPasses(['db-outage'], {
      line: /^db-outage: downMs=\d+ failedCommits=\d+ heldDelivery=redelivered redeliveries=\d+ effectRows=5 duplicateEffects=0 lostIds=0$/,
      pass: {
        postgresExited: 'true',
        postgresRefused: 'ECONNREFUSED',
        heldDeliveryOutcome: 'redelivered',
        readyWhileHeld: '2',
        ackedBeforeCommit: '0',
        lostIds: '0',
        duplicateEffects: '0',
        effectRows: '5',
      },
      check: async () => {
        expect(await postgresUp()).toBe(true);
        const rows =
          await s.db`SELECT message_id, count(*)::int AS n FROM ${s.db(n.t('dbo_effect'))} GROUP BY message_id ORDER BY message_id`;
        expect(rows.map((r) => `${r.message_id}=${r.n}`)).toEqual([
          'dbo-001=1',
          'dbo-002=1',
          'dbo-003=1',
          'dbo-004=1',
          'dbo-005=1',
        ]);
        expect(await s.broker.depth(n.q('dbo.work'))).toBe(0);
      },
    });
  });

  it('a hold budget longer than the outage: the consumer keeps the delivery and commits it once PostgreSQL is back (no redelivery)', async () => {
    const r = await mqlab(['db-outage', '--down', '1s', '--hold-budget', '60s']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('PASS heldDeliveryOutcome: kept');
    expect(r.lines[0]).toMatch(/ redeliveries=0 /);
  });

  it('Ctrl-C while PostgreSQL is down starts it again before mqlab exits 130', async () => {
    const run = startMqlab(['db-outage', '-v', '--down', '20s']);
    await run.stderrShows('status=stopped', 60_000);
    expect(await postgresUp()).toBe(false);
    run.child.kill('SIGINT');
    const r = await run.exited(90_000);
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(String(r.stderr)).toMatch(/\[services\] .*service=PostgreSQL .*status=ready/);
    expect(String(r.stderr)).toMatch(
      /^db-outage: PostgreSQL is running again \(it accepted connections \d+ ms after its start\)$/m,
    );
    expect(await postgresUp()).toBe(true);
  });

  it('killed (SIGKILL) while PostgreSQL is down: `mqlab up` starts it again', async () => {
    const run = startMqlab(['db-outage', '-v', '--down', '20s']);
    await run.stderrShows('status=stopped', 60_000);
    run.child.kill('SIGKILL');
    await run.exited(90_000);
    expect(await postgresUp()).toBe(false);
    const up = await mqlab(['up']);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stderr).toMatch(/PostgreSQL cluster started/);
    expect(await postgresUp()).toBe(true);
  });

  it('RabbitMQ lost while PostgreSQL is down: exit 2 naming RabbitMQ, and PostgreSQL runs again before mqlab exits', async () => {
    // the broker closes the run's connections (management API: connection-forced), as a broker that went away would
    const vhostConnections = async () =>
      (await s.mgmt.request<{ name: string }[]>(
        'GET',
        `/api/vhosts/${encodeURIComponent(CONFIG.vhost)}/connections`,
      )) ?? [];
    const before = new Set((await vhostConnections()).map((c) => c.name));
    const run = startMqlab(['db-outage', '-v', '--down', '20s']);
    await run.stderrShows('status=stopped', 60_000);
    let theirs: string[] = [];
    // the API lists a connection once its first statistics arrived (about a second)
    for (
      const end = Date.now() + 15_000;
      theirs.length === 0 && Date.now() < end;
      await new Promise((r) => setTimeout(r, 200))
    ) {
      theirs = (await vhostConnections()).map((c) => c.name).filter((c) => !before.has(c));
    }
    expect(theirs.length).toBeGreaterThan(0);
    // through the node's CLI: the management account (policymaker,monitoring) may not close another user's connections
    await closeConnections(CONFIG, theirs, 'the broker went away (test)'); // one may have closed meanwhile
    const r = await run.exited(90_000);
    const stderr = String(r.stderr);
    expect(r.exitCode, stderr).toBe(2);
    expect(stderr).toMatch(/^mqlab: RabbitMQ at amqp:\/\/app:\*\*\*@\S+: /m);
    // the outage's own end: the lab started what it stopped, and the run waited for it
    expect(stderr).toMatch(/\[services\] .*service=PostgreSQL .*status=ready/);
    expect(await postgresUp()).toBe(true);
  });

  it('refused in one line (exit 2) against services mqlab did not start; in a run of several labs it is SKIP with the reason', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-not-started-'));
    try {
      const r = await mqlab(['db-outage'], { MQLAB_HOME: home });
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(
        `mqlab: db-outage needs the services \`mqlab up\` started (no backend recorded in ${home}; this lab stops and starts them)`,
      );
      const elsewhere = await mqlab(['db-outage', '--amqp-url', CONFIG.amqpUrl.replace('127.0.0.1', '127.0.0.2')]);
      expect(elsewhere.code).toBe(2);
      expect(elsewhere.stderr).toMatch(
        /^mqlab: db-outage needs the services `mqlab up` started: MQLAB_AMQP_URL is amqp:\/\/app:\*\*\*@127\.0\.0\.2:/,
      );
      const hooks = { stderr: () => {}, waitForEnter: async () => {} };
      const meta = await catalogue.find((e) => e.name === 'db-outage')!.load();
      const { reports } = await runLabs({
        plan: [planLab(meta), planLab(meta)],
        config: { ...CONFIG, home },
        options: { verbose: false, step: false },
        hooks,
        signal: new AbortController().signal,
      });
      expect(reports.map((x) => [x.status, x.skipped])).toEqual([
        [
          'skipped',
          `needs the services \`mqlab up\` started (no backend recorded in ${home}; this lab stops and starts them)`,
        ],
        [
          'skipped',
          `needs the services \`mqlab up\` started (no backend recorded in ${home}; this lab stops and starts them)`,
        ],
      ]);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
