import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedMs, recordedTimes, recordTimes, TIMES_FILE } from './lab-times.js';
import { longestFirst } from './jobs.js';
import { MARKER } from '../services/data-folder.js';

const dirs: string[] = [];
const folder = (marked: boolean) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mqlab-times-'));
  dirs.push(d);
  if (marked) fs.writeFileSync(path.join(d, MARKER), '');
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('lab times', () => {
  it('keeps each lab’s last time in an mqlab data folder, merging runs', () => {
    const home = folder(true);
    recordTimes(home, { hold: 4800, retry: 1100 });
    recordTimes(home, { retry: 900 });
    expect(recordedTimes(home)).toEqual({ hold: 4800, retry: 900 });
    expect(fs.readdirSync(home).sort()).toEqual([MARKER, TIMES_FILE].sort());
  });

  it('writes nothing into a folder mqlab did not make, and reads a broken file as none', () => {
    const foreign = folder(false);
    recordTimes(foreign, { hold: 1 });
    expect(fs.readdirSync(foreign)).toEqual([]);
    const home = folder(true);
    fs.writeFileSync(path.join(home, TIMES_FILE), '{"hold": "slow", "retry": 5');
    expect(recordedTimes(home)).toEqual({});
    fs.writeFileSync(path.join(home, TIMES_FILE), '{"hold": "slow", "retry": 5}');
    expect(recordedTimes(home)).toEqual({ retry: 5 });
  });

  it('orders by the recorded time, a lab never timed by its floor', () => {
    const labs = [
      { name: 'a', floorMs: 3000 },
      { name: 'b', floorMs: 0 },
      { name: 'c', floorMs: 1000 },
    ];
    const times = { b: 5500 };
    expect(labs.map((l) => expectedMs(l, times))).toEqual([3000, 5500, 1000]);
    expect(longestFirst(labs, (l) => expectedMs(l, times))).toEqual([1, 0, 2]);
  });
});
