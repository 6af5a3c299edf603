import type { LabContext } from '../lab/lab.js';

const FIRST_EVERY_MS = 5000;
const LATER_EVERY_MS = 30_000;

/**
 * Run `work`, printing `message(elapsed seconds)` as progress every 5 s while it lasts, every 30 s
 * after the first 30 s: a long wait on the broker (a timer, a statistics sample) says what it waits for.
 */
export async function ticking<T>(
  ctx: Pick<LabContext, 'now' | 'progress'>,
  message: (s: number) => string,
  work: () => Promise<T>,
): Promise<T> {
  const started = ctx.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const s = (ctx.now() - started) / 1000;
    timer = setTimeout(
      () => (ctx.progress(message(Math.round((ctx.now() - started) / 1000))), tick()),
      s < 30 ? FIRST_EVERY_MS : LATER_EVERY_MS,
    );
  };
  tick();
  try {
    return await work();
  } finally {
    clearTimeout(timer);
  }
}
