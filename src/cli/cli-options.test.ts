import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { addSpecOptions, givenOptions } from './cli-options.js';
import { duration, type OptionSpecs } from '../core/options.js';

const specs: OptionSpecs<{ windowMs: number }> = {
  windowMs: {
    flag: '--window <duration>',
    description: 'how long',
    default: '1500ms',
    aliases: ['--window-ms'],
    parse: duration({ min: 1000, max: 30_000, bare: 'ms' }),
  },
};

function parse(args: string[]) {
  const cmd = new Command('lab').exitOverride();
  addSpecOptions(cmd, specs);
  cmd.parse(args, { from: 'user' });
  return { cmd, given: givenOptions(specs, cmd.opts()) };
}

describe('option specs on a command', () => {
  it('hands back the raw string by option key, from the flag or its old name', () => {
    expect(parse(['--window', '2s']).given).toEqual({ windowMs: '2s' });
    expect(parse(['--window-ms', '2000']).given).toEqual({ windowMs: '2000' });
    expect(parse(['--window-ms', '2000', '--window', '3s']).given).toEqual({ windowMs: '3s' });
    expect(parse([]).given).toEqual({});
  });

  it('shows the flag and its default in --help, not the old name', () => {
    const help = parse([]).cmd.helpInformation();
    expect(help).toContain('--window <duration>');
    expect(help).toContain('(default: 1500ms)');
    expect(help).not.toContain('--window-ms');
  });
});
