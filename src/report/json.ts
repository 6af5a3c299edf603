import type { LabReport, SessionInfo } from './lab-report.js';
import { formatEvent } from '../log/events.js';
import { maskUrl } from '../core/urls.js';
import type { Config } from '../core/config.js';
import { VERSION } from '../core/version.js';

/** the shape's version (docs/report.schema.json): raised when a field changes meaning or goes away */
const SCHEMA_VERSION = 2;

export type JsonDocument = ReturnType<typeof jsonDocument>;
export type JsonLab = JsonDocument['labs'][number];

/** --json (and --html, drawn from this same document): one document for the whole run, described by docs/report.schema.json */
export function jsonDocument(session: SessionInfo, reports: LabReport[], config: Config) {
  return {
    schemaVersion: SCHEMA_VERSION,
    mqlabVersion: VERSION,
    result: reports.some((r) => r.environment)
      ? 'error'
      : reports.some((r) => r.status === 'failed' || r.status === 'error')
        ? 'failed'
        : 'passed',
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
      checks: r.checks.map((c) => ({
        name: c.name,
        expected: c.expected,
        actual: c.actual,
        compare: c.compare ?? 'eq',
        pass: c.pass,
        ...(c.skipped !== undefined ? { skipped: c.skipped } : {}),
      })),
      facts: r.facts,
      ...(r.skipped ? { skipped: r.skipped } : {}),
      ...(r.error ? { error: r.error } : {}),
      // a service lost or refused during the lab: not a failed experiment
      ...(r.environment ? { outcome: 'error', error: { kind: 'environment', ...r.environment } } : {}),
      // a run of a deliberately broken variant (MQLAB_FAULT) says so: its FAILs are the point, not a finding
      ...(r.faults?.length ? { faults: r.faults } : {}),
      ...(r.namespace !== undefined ? { namespace: r.namespace } : {}),
      timings: roundTimings(r.timings),
      ...(r.window ? { window: r.window } : {}),
      events: r.events.map((e) => ({
        source: e.source,
        ...(e.process ? { process: e.process } : {}),
        ...e.fields,
        line: formatEvent(e),
        ...(e.view ? { view: e.view } : {}),
      })),
      ...(r.depths ? { depths: r.depths } : {}),
      ...(r.topology ? { topology: r.topology } : {}),
    })),
  };
}

function roundTimings(t: LabReport['timings']) {
  return { setupMs: Math.round(t.setupMs), runMs: Math.round(t.runMs), totalMs: Math.round(t.totalMs) };
}
