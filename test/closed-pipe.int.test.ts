/**
 * `mqlab list | head -1` and friends: the reader of stdout goes away before mqlab has written
 * everything. mqlab must end quietly (no EPIPE stack trace) with its own exit code.
 */
import { describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CLI, useNamespace } from './helpers.js';

useNamespace(import.meta.url); // no lab runs here; the rule is one namespace per file

/** run `node CLI args | reader` in bash; mqlab's own exit code and stderr */
async function piped(args: string, reader: string) {
  const r = await execa(
    'bash',
    ['-c', `node ${CLI} ${args} 2>"$ERR" | ${reader}; echo "\${PIPESTATUS[0]}"; cat "$ERR" >&2`],
    {
      reject: false,
      env: { ERR: `/tmp/mqlab-closed-pipe-${process.pid}.err`, NO_COLOR: '1' },
    },
  );
  return { mqlabCode: Number(r.stdout.trim().split('\n').at(-1)), stderr: r.stderr };
}

describe('a closed stdout pipe', () => {
  it('mqlab list | head -1: exit 0, nothing on stderr', async () => {
    const r = await piped('list', 'head -1 >/dev/null');
    expect(r.stderr).toBe('');
    expect(r.mqlabCode).toBe(0);
  });

  it('mqlab list | true (the reader is gone before the first write): exit 0, nothing on stderr', async () => {
    const r = await piped('list', 'true');
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
    expect(r.stderr).toBe('');
    expect(r.mqlabCode).toBe(0);
  });
});
