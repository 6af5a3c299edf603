import { describe, expect, it } from 'vitest';
import { chooseHome, ownsClone } from './home.js';

const base = { root: '/src/mqlab', isClone: false, env: {}, userHome: '/home/ada' };

describe('the data folder', () => {
  it('a clone keeps .mqlab/ in the clone', () => {
    expect(chooseHome({ ...base, isClone: true })).toBe('/src/mqlab/.mqlab');
  });

  it('an installed package uses the per-user state folder, never the package folder', () => {
    expect(chooseHome(base)).toBe('/home/ada/.local/state/mqlab');
    expect(chooseHome({ ...base, env: { XDG_STATE_HOME: '/var/state/ada' } })).toBe('/var/state/ada/mqlab');
    expect(chooseHome({ ...base, env: { XDG_STATE_HOME: 'relative/state' } })).toBe('/home/ada/.local/state/mqlab');
  });

  it('MQLAB_HOME wins everywhere', () => {
    expect(chooseHome({ ...base, isClone: true, env: { MQLAB_HOME: '/data/mq' } })).toBe('/data/mq');
    expect(chooseHome({ ...base, env: { MQLAB_HOME: '/data/mq', XDG_STATE_HOME: '/x' } })).toBe('/data/mq');
  });
});

describe('a clone of another user', () => {
  it('is not their data folder: a student on the teacher’s clone uses their own state folder', () => {
    expect(chooseHome({ ...base, isClone: true, ownsClone: false })).toBe('/home/ada/.local/state/mqlab');
    expect(chooseHome({ ...base, isClone: true, ownsClone: false, env: { MQLAB_HOME: '/data/mq' } })).toBe('/data/mq');
  });

  it('root owns every clone; another uid owns the clone whose .mqlab/ (or, without one, folder) is theirs', () => {
    expect(ownsClone('/nonexistent/clone', 0)).toBe(true);
    const mine = process.getuid?.() ?? 0;
    expect(ownsClone(process.cwd(), mine === 0 ? 4242 : mine)).toBe(mine !== 0);
  });
});
