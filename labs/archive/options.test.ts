import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../src/core/options.js';
import { UsageError } from '../../src/core/errors.js';
import { meta } from './meta.js';
import type { LabTool } from '../../src/lab/lab.js';

const tool = (name: string): LabTool<unknown> => meta.tools!.find((t) => t.name === name)!;

describe('archive tool options', () => {
  it('purge --older-than takes a duration with a unit and is required', () => {
    expect(parseOptions(tool('purge').options, { olderThanMs: '30d' })).toEqual({ olderThanMs: 30 * 86_400_000 });
    for (const bad of ['30', '0d', 'soon'])
      expect(() => parseOptions(tool('purge').options, { olderThanMs: bad })).toThrow(UsageError);
    expect(() => parseOptions(tool('purge').options, {})).toThrow('--older-than is required');
  });

  it('list --status takes a lifecycle state in any case; --limit a whole number ≥ 1, 50 by default', () => {
    const list = tool('list').options;
    expect(parseOptions(list, {})).toEqual({ limit: 50 });
    expect(parseOptions(list, { status: 'in_progress', limit: '5' })).toEqual({ status: 'IN_PROGRESS', limit: 5 });
    for (const bad of ['', 'DONE', 'ARCHIVED,FIXED'])
      expect(() => parseOptions(list, { status: bad })).toThrow(UsageError);
    for (const bad of ['0', '-1', '1.5', 'ten', ''])
      expect(() => parseOptions(list, { limit: bad })).toThrow(UsageError);
  });
});
