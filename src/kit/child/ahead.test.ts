import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startAhead } from './child.js';
import type { LabContext } from '../../lab/lab.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** a process held before its work as a lab's child is: it waits for the start word on stdin, forever */
function heldScript(): URL {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-ahead-'));
  dirs.push(dir);
  const file = path.join(dir, 'held.js');
  fs.writeFileSync(file, "process.stdin.resume(); process.stdin.on('end', () => setInterval(() => {}, 1000));\n");
  return pathToFileURL(file);
}

/** the part of a lab's context runChild reads, with the run's `ended` signal */
function context(ended: AbortSignal): LabContext {
  return {
    lab: 'test',
    config: { amqpUrl: 'amqp://x', pgUrl: 'postgres://x', mgmtUrl: 'http://x' },
    signal: new AbortController().signal,
    ended,
    log: { record: (e: unknown) => e, emit: () => {} },
  } as unknown as LabContext;
}

describe('startAhead', () => {
  it('ends a process the lab never started once the run settles (ctx.ended)', async () => {
    const run = new AbortController();
    const ahead = startAhead(context(run.signal), 'held', heldScript());
    run.abort();
    // the start word never comes: the process was ended with SIGTERM (143), not left running
    const r = await ahead.start();
    expect(r.exitCode).toBe(143);
  });

  it('leaves a started process alone when the run settles after its start', async () => {
    const run = new AbortController();
    // its own bound (1.5 s) ends it in the end: the lab's LabError for a process that overran
    const ahead = startAhead(context(run.signal), 'held', heldScript(), { timeoutMs: 1500 });
    const started = ahead.start();
    run.abort();
    ahead.drop(); // a no-op once started
    const r = await Promise.race([started, new Promise<'running'>((res) => setTimeout(() => res('running'), 500))]);
    expect(r).toBe('running');
    await expect(started).rejects.toThrow(/did not end within 1.5 s/);
  });
});
