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
