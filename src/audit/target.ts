/**
 * The RabbitMQ line the audit judges for: `--target-version X.Y[.Z]`, else the version the file or
 * the broker names, else 4.3. Versions compare as [major, minor, patch]; a version without a patch
 * ("4.3") stands for its first release where a boundary falls inside the minor (4.3.0), and each
 * finding that depends on it names the releases it applies to.
 */
import { UsageError } from '../core/errors.js';

export type Version = readonly [number, number, number];

/** where no version is given or known: the newest line mqlab runs */
export const DEFAULT_TARGET = '4.3';

/** "4.3", "4.3.6", "3.8.0+rc.1.5.g9148053", "3.7.0-alpha.381": the numbers, or null */
export function parseVersion(raw: unknown): Version | null {
  if (typeof raw !== 'string') return null;
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(raw.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

export function parseTarget(raw: string): Version {
  const v = /^\d+\.\d+(\.\d+)?$/.test(raw) ? parseVersion(raw) : null;
  if (!v || v[0] < 3 || v[0] > 9)
    throw new UsageError(
      `invalid --target-version '${raw}'`,
      'give the RabbitMQ line you are going to, e.g. --target-version 4.3 (or 4.0, 3.13, 4.3.6)',
    );
  return v;
}

const boundaries = new Map<string, Version>();

/** is `v` at or after `at` ("4.3.0") */
export function atLeast(v: Version, at: string): boolean {
  let w = boundaries.get(at);
  if (!w) boundaries.set(at, (w = parseVersion(at)!));
  for (let k = 0; k < 3; k++) if (v[k] !== w[k]) return v[k]! > w[k]!;
  return true;
}

export const versionText = (v: Version) => v.join('.');

/** does the text name a patch release ("4.3.6"), not only a line ("4.3") */
export const exactVersion = (raw: unknown) => typeof raw === 'string' && /^\d+\.\d+\.\d+/.test(raw.trim());
