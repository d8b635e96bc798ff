// Which Chromium the browser tests drive (scripts/lib/chromium.mjs): the named one, then Debian's,
// then Playwright's download; none is null (the runner then installs Debian's or says what to install).
import { chromium } from '@playwright/test';
import { describe, expect, it } from 'vitest';
import { DEBIAN_CHROMIUM, findChromium } from '../../scripts/lib/chromium.mjs';

const PLAYWRIGHT = '/root/.cache/ms-playwright/chromium-1/chrome-linux64/chrome';
const on = (...present: string[]) => ({ exists: (p: string) => present.includes(p), playwrightPath: () => PLAYWRIGHT });

describe('findChromium', () => {
  it('takes CHROMIUM_PATH first', () => {
    expect(findChromium({ env: { CHROMIUM_PATH: '/opt/chrome' }, ...on('/opt/chrome', DEBIAN_CHROMIUM, PLAYWRIGHT) })).toEqual({
      path: '/opt/chrome',
      from: 'CHROMIUM_PATH',
    });
  });

  it("then Debian's, then Playwright's own", () => {
    expect(findChromium({ env: {}, ...on(DEBIAN_CHROMIUM, PLAYWRIGHT) })).toEqual({ path: DEBIAN_CHROMIUM, from: 'debian' });
    expect(findChromium({ env: {}, ...on(PLAYWRIGHT) })).toEqual({ path: PLAYWRIGHT, from: 'playwright' });
  });

  it('finds none on a machine without one', () => {
    expect(findChromium({ env: {}, ...on() })).toBeNull();
  });

  it('never replaces a CHROMIUM_PATH that names nothing with another browser', () => {
    expect(() => findChromium({ env: { CHROMIUM_PATH: '/nope/chrome' }, ...on(DEBIAN_CHROMIUM) })).toThrow(
      'CHROMIUM_PATH=/nope/chrome does not exist: point it at a Chromium or unset it',
    );
  });

  it("answers Playwright's real download path by default", () => {
    const downloaded = chromium.executablePath();
    expect(findChromium({ env: {}, exists: (p) => p === downloaded })).toEqual({ path: downloaded, from: 'playwright' });
  });
});
