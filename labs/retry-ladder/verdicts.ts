/**
 * What the retry-ladder lab concludes from its observations, pure: gaps between deliveries
 * against the tiers' TTLs, and where every message ended (business table, DLQ or parking).
 */

/** every gap is at least the TTL of the tier the message waited in before that delivery */
export function gapsCoverTiers(gaps: number[], ttls: number[]): boolean {
  return (
    gaps.length === ttls.length &&
    gaps.every((g, i) => {
      const ttl = ttls[i];
      return ttl !== undefined && g >= ttl;
    })
  );
}

export type Place = 'business' | 'dlq' | 'parking';

export interface Placement {
  /** per expected id: its one place, 'a+b' when it is in more than one, 'nowhere' when lost */
  where: Record<string, string>;
  /** expected ids found nowhere */
  lost: number;
  /** copies beyond the first of expected ids, plus ids nobody sent */
  extra: number;
}

/** where each expected message ended, from the ids each place holds (an id may repeat) */
export function placement(expected: readonly string[], found: Record<Place, string[]>): Placement {
  const where: Record<string, string> = {};
  let lost = 0;
  let extra = 0;
  for (const id of expected) {
    const places = (Object.keys(found) as Place[]).flatMap((p) => found[p].filter((x) => x === id).map(() => p));
    where[id] = places.length ? places.join('+') : 'nowhere';
    if (places.length === 0) lost += 1;
    else extra += places.length - 1;
  }
  for (const ids of Object.values(found)) extra += ids.filter((x) => !expected.includes(x)).length;
  return { where, lost, extra };
}
