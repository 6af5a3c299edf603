import { describe, expect, it } from 'vitest';
import { archiveIn } from './debian-root.js';

describe('the Debian archive the chroot backend uses is the one apt is configured with', () => {
  it('reads deb822 and one-line sources, skipping security and other archives', () => {
    const deb822 =
      'Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\nTypes: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n';
    expect(archiveIn([deb822])).toBe('http://mirror.example/debian');
    expect(
      archiveIn([
        'deb https://deb.nodesource.com/node_20.x nodistro main',
        'deb [arch=amd64] http://ftp.example.org/debian/ bookworm main',
      ]),
    ).toBe('http://ftp.example.org/debian/');
    expect(archiveIn(['deb http://archive.ubuntu.com/ubuntu noble main'])).toBeNull();
  });
});
