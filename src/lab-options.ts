/** Lab and tool options: flag names to camelCase keys, with the registry defaults. */
import type { LabOption } from './lab.js';

/** option values from parsed flags, camelCased; an option not given takes its registry default */
export function optionValues(options: LabOption[] = [], flags: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const opt of options) {
    const key = camel(opt.flags);
    values[key] = flags[key] ?? opt.default;
  }
  return values;
}

const camel = (flags: string) =>
  /--([a-z0-9-]+)/.exec(flags)![1].replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

