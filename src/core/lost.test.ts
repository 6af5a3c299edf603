import { describe, expect, it } from 'vitest';
import { LossWatch, ServiceLost, isConnectionLoss, lossCause } from './lost.js';
import { EnvError } from './errors.js';
import { LabError } from './errors.js';
import { jsonDocument } from '../report/json.js';
import { junitXml } from '../report/junit.js';
import { renderLab, renderSummary } from '../report/text.js';
import type { LabReport, SessionInfo } from '../report/lab-report.js';
import { capabilities } from '../broker/capabilities.js';
import { loadConfig } from './config.js';

describe('ServiceLost', () => {
  it('is an EnvError (exit 2) naming the service and its masked URL', () => {
    const e = new ServiceLost(
      'PostgreSQL',
      'postgres://app@h:5532/lab?password=s3cret',
      'connection lost during the run (read ECONNRESET)',
    );
    expect(e).toBeInstanceOf(EnvError);
    expect(e.message).toBe(
      'PostgreSQL at postgres://app@h:5532/lab?password=***: connection lost during the run (read ECONNRESET)',
    );
    expect(e.hint).toMatch(/mqlab up.*re-run/);
  });
});

describe('LossWatch', () => {
  it('keeps the first loss, rejects `lost` with it, and tells its listeners once', async () => {
    const w = new LossWatch();
    let told = 0;
    w.onLoss(() => (told += 1));
    const first = new ServiceLost('RabbitMQ', 'amqp://h', 'a');
    w.report(first);
    w.report(new ServiceLost('PostgreSQL', 'postgres://h', 'b'));
    await expect(w.lost).rejects.toBe(first);
    expect(w.first).toBe(first);
    expect(told).toBe(1);
  });

  it("a planned outage's losses are the experiment, also one whose observation began during it and answered after", async () => {
    const w = new LossWatch();
    const pg = (why: string) => new ServiceLost('PostgreSQL', 'postgres://h', why);
    w.expect('PostgreSQL', true);
    const probeBegan = Date.now();
    w.report(pg('during the outage'));
    await new Promise((r) => setTimeout(r, 5));
    w.expect('PostgreSQL', false);
    w.report(pg('the database system is shutting down'), probeBegan); // begun during it, answered after
    expect(w.first).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    const after = pg('a loss observed after the outage');
    w.report(after, Date.now());
    expect(w.first).toBe(after);
  });
});

describe('isConnectionLoss', () => {
  it('knows the socket, postgres.js and amqplib forms', () => {
    for (const e of [
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('write CONNECTION_CLOSED 127.0.0.1:5532'), { code: 'CONNECTION_CLOSED' }),
      new Error('Channel closed'),
      new Error(
        'Connection closed: 320 (CONNECTION-FORCED) with message "CONNECTION_FORCED - broker forced connection closure"',
      ),
      { message: 'fetch failed', cause: { code: 'ECONNREFUSED' } },
    ])
      expect(isConnectionLoss(e), String((e as Error).message)).toBe(true);
  });
  it('does not take a lab error for a lost service', () => {
    expect(isConnectionLoss(new LabError('timed out after 20.0 s waiting for healthy'))).toBe(false);
    expect(isConnectionLoss(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
  });
  it('lossCause is one line', () => {
    expect(lossCause(new Error('Unexpected close\n    at Socket.x (y.js:1:1)'), 'connection lost')).toBe(
      'connection lost (Unexpected close)',
    );
  });
});

describe('reports of a lab stopped by a lost service', () => {
  const report: LabReport = {
    lab: 'retry',
    title: 'limited delayed retry',
    status: 'error',
    lines: [],
    checks: [],
    facts: {},
    error: 'RabbitMQ at amqp://app:***@h/lab: connection lost during the run',
    environment: {
      service: 'RabbitMQ',
      url: 'amqp://app:***@h/lab',
      message: 'RabbitMQ at amqp://app:***@h/lab: connection lost during the run',
    },
    timings: { setupMs: 0, runMs: 0, totalMs: 10 },
    events: [],
  };
  const session: SessionInfo = {
    broker: { product: 'RabbitMQ', version: '3.10.8' },
    postgres: '15',
    capabilities: capabilities('3.10.8'),
  };

  it('--json: result error, the lab outcome error with the service', () => {
    const doc = jsonDocument(session, [report], loadConfig({}, {}));
    expect(doc.result).toBe('error');
    expect(doc.labs[0]).toMatchObject({
      status: 'error',
      outcome: 'error',
      error: { kind: 'environment', service: 'RabbitMQ', url: 'amqp://app:***@h/lab' },
    });
  });

  it('--junit: an <error> of type environment, no <failure>', () => {
    const xml = junitXml([{ report, startedAt: new Date() }]);
    expect(xml).toMatch(
      /<error type="environment: RabbitMQ" message="RabbitMQ at amqp:\/\/app:\*\*\*@h\/lab: connection lost during the run"/,
    );
    expect(xml).not.toContain('<failure');
  });

  it('text: ERROR, not FAIL; the summary row says ERROR', () => {
    expect(renderLab(report, false)).toEqual([
      'ERROR retry: stopped, RabbitMQ was lost or refused (not a failed experiment)',
    ]);
    expect(renderSummary([report], false, 1000)[1]).toMatch(/^retry\s+ERROR/);
  });
});
