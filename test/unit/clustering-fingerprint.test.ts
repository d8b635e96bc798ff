import { describe, expect, it } from 'vitest';
import { fingerprint, fingerprintCache } from '@/lib/clustering/fingerprint';
import { maskMessage } from '@/lib/clustering/mask-message';
import { topInAppFrame } from '@/lib/clustering/stack-frame';

// Each message, and the template it masks to.
const MASKED: Record<string, string> = {
  'payload of 8820192 bytes exceeds limit of 262144 bytes': 'payload of <*> exceeds limit of <*>',
  'connect ECONNREFUSED 166.231.38.46:6379': 'connect ECONNREFUSED <*>',
  "ENOENT: no such file or directory, open '/var/data/a50bb286-2f48-4f25-86db-3082cf279de1.pdf'": "ENOENT: no such file or directory, open '<*>'",
  'message 7874e4dc-b134-4725-8a25-6e9af1e08483 is already being processed by worker yozwqn-3': 'message <*> is already being processed by worker <*>',
  'Mailbox <diego.haddad30@corp.example> rejected: 550 5.1.1 mailbox unavailable': 'Mailbox <<*>> rejected: <*> mailbox unavailable',
  'order 979553 already shipped at 2026-04-19T12:00:39.147Z': 'order <*> already shipped at <*>',
  'timeout of 5000ms exceeded': 'timeout of <*> exceeded',
  'lock lost after 2 minutes': 'lock lost after <*>',
  'connection from 222.33.90.199 (222.33.90.199) at Sat Jun 25 04:06:05 2005': 'connection from <*> at <*>',
  'close, 1190 bytes (1.16 KB) sent, 1671 bytes (1.63 KB) received': 'close, <*> sent, <*> received',
  'GET https://api.example.com/v1/orders/8812/lines?expand=true failed': 'GET https://api.example.com/v1/orders/<*>/lines?<*> failed',
  'getaddrinfo ENOTFOUND tax-olxuj.svc.cluster.local': 'getaddrinfo ENOTFOUND <*>',
  'duplicate key Key (number)=(INV-6155393) already exists.': 'duplicate key Key (number)=(<*>) already exists.',
  'value too long for type character varying(32)': 'value too long for type character varying(<*>)',
  'logname= uid=0 euid=0 tty=ssh ruser= rhost=10.0.0.7': 'logname= uid=<*> euid=<*> tty=ssh ruser= rhost=<*>',
  'rate limit exceeded for tenant t_RXvWSdZq': 'rate limit exceeded for tenant <*>',
  'isScreenOn true': 'isScreenOn <*>',
  '10.11.10.1 "GET /v2/54fadb41/servers/detail HTTP/1.1" status: 200 len: 1893': '<*> "GET <*>" status: <*> len: <*>',
  'machine check enable..............0': 'machine check enable <*>',
};

// Messages with nothing to mask: each is its own template.
const KEPT = [
  'Request failed with status code 503',
  'process exited with exit code 137',
  'Accepted password for root from <*> port <*> ssh2',
  'open through proxy <*> SOCKS5',
  "jk_init() Can't find child <*> in scoreboard",
  'ER_LOCK_WAIT_TIMEOUT: Lock wait timeout exceeded; try restarting transaction',
  'Cannot read properties of undefined (reading <*>)',
];

// Quoted values, masked whole even with spaces; an apostrophe or a lone quote is not a quote.
const QUOTED: Record<string, string> = {
  'Invalid email at "recipient.email": received "cdyl at wxxwf.com"': 'Invalid email at "<*>": received "<*>"',
  "time data '23/11/2022 13:44' does not match format '%Y-%m-%d'": "time data '<*>' does not match format '<*>'",
  "Unexpected token ' in JSON at position 5": "Unexpected token ' in JSON at position <*>",
  "Couldn't find child": "Couldn't find child",
};

describe('maskMessage', () => {
  const template = (message: string): string => maskMessage(message).join(' ');

  it.each(Object.entries(MASKED))('masks what varies: %s', (message, expected) => {
    expect(template(message)).toBe(expected);
  });

  it.each(KEPT)('keeps what names the cause: %s', (message) => {
    expect(template(message)).toBe(message);
  });

  it.each(Object.entries(QUOTED))('masks quoted values whole, even with spaces, but not apostrophes or a lone quote: %s', (message, expected) => {
    expect(template(message)).toBe(expected);
  });

  it('tells a status code from a bare status number, and a host from a property name', () => {
    expect(template('Request failed with status code 429')).not.toBe(template('Request failed with status code 503'));
    expect(template('status: 200 len: 10')).toBe(template('status: 404 len: 11'));
    expect(template('mapred.job.id is deprecated')).toBe('mapred.job.id is deprecated');
  });

  it('handles the empty message and bounds a huge one', () => {
    expect(maskMessage('')).toEqual([]);
    const huge = `boom ${'x1 '.repeat(100_000)}`;
    expect(maskMessage(huge).join(' ').length).toBeLessThan(4096);
  });
});

const nodeStack = (line: number, col: number, fn = 'Mailer.send', file = '/app/src/mail/mailer.ts'): string =>
  [
    'SMTPError: Mailbox <a@b.example> rejected: 550 5.1.1 mailbox unavailable',
    `    at SMTPConnection._formatError (/app/node_modules/nodemailer/lib/smtp-connection/index.js:875:8)`,
    `    at ${fn} (${file}:${line}:${col})`,
    '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
  ].join('\n');

describe('topInAppFrame', () => {
  it('skips node_modules and node: frames and drops the line and column', () => {
    expect(topInAppFrame(nodeStack(96, 17))).toEqual({ fn: 'Mailer.send', file: 'src/mail/mailer.ts' });
    expect(topInAppFrame(nodeStack(12, 3))).toEqual(topInAppFrame(nodeStack(96, 17)));
  });

  it('reads JS frames without a function name and normalizes async/new/[as x]', () => {
    expect(topInAppFrame('Error: x\n    at /srv/dist/main.js:10:5')).toEqual({ fn: '', file: 'srv/dist/main.js' });
    expect(topInAppFrame('Error: x\n    at async Worker.run [as handler] (/srv/w.js:1:1)')).toEqual({ fn: 'Worker.run', file: 'srv/w.js' });
    expect(topInAppFrame('Error: x\n    at new Client (/srv/c.js:1:1)')).toEqual({ fn: 'Client', file: 'srv/c.js' });
    expect(topInAppFrame('Error: x\n    at Array.map (<anonymous>)\n    at toLine (/srv/m.js:3:9)')).toEqual({ fn: 'toLine', file: 'srv/m.js' });
  });

  it('returns nothing when every frame is a library or runtime frame, or there is no stack', () => {
    expect(topInAppFrame('Error: x\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1607:15)')).toBeUndefined();
    expect(topInAppFrame(undefined)).toBeUndefined();
    expect(topInAppFrame('')).toBeUndefined();
    expect(topInAppFrame('just some text')).toBeUndefined();
  });

  it('reads Go, Ruby, .NET and PHP traces', () => {
    const go =
      'panic: boom\n\ngoroutine 7 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:24 +0x5e\nmain.(*Handler).Handle(...)\n\t/go/src/app/handler.go:77 +0xa82';
    expect(topInAppFrame(go)).toEqual({ fn: 'main.(*Handler).Handle', file: 'src/app/handler.go' });
    const ruby = "/usr/local/bundle/gems/activerecord-7.1.3/lib/active_record/core.rb:253:in 'find'\napp/jobs/renew_job.rb:12:in 'perform'";
    expect(topInAppFrame(ruby)).toEqual({ fn: 'perform', file: 'app/jobs/renew_job.rb' });
    const dotnet =
      'System.InvalidOperationException: Sequence contains no elements\n   at System.Linq.ThrowHelper.ThrowNoElementsException()\n   at Shop.Billing.InvoiceService.LatestFor(Guid customerId) in /src/Billing/InvoiceService.cs:line 42';
    expect(topInAppFrame(dotnet)).toEqual({ fn: 'Shop.Billing.InvoiceService.LatestFor', file: 'src/Billing/InvoiceService.cs' });
    const php =
      '#0 /var/www/app/vendor/symfony/messenger/Handler.php(57): Symfony\\Handler->call()\n#1 /var/www/app/src/Service/CartService.php(31): App\\Service\\CartService->owner()';
    expect(topInAppFrame(php)).toEqual({ fn: 'App\\Service\\CartService->owner', file: 'src/Service/CartService.php' });
  });
});

describe('fingerprint', () => {
  const smtp = (address: string, line: number) => ({
    type: 'SMTPError',
    message: `Mailbox <${address}> rejected: 550 5.1.1 mailbox unavailable`,
    stack: nodeStack(line, 4),
  });

  it('gives the same key to the same cause with different ids and lines', () => {
    const a = fingerprint(smtp('diego.haddad30@corp.example', 96));
    const b = fingerprint(smtp('mia.khan9@example.com', 90));
    expect(a.key).toBe(b.key);
    expect(a.key).toMatch(/^[0-9a-f]{16}$/);
    expect(a.template).toBe('Mailbox <<*>> rejected: <*> mailbox unavailable');
    expect(a.topFrame).toEqual({ fn: 'Mailer.send', file: 'src/mail/mailer.ts' });
  });

  it('gives the same key to the same code checked out in two places', () => {
    const at = (root: string) =>
      fingerprint({ type: 'SMTPError', message: 'mailbox unavailable', stack: `Error: x\n    at Mailer.send (${root}/src/mail/mailer.ts:96:4)` });
    expect(at('/srv/triage-v41').key).toBe(at('/tmp/checkout').key);
  });

  it('gives two keys to the same message from two code sites', () => {
    const message = "Cannot read properties of undefined (reading 'id')";
    const a = fingerprint({ type: 'TypeError', message, stack: `TypeError: ${message}\n    at toOrderDto (/app/src/mappers/order.ts:26:31)` });
    const b = fingerprint({ type: 'TypeError', message, stack: `TypeError: ${message}\n    at buildInvoiceLines (/app/src/invoices/build.ts:103:10)` });
    expect(a.template).toBe(b.template);
    expect(a.key).not.toBe(b.key);
  });

  it('tells error types apart and works without a type or a stack', () => {
    const a = fingerprint({ type: 'ZodError', message: 'Invalid input' });
    const b = fingerprint({ type: 'TypeError', message: 'Invalid input' });
    const c = fingerprint({ message: 'Invalid input' });
    expect(new Set([a.key, b.key, c.key]).size).toBe(3);
    expect(c).toEqual({ key: c.key, template: 'Invalid input' });
  });

  it('is pure: the same input gives the same output', () => {
    const input = smtp('x@y.example', 1);
    expect(fingerprint(input)).toEqual(fingerprint({ ...input }));
  });

  it('gives, through a batch cache, the same fingerprint as one at a time', () => {
    const stack = 'com.acme.UnknownFieldException: unknown field\n\tat com.acme.OrderHandler.handle(OrderHandler.java:42)';
    const errors = [
      ...Array.from({ length: 5 }, (_, i) => ({ type: 'UnknownFieldException', message: `Order ${i} rejected: unknown field "giftWrap"`, stack })),
      { type: 'UnknownFieldException', message: 'Order 1 rejected: unknown field "giftWrap"', stack: `${stack}\n\tat com.acme.Other.run(Other.java:7)` },
      { type: 'OtherException', message: 'Order 1 rejected: unknown field "giftWrap"', stack },
      { type: null, message: 'Order 1 rejected: unknown field "giftWrap"' },
      smtp('x@y.example', 1),
      smtp('x@y.example', 1),
      // Parts that only a key joined with \u0001 would confuse: each is its own error.
      { type: 'A', message: 'b\u0001c', stack: null },
      { type: 'A\u0001b', message: 'c', stack: null },
      { type: 'A', message: 'b', stack: '\u0001c' },
    ];
    const cached = fingerprintCache();
    for (const e of errors) expect(cached(e)).toEqual(fingerprint(e));
  });
});
