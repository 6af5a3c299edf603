/**
 * The version rule of the ordering lab, as pure functions (docs/labs/ordering.md: a message whose version is
 * older than the stored one is marked stale, not applied).
 */
export type Outcome = 'applied' | 'stale' | 'duplicate';

/** what a versioned consumer does with `incoming`, given the stored version (null: no row yet) */
export function outcomeOf(incoming: number, stored: number | null): Outcome {
  if (stored === null || stored < incoming) return 'applied';
  return stored > incoming ? 'stale' : 'duplicate';
}

/** what a "last write wins" consumer ends with: whatever it processed last (null: nothing) */
export function lastWriteWins(processingOrder: number[]): number | null {
  return processingOrder.at(-1) ?? null;
}

/** published event ids that are neither applied nor recorded stale: lost */
export function lostEvents(published: string[], applied: string[], stale: string[]): string[] {
  const settled = new Set([...applied, ...stale]);
  return published.filter((id) => !settled.has(id));
}
