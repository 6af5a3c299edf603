import { describe, expect, it } from 'vitest';
import { buildProgram, variantsHelp } from './cli.js';
import type { Catalogue, LabMeta } from '../lab/lab.js';
import { listText, quickOutput, topHelp } from './top-help.js';
import { VERSION } from '../core/version.js';

const entry = (name: string, title: string) => ({
  name,
  title,
  load: (): Promise<LabMeta> => Promise.reject(new Error('not loaded by --help')),
});
/** names and titles of every length: a name longer than `status`, titles that wrap once, twice, never */
const catalogue: Catalogue = [
  entry('retry', 'limited delayed retry and poison-message isolation'),
  entry('dead-letter-reasons', 'every way a message dies: expired, maxlen, rejected, delivery_limit'),
  entry(
    'x',
    'a title long enough to wrap twice at the narrower widths, "quoted" words, a (parenthesis) and a very-long-hyphenated-word-that-does-not-break',
  ),
];

/** commander's own --help of the program cli.ts builds, at `width` columns */
function commanderHelp(width: number | undefined): string {
  const signals = { signal: new AbortController().signal, quit: new EventTarget() };
  const program = buildProgram(catalogue, [], signals, () => {});
  program.configureOutput({ getOutHelpWidth: () => width as number }); // undefined: not a terminal (commander: 80)
  return program.helpInformation();
}

describe('the help printed without commander', () => {
  it.each([undefined, 20, 40, 59, 60, 61, 80, 100, 132, 200])("is commander's, line for line, at width %s", (w) => {
    expect(topHelp(catalogue, w ?? 80)).toBe(commanderHelp(w));
  });

  it('answers --help, -h, list and --version alone, and leaves every other command line to commander', () => {
    expect(quickOutput(catalogue, ['--help'], undefined)).toBe(commanderHelp(undefined));
    expect(quickOutput(catalogue, ['-h'], 100)).toBe(commanderHelp(100));
    expect(quickOutput(catalogue, ['list'], undefined)).toBe(listText(catalogue));
    expect(listText(catalogue).split('\n')[1]).toBe(
      'dead-letter-reasons  every way a message dies: expired, maxlen, rejected, delivery_limit',
    );
    expect(quickOutput(catalogue, ['-V'], undefined)).toBe(`${VERSION}\n`);
    for (const args of [[], ['list', '--json'], ['retry'], ['retry', '--help'], ['help'], ['--help', 'all']])
      expect(quickOutput(catalogue, args, undefined)).toBeNull();
  });
});

describe("a lab's --help names its broken variants", () => {
  it('every variant of every lab, with the variable that runs it; nothing for a lab without any', async () => {
    const { registry } = await import('../../labs/registry.js');
    for (const lab of registry) {
      const help = variantsHelp(lab);
      const names = Object.keys(lab.faults);
      if (!names.length) {
        expect(help, lab.name).toBe('');
        continue;
      }
      expect(help, lab.name).toContain(`\n  MQLAB_FAULT=${lab.name}:<variant> mqlab ${lab.name}\n`);
      for (const name of names) expect(help, `${lab.name} ${name}`).toMatch(new RegExp(`^  ${name} `, 'm'));
      for (const line of help.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    }
  });
});
