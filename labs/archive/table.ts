/** A plain-text table for a terminal: a header row, columns padded to their widest cell. */
export interface Column<R> {
  header: string;
  cell: (row: R) => string;
  align?: 'left' | 'right';
  /** cut longer cells to this many characters, ending with … */
  max?: number;
}

export function renderTable<R>(columns: Column<R>[], rows: R[]): string[] {
  const text = (c: Column<R>, r: R) => clip(oneLine(c.cell(r)), c.max);
  const sized = columns.map((c) => ({ ...c, width: Math.max(c.header.length, ...rows.map((r) => text(c, r).length)) }));
  const line = (value: (c: Column<R>) => string) =>
    sized
      .map((c) => (c.align === 'right' ? value(c).padStart(c.width) : value(c).padEnd(c.width)))
      .join('  ')
      .trimEnd();
  return [line((c) => c.header), ...rows.map((r) => line((c) => text(c, r)))];
}

/** 2026-05-01T10:00:01.234Z → 2026-05-01 10:00:01 (UTC) */
export function utc(d: Date | null): string {
  return d ? d.toISOString().slice(0, 19).replace('T', ' ') : '-';
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ');

function clip(s: string, max?: number): string {
  return max !== undefined && s.length > max ? s.slice(0, max - 1) + '…' : s;
}
