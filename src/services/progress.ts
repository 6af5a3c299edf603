/** A long child process (download, install, copy) with a progress line at least every 4 s. */
import type { ResultPromise } from 'execa';
import { EnvError } from '../core/errors.js';

export async function withProgress(
  what: string,
  log: (line: string) => void,
  start: () => ResultPromise,
): Promise<void> {
  const began = Date.now();
  log(`${what}…`);
  const child = start();
  let last = '';
  child.all?.on('data', (b: Buffer) => {
    const lines = b
      .toString()
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    last = lines.at(-1) ?? last;
  });
  const tick = setInterval(
    () => log(`${what}: ${Math.round((Date.now() - began) / 1000)} s${last ? ` (${last.slice(0, 100)})` : ''}`),
    4000,
  );
  try {
    await child;
  } catch (err) {
    const e = err as { exitCode?: number; all?: string; shortMessage?: string };
    const tail = (e.all ?? '').trim().split('\n').filter(Boolean).pop() ?? e.shortMessage ?? String(err);
    throw new EnvError(
      `${what} failed: ${tail.slice(0, 300)}`,
      'run `mqlab up` again to redo it; the half-done part is discarded',
    );
  } finally {
    clearInterval(tick);
  }
  log(`${what}: done in ${Math.round((Date.now() - began) / 1000)} s`);
}
