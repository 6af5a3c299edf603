import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { CONFIG, mqlab, useNamespace } from './helpers.js';
import { linkTable } from '../src/services/link-cut.js';

useNamespace(import.meta.url); // no lab runs here; the rule is one namespace per file

// security review D12: after a killed `partition`, `mqlab status` called the cut-off node "NOT RUNNING" and
// exited 0, saying nothing of the nft table the run left. The set's table, made as a killed run leaves it
// (empty: it drops nothing, so the suite's single node serves on), must be named and fail `status`.
const table = linkTable(CONFIG.ports);
const nft = (args: string[]) => execa('nft', args, { reject: false }).catch(() => ({ exitCode: -1 }));
const haveNft = process.getuid?.() === 0 && (await nft(['--version'])).exitCode === 0;

describe.skipIf(!haveNft)('mqlab status names a fault a killed run left', () => {
  afterEach(async () => {
    await nft(['delete', 'table', 'inet', table]);
  });

  it('D12: the set’s link-cut table left by a killed run: named, `mqlab up` to undo it, exit 2', async () => {
    const clean = await mqlab(['status']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).not.toContain('LEFT BY AN EARLIER RUN');
    expect((await nft(['add', 'table', 'inet', table])).exitCode).toBe(0);
    const r = await mqlab(['status']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain(
      `LEFT BY AN EARLIER RUN (\`mqlab up\` undoes it):\n  the links between the nodes are cut (nft table inet ${table}): a partition run was killed`,
    );
    expect(r.stderr.trim()).toBe('mqlab: an earlier run left a fault in the cluster\n  → run `mqlab up`: it undoes it');
    const json = await mqlab(['status', '--json']);
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as { leftFaults: string[] }).leftFaults).toEqual([
      `the links between the nodes are cut (nft table inet ${table}): a partition run was killed`,
    ]);
  });
});
