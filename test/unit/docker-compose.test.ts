// docker-compose.yml is what most people deploy from, so it must not open a deployment to strangers:
// no demo users (their password is in the README) outside the demo profile, nothing published on
// every interface, no credential in the file itself.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Service {
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { host_ip?: string; published?: string | number; target?: number })[];
  profiles?: string[];
  depends_on?: string[] | Record<string, unknown>;
  healthcheck?: { test?: string | string[] };
}

const text = readFileSync('docker-compose.yml', 'utf8');
// merge: the services share their environment through `<<: *triage`.
const services = (parse(text, { merge: true }) as { services: Record<string, Service> }).services;
const entries = Object.entries(services);
const words = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(' ') : (v ?? ''));
const runs = (s: Service) => `${words(s.entrypoint)} ${words(s.command)}`;
const inDemo = (s: Service) => (s.profiles ?? []).includes('demo');
const environment = (s: Service): [string, string][] =>
  Array.isArray(s.environment)
    ? s.environment.map((kv) => [kv.split('=')[0]!, kv.slice(kv.indexOf('=') + 1)])
    : Object.entries(s.environment ?? {}).map(([k, v]) => [k, String(v ?? '')]);
const SEED = /prisma\/seed|db:seed/;
// `${VAR:?message}`: compose refuses to start without VAR, and the file holds no value of its own.
const REQUIRED = /^\$\{[A-Z][A-Z0-9_]*:\?[^}]+\}$/;

describe('docker-compose.yml', () => {
  it('runs the seed only in a service of the demo profile, which says it is the demo', () => {
    const seeding = entries.filter(([, s]) => SEED.test(runs(s)));
    expect(seeding.length).toBeGreaterThan(0);
    for (const [name, s] of seeding) {
      expect(inDemo(s), name).toBe(true);
      expect(Object.fromEntries(environment(s)).TRIAGE_DEMO, name).toBe('1');
    }
  });

  it('has the migrate service migrate and nothing else', () => {
    const migrate = services.migrate!;
    expect(runs(migrate)).toContain('migrate deploy');
    expect(runs(migrate)).not.toMatch(SEED);
    expect(inDemo(migrate)).toBe(false);
    expect(Object.fromEntries(environment(migrate))).not.toHaveProperty('TRIAGE_DEMO');
  });

  it('sets TRIAGE_DEMO in no service outside the demo profile', () => {
    for (const [name, s] of entries) if (!inDemo(s)) expect(Object.fromEntries(environment(s)), name).not.toHaveProperty('TRIAGE_DEMO');
  });

  it('has no service outside the demo profile depend on one inside it', () => {
    for (const [name, s] of entries) {
      if (inDemo(s)) continue;
      const deps = Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});
      for (const d of deps) expect(inDemo(services[d]!), `${name} → ${d}`).toBe(false);
    }
  });

  it('publishes no port on every interface', () => {
    const published = entries.flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const));
    expect(published.length).toBeGreaterThan(0);
    for (const [name, p] of published) {
      if (typeof p === 'object') expect(p.host_ip, name).toMatch(/^(127\.0\.0\.1|::1)$/);
      // host_ip:published:target; "5432:5432" or "5432" alone binds 0.0.0.0.
      else expect(String(p), name).toMatch(/^(127\.0\.0\.1|\[::1\]):\d+:\d+$/);
    }
  });

  it('keeps Postgres, Redis and RabbitMQ off the network unless on loopback', () => {
    for (const name of ['postgres', 'redis', 'rabbitmq']) {
      expect(services[name], name).toBeDefined();
      for (const p of services[name]!.ports ?? []) expect(String(p), name).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('holds no credential: every password and secret comes from the environment (.env) and is required', () => {
    for (const [name, s] of entries) {
      for (const [key, value] of environment(s)) {
        if (/PASS|SECRET|_KEY$|TOKEN/.test(key)) expect(value, `${name}.${key}`).toMatch(REQUIRED);
      }
    }
    expect(services.postgres!.environment).toMatchObject({ POSTGRES_PASSWORD: expect.stringMatching(REQUIRED) });
    expect(services.rabbitmq!.environment).toMatchObject({
      RABBITMQ_DEFAULT_USER: expect.stringMatching(REQUIRED),
      RABBITMQ_DEFAULT_PASS: expect.stringMatching(REQUIRED),
    });
  });

  it('puts no literal password in any URL, command or health check', () => {
    // Every user:password@ in the file, wherever it is: the password must be a ${VAR:?…}.
    // Userinfo is plain characters and ${…} groups, whose messages may hold spaces.
    const userinfo = [...text.matchAll(/[a-z][a-z0-9+.-]*:\/\/((?:\$\{[^}]*\}|[^@\s"'/$])*)@/gi)].map((m) => m[1]!);
    expect(userinfo.length).toBeGreaterThan(0);
    for (const u of userinfo) {
      // The password follows the first ':' outside a ${…} group.
      const password = u.replace(/^(?:\$\{[^}]*\}|[^:$])*:/, '');
      expect(password, u).toMatch(REQUIRED);
    }
    expect(text).not.toMatch(/triage:triage|guest:guest|change-?me/i);
    // A key such as POSTGRES_PASSWORD: whose value is anything but a ${…}.
    expect(text).not.toMatch(/^\s*[A-Z_]*(PASSWORD|_PASS|_AUTH): *(?![ "']*\$\{)/m);
  });

  it('gives Redis a required password, and the URL the app uses carries it', () => {
    const redis = words(services.redis!.command);
    expect(redis).toMatch(/--requirepass \$\{REDIS_PASSWORD:\?[^}]+\}/);
    for (const [name, s] of entries) {
      const url = Object.fromEntries(environment(s)).REDIS_URL;
      if (url !== undefined) expect(url, name).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379$/);
    }
  });

  it('gives every service that reaches Postgres a URL with the required password', () => {
    const urls = entries.flatMap(([name, s]) =>
      environment(s)
        .filter(([k]) => k === 'DATABASE_URL')
        .map(([, v]) => [name, v] as const),
    );
    expect(urls.length).toBeGreaterThan(0);
    for (const [name, url] of urls) expect(url, name).toMatch(/^postgresql:\/\/triage:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/triage$/);
  });
});
