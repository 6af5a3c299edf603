import { describe, expect, it } from 'vitest';
import { setPrefix, shellWord } from './set-prefix.js';

describe('setPrefix: the variables a printed command needs to reach this set', () => {
  const root = '/nowhere/mqlab'; // not a clone: the default home is the user's state folder
  const base = { HOME: '/home/ann' };

  it('nothing for the default set', () => {
    expect(setPrefix(base, root)).toBe('');
    expect(setPrefix({ ...base, MQLAB_PORT_OFFSET: '0', MQLAB_HOME: '/home/ann/.local/state/mqlab' }, root)).toBe('');
  });

  it('the offset and the data folder, absolute, when they are not the defaults', () => {
    expect(setPrefix({ ...base, MQLAB_PORT_OFFSET: '1000' }, root)).toBe('MQLAB_PORT_OFFSET=1000 ');
    expect(setPrefix({ ...base, MQLAB_PORT_OFFSET: '1000', MQLAB_HOME: '/srv/.mqlab-system' }, root)).toBe(
      'MQLAB_PORT_OFFSET=1000 MQLAB_HOME=/srv/.mqlab-system ',
    );
  });

  it('a folder with a space or a quote, quoted for the shell', () => {
    expect(shellWord("/srv/ann's sets")).toBe(`'/srv/ann'\\''s sets'`);
    expect(shellWord('/srv/plain-dir_1.x')).toBe('/srv/plain-dir_1.x');
  });
});
