/**
 * How long each lab took when it last ran from this data folder (`lab-times.json` beside the
 * services' data). `mqlab all --jobs N` starts the labs that took longest first, so their waits
 * overlap and the short labs fill the gaps; a lab never timed here is placed by its floor.
 * Only a folder mqlab made (its marker is there) gets the file; a broken or missing file is no file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MARKER } from '../services/data-folder.js';

export const TIMES_FILE = 'lab-times.json';

type LabTimes = Record<string, number>;

export function recordedTimes(home: string): LabTimes {
  try {
    const data: unknown = JSON.parse(fs.readFileSync(path.join(home, TIMES_FILE), 'utf8'));
    if (!data || typeof data !== 'object') return {};
    return Object.fromEntries(
      Object.entries(data).filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] >= 0),
    );
  } catch {
    return {};
  }
}

/** add these labs' times to the file (written whole, then renamed: runs at once never leave half a file) */
export function recordTimes(home: string, times: LabTimes): void {
  if (!Object.keys(times).length || !fs.existsSync(path.join(home, MARKER))) return;
  const file = path.join(home, TIMES_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify({ ...recordedTimes(home), ...times }, null, 1) + '\n');
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true }); // a read-only folder: the order falls back to the floors
  }
}

/** what a lab is expected to take: its last time here, else its floor */
export const expectedMs = (lab: { name: string; floorMs: number }, times: LabTimes): number =>
  times[lab.name] ?? lab.floorMs;
