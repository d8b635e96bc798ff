// The kinds of error the clustering used to split or merge wrongly, each in general terms: the
// messages here are made up, in the shape of errors from systems nobody here wrote. Each kind is
// checked in batch and online (one dead letter at a time, as the write path sees them).
import { describe, expect, it } from 'vitest';
import { clusterBatch } from '@/lib/clustering/cluster-batch';
import { fingerprint, type ErrorInput } from '@/lib/clustering/fingerprint';
import { maskMessage } from '@/lib/clustering/mask-message';
import { replayOnline } from '@/lib/clustering/replay-online';

const distinct = (keys: string[]): number => new Set(keys).size;
/** Clusters in batch and online: the two must agree here. */
const clusters = (errors: ErrorInput[]): [number, number] => [distinct(clusterBatch(errors)), distinct(replayOnline(errors))];

/** A Node trace thrown at one function of the application. */
const nodeStack = (fn: string, line = 120, column = 9): string =>
  `Error: failed\n    at ${fn} (/srv/app/src/payments/${fn}.js:${line}:${column})\n    at handle (/srv/app/src/worker.js:10:3)`;

describe('variable tokens made only of letters, in a fixed position', () => {
  const codes = ['QWERTYXX', 'ASDFGHJK', 'ZXCVBNMM', 'EPOIUYTR', 'LKJHGFDS', 'MNBVCXZA', 'POIUYTRE', 'EWQASDZX'];
  const bank = (code: string): ErrorInput => ({
    type: 'Error',
    message: `Unknown routing code ${code} for beneficiary account`,
    stack: nodeStack('resolveBank'),
  });

  it('three values with the same stack are one cluster', () => {
    expect(clusters(codes.slice(0, 3).map(bank))).toEqual([1, 1]);
  });

  it('many values are one cluster, even when some look like an errno (a capital E and capitals)', () => {
    expect(clusters(codes.map(bank))).toEqual([1, 1]);
  });

  it('hex with no digit and user names in a fixed position are values too', () => {
    const hex = ['deadbeef', 'cafebabe', 'facefeed', 'badcafe'].map((h) => ({
      type: 'Error',
      message: `object ${h} missing from the store`,
      stack: nodeStack('load'),
    }));
    expect(clusters(hex)).toEqual([1, 1]);
    const users = ['alice', 'bob', 'carol', 'dave', 'erin'].map((u) => ({ message: `session refused for user ${u} on the primary` }));
    expect(clusters(users)).toEqual([1, 1]);
  });

  it('still keeps codes apart, and short messages whose one word is the event', () => {
    const errnos = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH'].map((e) => ({
      message: `connect ${e} while calling the ledger`,
      stack: nodeStack('post'),
    }));
    expect(clusters(errnos)).toEqual([4, 4]);
    const events = ['cupsd', 'hcid', 'klogd'].map((d) => ({ message: `${d} startup succeeded` }));
    expect(clusters(events)).toEqual([3, 3]);
  });

  it('`key=` values need the evidence any word needs: a masked one, or enough of them', () => {
    const auth = (user: string, stack?: string): ErrorInput => ({ message: `authentication failure; tty=ssh ruser= rhost=10.0.0.9 user=${user}`, stack });
    // Three named accounts and no code site: as likely three events a log prints as one.
    expect(clusters(['root', 'guest', 'test'].map((u) => auth(u)))).toEqual([3, 3]);
    expect(clusters(['root', 'guest', 'test', 'admin'].map((u) => auth(u)))).toEqual([1, 1]);
    expect(clusters(['root', 'guest', 'test'].map((u) => auth(u, nodeStack('authenticate'))))).toEqual([1, 1]);
    expect(clusters([auth('root'), { message: 'authentication failure; tty=ssh ruser= rhost=10.0.0.9 user=u-1042' }])).toEqual([1, 1]);
    // A value that holds a mask varies too, whatever words stand around it.
    const lock = (owner: string) => ({ message: `lock held by the worker, owner=${owner}, since boot` });
    expect(clusters([lock('none'), lock('Worker{pid:7}')])).toEqual([1, 1]);
  });

  it('a value printed as a whole mask in one message and wrapped in another is one position', () => {
    const sync = [
      ...['10.0.0.1', '10.0.0.2', '192.168.1.9'].map((ip) => ({ message: `clock synchronized to ${ip}, stratum 3` })),
      { message: 'clock synchronized to LOCAL(0), stratum 10' },
    ];
    expect(clusters(sync)).toEqual([1, 1]);
  });
});

describe('line and column numbers are never part of a frame', () => {
  it('the same function moved by a deploy is one cause', () => {
    const before = fingerprint({ type: 'TypeError', message: 'total is undefined', stack: nodeStack('chargeCard', 120, 9) });
    const after = fingerprint({ type: 'TypeError', message: 'total is undefined', stack: nodeStack('chargeCard', 131, 15) });
    expect(after.topFrame).toEqual(before.topFrame);
    expect(after.key).toBe(before.key);
  });

  it('in every runtime that prints them', () => {
    const jvm = (line: number) =>
      `java.lang.IllegalStateException: x\n\tat com.acme.billing.Invoices.total(Invoices.java:${line})\n\tat com.acme.Main.main(Main.java:3)`;
    const py = (line: number) =>
      `Traceback (most recent call last):\n  File "/srv/app/billing.py", line ${line}, in total\n    raise ValueError("x")\nValueError: x`;
    const net = (line: number) => `System.InvalidOperationException: x\n   at Acme.Billing.Invoices.Total() in /src/Acme/Billing/Invoices.cs:line ${line}`;
    for (const trace of [jvm, py, net]) {
      expect(fingerprint({ type: 'E', message: 'x', stack: trace(40) }).key).toBe(fingerprint({ type: 'E', message: 'x', stack: trace(97) }).key);
    }
  });
});

describe('a framework frame with a location is still a framework frame', () => {
  const trace = (site: string, located: boolean) =>
    [
      'System.Text.Json.JsonException: The JSON value could not be converted.',
      '   at System.Text.Json.ThrowHelper.ThrowJsonException(String message) in /_/src/System.Text.Json/ThrowHelper.cs:line 91',
      '   at System.Text.Json.JsonSerializer.Deserialize[TValue](String json, JsonSerializerOptions options) in /_/src/System.Text.Json/JsonSerializer.cs:line 40',
      `   at Acme.Shop.${site}.Parse(String body)${located ? ` in /app/src/Acme.Shop/${site}.cs:line 33` : ''}`,
      '   at Acme.Shop.Program.Main()',
    ].join('\n');

  it.each([true, false])('two application call sites stay two clusters (application frame located: %s)', (located) => {
    const a = fingerprint({ type: 'System.Text.Json.JsonException', message: 'bad', stack: trace('InvoiceParser', located) });
    const b = fingerprint({ type: 'System.Text.Json.JsonException', message: 'bad', stack: trace('PriceImporter', located) });
    expect(a.topFrame?.fn).toBe('Acme.Shop.InvoiceParser.Parse');
    expect(b.topFrame?.fn).toBe('Acme.Shop.PriceImporter.Parse');
    expect(a.key).not.toBe(b.key);
  });
});

describe('long or variable-length variable runs', () => {
  it('a list of ids of any length is one value', () => {
    const lists = ['[a, b]', '[abc, def, ghi, jkl]', '[x]', '[q, r, s]', '[mm, nn, oo, pp, qq, rr]'].map((l) => ({
      message: `bulk update of orders ${l} failed`,
      stack: nodeStack('bulk'),
    }));
    expect(clusters(lists)).toEqual([1, 1]);
    const numbered = ['1', '1, 2, 3', '7, 8', '4, 5, 6, 9', '4, 5, 6, 9, 10, 11'].map((l) => ({ message: `orders ${l} not found`, stack: nodeStack('bulk') }));
    expect(clusters(numbered)).toEqual([1, 1]);
  });

  it('a quoted SQL fragment is one value, whatever its first word', () => {
    const sql = ['SELECT * FROM orders WHERE id = 5', 'UPDATE t SET a = b', 'DELETE FROM x', 'INSERT INTO foo (a, b) VALUES (1, 2)'];
    const keys = sql.map((q) => fingerprint({ type: 'SqliteError', message: `near "${q}": syntax error` }).key);
    expect(distinct(keys)).toBe(1);
    // An HTTP request line keeps its method: the method names the endpoint.
    expect(maskMessage('request "DELETE /v1/orders/17 HTTP/1.1" failed').join(' ')).toBe('request "DELETE <*>" failed');
  });

  it('a path of varying depth is one value at one code site', () => {
    const paths = ['/data/in/a.csv', '/data/in/b/c.csv', '/data/in/x/y/z/w.csv', '/data/in/q/r.csv', '/data/in/m/n/o/p/q.csv'];
    expect(
      clusters(paths.map((p) => ({ type: 'FileNotFoundError', message: `No such file or directory: ${p} while importing`, stack: nodeStack('importFile') }))),
    ).toEqual([1, 1]);
  });

  it('an empty value is a value: `()` where others print a name there', () => {
    expect(maskMessage('connection from 10.1.2.3 () at noon').join(' ')).toBe(maskMessage('connection from 10.1.2.3 (host.example.com) at noon').join(' '));
  });
});
