import { describe, expect, it } from 'vitest';
import { renderTable, utc, type Column } from './table.js';

interface Row {
  id: string;
  n: number;
  text: string;
}
const columns: Column<Row>[] = [
  { header: 'ID', cell: (r) => r.id },
  { header: 'N', cell: (r) => String(r.n), align: 'right' },
  { header: 'TEXT', cell: (r) => r.text, max: 8 },
];

describe('renderTable', () => {
  it('pads every column to its widest cell, numbers to the right', () => {
    expect(
      renderTable(columns, [
        { id: 'A1', n: 1, text: 'short' },
        { id: 'A1002', n: 12, text: 'x' },
      ]),
    ).toEqual(['ID      N  TEXT', 'A1      1  short', 'A1002  12  x']);
  });

  it('cuts long cells and folds newlines so one row stays one line', () => {
    const [, row] = renderTable(columns, [{ id: 'A', n: 1, text: 'a\nb long text' }]);
    expect(row).toBe('A   1  a b lon…');
  });

  it('prints only the header for no rows', () => {
    expect(renderTable(columns, [])).toEqual(['ID  N  TEXT']);
  });
});

describe('utc', () => {
  it('prints seconds in UTC, or - for no time', () => {
    expect(utc(new Date('2026-05-01T10:00:01.234Z'))).toBe('2026-05-01 10:00:01');
    expect(utc(null)).toBe('-');
  });
});
