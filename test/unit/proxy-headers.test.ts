// What the proxy adds to every page: a nonce CSP, and HSTS when Triage is served over HTTPS.
import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it } from 'vitest';
import { proxy } from '@/proxy';

const before = process.env.APP_URL;
afterEach(() => {
  if (before === undefined) delete process.env.APP_URL;
  else process.env.APP_URL = before;
});

describe('the proxy', () => {
  it('sends Strict-Transport-Security when APP_URL is https, and not over plain HTTP', () => {
    process.env.APP_URL = 'https://triage.example.com';
    const hsts = proxy(new NextRequest('https://triage.example.com/inbox')).headers.get('strict-transport-security');
    expect(hsts).toMatch(/^max-age=(\d+); includeSubDomains$/);
    expect(Number(/max-age=(\d+)/.exec(hsts!)![1])).toBeGreaterThanOrEqual(31_536_000);
    process.env.APP_URL = 'http://127.0.0.1:3000';
    expect(proxy(new NextRequest('http://127.0.0.1:3000/inbox')).headers.get('strict-transport-security')).toBeNull();
  });
});
