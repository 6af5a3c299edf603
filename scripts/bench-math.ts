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

/** what the schedule floor needs of a lab: its floor, and whether it must run alone */
export interface Floored {
  floorMs: number;
  disruptive?: boolean;
}

/**
 * The floor of `mqlab all --jobs J`: the disruptive labs one after another, alone; the others
 * packed J at a time by their floors (longest first, each onto the lane that frees first, as the
 * runner starts them: src/jobs.ts longestFirst). No run of that schedule can end sooner than its
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
