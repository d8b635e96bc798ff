// The demo's Sidekiq source: welcome mails run by a real Sidekiq (Debian's ruby-sidekiq, when it is
// installed) on a Redis database of its own, the way a Rails team runs them. The demo worker enqueues
// mails in Sidekiq's wire format, some with a field v1 of the job refuses; Sidekiq kills those into
// its dead set, which Triage's connector imports; a redrive puts them back on "queue:mailers".
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { ensureDemoSource } from './demo-source';
import { demoHandlerVersion } from './settings';

export const DEMO_SIDEKIQ = { source: 'mailers-sidekiq', team: 'commerce', queue: 'mailers', bin: '/usr/bin/sidekiq' } as const;

const APP = fileURLToPath(new URL('./sidekiq-app.rb', import.meta.url));

/** Whether Sidekiq (and so Ruby) is installed here. */
export const sidekiqInstalled = () => existsSync(DEMO_SIDEKIQ.bin);

/** The Triage source reading the dead set; created once, by the system (audited). */
export function ensureDemoSidekiqSource(url: string): Promise<void> {
  return ensureDemoSource(
    {
      name: DEMO_SIDEKIQ.source,
      team: DEMO_SIDEKIQ.team,
      kind: 'sidekiq',
      description: 'Welcome mails on a local Sidekiq (its dead set)',
      connection: { sourceQueue: DEMO_SIDEKIQ.queue },
    },
    url,
    'Sidekiq',
  );
}

/** `sidekiq -r lib/demo/sidekiq-app.rb -q mailers` on `url`. */
export function startDemoSidekiq(url: string): ChildProcess {
  return spawn(DEMO_SIDEKIQ.bin, ['-r', APP, '-q', DEMO_SIDEKIQ.queue, '-c', '2', '-t', '2'], {
    env: { ...process.env, REDIS_URL: url, RUBYOPT: '-W0' },
    stdio: 'ignore',
  });
}

let sent = 0;

/** `n` welcome mails as Sidekiq::Client enqueues them; one in three carries a field v1 refuses. */
export async function enqueueDemoMails(redis: Redis, n: number): Promise<void> {
  // The deployed handler version, where the Ruby job reads it.
  await redis.set('triage_demo:handler_version', await demoHandlerVersion());
  const now = Date.now() / 1000;
  const m = redis.multi().sadd('queues', DEMO_SIDEKIQ.queue);
  for (let i = 0; i < n; i++) {
    const user = 1000 + (sent++ % 500);
    const mail: Record<string, unknown> = { user, email: `user${user}@example.com`, locale: 'en' };
    if (sent % 3 === 0) mail.campaign = 'winter-sale';
    const job = {
      retry: 0,
      queue: DEMO_SIDEKIQ.queue,
      backtrace: true,
      class: 'WelcomeMailJob',
      args: [mail],
      jid: randomBytes(12).toString('hex'),
      created_at: now,
      enqueued_at: now,
    };
    m.lpush(`queue:${DEMO_SIDEKIQ.queue}`, JSON.stringify(job));
  }
  await m.exec();
}
