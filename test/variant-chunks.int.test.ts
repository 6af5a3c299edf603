/**
 * The broken variants ship in the package (dist/cli/chunks/variants-<lab>-*.js: a teacher runs them
 * from `npx mqlab` too) and a normal run loads none of them: the modules every process of a run
 * required (the lab's own and its child processes', recorded at their exit through NODE_OPTIONS) are
 * read, and no variants chunk is among them unless MQLAB_FAULT names the lab.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, mqlab, useNamespace } from './helpers.js';

useNamespace(import.meta.url);

const CHUNKS = path.join(ROOT, 'dist', 'cli', 'chunks');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-variant-chunks-'));
const recorder = path.join(tmp, 'loaded.cjs');
// every process of the run appends the files it required, at its exit
fs.writeFileSync(
  recorder,
  `process.on('exit', () => require('node:fs').appendFileSync(process.env.MQLAB_LOADED_LOG, Object.keys(require.cache).join('\\n') + '\\n'));\n`,
);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** the variants chunks the processes of `mqlab <args>` required, and its exit code */
async function variantChunksLoaded(args: string[], fault?: string): Promise<{ chunks: string[]; code: number }> {
  const log = path.join(tmp, `${args[0]}-${fault ?? 'correct'}.txt`);
  const r = await mqlab(args, {
    NODE_OPTIONS: `--require ${recorder}`,
    MQLAB_LOADED_LOG: log,
    ...(fault ? { MQLAB_FAULT: fault } : {}),
  });
  const loaded = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
  expect(
    loaded.some((f) => f.startsWith(CHUNKS)),
    'the run loads the bundle',
  ).toBe(true);
  const chunks = [
    ...new Set(loaded.filter((f) => path.basename(f).startsWith('variants-')).map((f) => path.basename(f))),
  ];
  return { chunks, code: r.code };
}

describe('broken variants: shipped in chunks of their own, loaded only when asked for', () => {
  it('every lab has its variants chunk in the bundle', () => {
    const labs = fs
      .readdirSync(path.join(ROOT, 'labs'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(ROOT, 'labs', d.name, 'variants.ts')))
      .map((d) => d.name);
    const chunks = fs.readdirSync(CHUNKS).filter((f) => f.startsWith('variants-'));
    for (const lab of labs)
      expect(
        chunks.some((c) => new RegExp(`^variants-${lab}-[\\w-]{8}\\.js$`).test(c)),
        lab,
      ).toBe(true);
  });

  it('a normal run of a lab and of one with child processes loads none', async () => {
    const [retry, archive] = await Promise.all([variantChunksLoaded(['retry']), variantChunksLoaded(['archive'])]);
    expect(retry).toEqual({ chunks: [], code: 0 });
    expect(archive).toEqual({ chunks: [], code: 0 });
  });

  it("a broken run loads its own lab's chunk: in the lab's process, and in a child process that asks", async () => {
    const [retry, archive] = await Promise.all([
      variantChunksLoaded(['retry'], 'retry:skip-attempt'),
      variantChunksLoaded(['archive'], 'archive:no-dedupe'),
    ]);
    expect(retry.chunks.map((c) => c.replace(/-[\w-]{8}\.js$/, ''))).toEqual(['variants-retry']);
    expect(archive.chunks.map((c) => c.replace(/-[\w-]{8}\.js$/, ''))).toEqual(['variants-archive']);
  });
});
