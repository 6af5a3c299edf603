import type { LabReport, SessionInfo } from '../runner.js';
import { formatEvent } from '../log/events.js';
import { maskUrl } from '../urls.js';
import type { Config } from '../config.js';

/** --json: one document for the whole run (one lab or `all`) */
export function jsonDocument(session: SessionInfo, reports: LabReport[], config: Config) {
  return {
    result: reports.some((r) => r.environment) ? 'error' : reports.some((r) => r.status === 'failed' || r.status === 'error') ? 'failed' : 'passed',
    broker: session.broker,
    postgres: session.postgres,
    capabilities: session.capabilities,
    namespace: config.namespace || null,
    urls: { amqp: maskUrl(config.amqpUrl), pg: maskUrl(config.pgUrl), mgmt: maskUrl(config.mgmtUrl) },
    labs: reports.map((r) => ({
      lab: r.lab,
      title: r.title,
      status: r.status,
      lines: r.lines,
      checks: r.checks.map((c) => ({ name: c.name, expected: c.expected, actual: c.actual, compare: c.compare ?? 'eq', pass: c.pass })),
      facts: r.facts,
      ...(r.skipped ? { skipped: r.skipped } : {}),
      ...(r.error ? { error: r.error } : {}),
      // a service lost or refused during the lab: not a failed experiment
      ...(r.environment ? { outcome: 'error', error: { kind: 'environment', ...r.environment } } : {}),
      timings: roundTimings(r.timings),
      events: r.events.map((e) => ({ source: e.source, ...e.fields, line: formatEvent(e) })),
    })),
  };
}

function roundTimings(t: LabReport['timings']) {
  return { setupMs: Math.round(t.setupMs), runMs: Math.round(t.runMs), totalMs: Math.round(t.totalMs) };
}
