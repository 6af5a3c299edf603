/** A plain-text table for a terminal: a header row, columns padded to their widest cell. */
export interface Column<R> {
  header: string;
  cell: (row: R) => string;
  align?: 'left' | 'right';
  /** cut longer cells to this many characters, ending with … */
  max?: number;
}

export function renderTable<R>(columns: Column<R>[], rows: R[]): string[] {
  const cells = rows.map((r) => columns.map((c) => clip(oneLine(c.cell(r)), c.max)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i].align === 'right' ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)];
}

/** 2026-05-01T10:00:01.234Z → 2026-05-01 10:00:01 (UTC) */
export function utc(d: Date | null): string {
  return d ? d.toISOString().slice(0, 19).replace('T', ' ') : '-';
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ');

function clip(s: string, max?: number): string {
  return max !== undefined && s.length > max ? s.slice(0, max - 1) + '…' : s;
}
