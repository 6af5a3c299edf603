/**
 * The broker's own word for the silent fallback: with dead-letter-strategy=at-least-once and the
 * overflow at drop-head, rabbit_quorum_queue dlh/5 logs (the same words in v3.10.8 and v4.3.5; measured
 * on 3.10.8 and 4.3.6)
 *   Falling back to dead-letter-strategy at-most-once for queue '<q>' in vhost '<v>' because
 *   configured dead-letter-strategy at-least-once is incompatible with effective overflow strategy
 *   drop-head. To enable dead-letter-strategy at-least-once, set overflow strategy to reject-publish.
 */
export function fallbackWarning(lines: readonly string[], queue: string): string | null {
  const line = lines.find(
    (l) =>
      l.includes('Falling back to dead-letter-strategy at-most-once') &&
      l.includes(`'${queue}'`) &&
      l.includes('drop-head'),
  );
  return line?.trim() ?? null;
}
