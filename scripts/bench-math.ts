export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  // 1 <= mid < s.length: both indexes exist
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** median / floor, or null for a lab that needs no waits (floor 0) */
export function ratio(medianMs: number, floorMs: number): number | null {
  return floorMs > 0 ? medianMs / floorMs : null;
}

/**
 * How long a lab's whole process may take: 1.5 × its floor (the waits the experiment itself makes,
 * with the services' own) plus the process starts it needs (its own and each child's, `startMs` each).
 * A lab without waits (floor 0) is all work — a few dozen round trips — which 1.5 × 0 would not allow
 * at all: its work may take half a start per start (1.5 × its starts in all).
 */
export function allowedWallMs(floorMs: number, starts: number, startMs: number): number {
  return floorMs > 0 ? 1.5 * floorMs + starts * startMs : 1.5 * starts * startMs;
}

/** what the schedule floor needs of a lab: its floor, and whether it must run alone */
interface Floored {
  floorMs: number;
  disruptive?: boolean;
}

/**
 * a lab's floor in one run: its fixed waits plus what the services themselves took in that run (a
 * node's stop and boot, the database's stop and start: the lab's `serviceWaitMs`, from the run's
 * --json facts); the fixed waits alone when
 * the run lacks them (a failed run, no --json document)
 */
export function runFloorMs(
  lab: { floorMs: number; serviceWaitMs?: (facts: Record<string, unknown>) => number | null },
  facts: Record<string, unknown> | undefined,
): number {
  return lab.floorMs + ((facts && lab.serviceWaitMs?.(facts)) ?? 0);
}

/**
 * The floor of `mqlab all --jobs J`: the disruptive labs one after another, alone; the others
 * packed J at a time by their floors (longest first, each onto the lane that frees first, as the
 * runner starts them: src/engine/jobs.ts longestFirst). No run of that schedule can end sooner than its
 * floors allow; with J = 1 it is the sum of the floors.
 */
export function scheduleFloorMs(labs: readonly Floored[], jobs: number): number {
  const alone = labs.filter((l) => l.disruptive).reduce((sum, l) => sum + l.floorMs, 0);
  const lanes = Array.from({ length: Math.max(1, jobs) }, () => 0);
  const packed = labs.filter((l) => !l.disruptive).sort((a, b) => b.floorMs - a.floorMs);
  for (const lab of packed) {
    const i = lanes.indexOf(Math.min(...lanes));
    lanes[i] = (lanes[i] ?? 0) + lab.floorMs;
  }
  return alone + Math.max(...lanes);
}

/**
 * the bench's arguments it does not know, or a valued flag without its value: each is one line of
 * the usage error (a misspelt flag used to run the whole bench on whatever services the variables named)
 */
export function argProblems(args: readonly string[], valued: readonly string[], booleans: readonly string[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (valued.includes(a)) {
      const v = args[i + 1];
      if (v === undefined || v.startsWith('--')) problems.push(`${a} needs a value`);
      else i++;
    } else if (!booleans.includes(a)) problems.push(`unknown argument '${a}'`);
  }
  return problems;
}
