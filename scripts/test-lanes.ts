/** `npm test`'s second set of services, for the disruptive labs' files (scripts/test.ts) */

/** its port offset: 5000 above the first set's, or below where that would pass 30000 (the highest offset) */
export const disruptiveOffset = (offset: number) => (offset + 5000 <= 30000 ? offset + 5000 : offset - 5000);
