import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { boardHtml } from './board-page.js';

describe("the board's page", () => {
  it('its script parses, and it fetches nothing but its own /events', () => {
    const html = boardHtml('mqlab class board');
    const script = html.split('<script>')[1]!.split('</script>')[0]!;
    // compiled, not run (vm.Script parses without running)
    expect(() => new vm.Script(script)).not.toThrow();
    expect(html).not.toMatch(/https?:\/\//);
    expect(script).toContain("new EventSource('/events')");
  });
});
