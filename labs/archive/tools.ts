/**
 * `mqlab archive purge --older-than 30d` (retention) and `mqlab archive list [--status S]`
 * (what an operator reads). Handlers for the engine's lab tools: they return plain lines.
 */
import { type ToolHandler, formatDuration } from '../../src/kit/index.js';
import type { ListOptions, PurgeOptions } from './options.js';
import { names } from './names.js';
import { listArchive, purgeArchive, type ArchiveRow } from './store.js';
import { renderTable, utc, type Column } from './table.js';

export const purge: ToolHandler<PurgeOptions> = async ({ db, names: n, options }) => {
  const name = names(n);
  const { olderThanMs } = options;
  const r = await purgeArchive(db, name, olderThanMs);
  return {
    lines: [
      `purged ${r.purged.length} row(s) of ${name.archive} archived before ${utc(r.cutoff)} UTC (older than ${formatDuration(olderThanMs)}); ${r.kept} row(s) kept`,
    ],
    code: 0,
  };
};

const COLUMNS: Column<ArchiveRow>[] = [
  { header: 'BUSINESS ID', cell: (r) => r.business_id, max: 24 },
  { header: 'STATUS', cell: (r) => r.status },
  { header: 'ATTEMPTS', cell: (r) => String(r.attempts), align: 'right' },
  { header: 'FIRST DEATH', cell: (r) => `${r.first_death_reason} @ ${r.first_death_queue}` },
  { header: 'LAST DEATH', cell: (r) => r.last_death_reason },
  { header: 'ORIGINAL ROUTE', cell: (r) => `${r.original_exchange || '(default)'} / ${r.original_routing_key}` },
  { header: 'ARCHIVED AT (UTC)', cell: (r) => utc(r.archived_at) },
  { header: 'PAYLOAD', cell: (r) => r.payload, max: 36 },
];

export const list: ToolHandler<ListOptions> = async ({ db, names: n, options }) => {
  const name = names(n);
  const { status, limit } = options;
  const { rows, total, failures } = await listArchive(db, name, status, limit);
  const filter = status ? ` with status ${status}` : '';
  const lines = rows.length ? renderTable(COLUMNS, rows) : [];
  const shown = rows.length < total ? `showing ${rows.length} of ${total}` : `${total}`;
  lines.push(
    `${shown} row(s) in ${name.archive}${filter}; ${failures} letter(s) the table refused are in ${name.failure}`,
  );
  return { lines, code: 0 };
};
