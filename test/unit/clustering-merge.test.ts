import { describe, expect, it } from 'vitest';
import { clusterBatch } from '@/lib/clustering/cluster-batch';
import { fingerprint } from '@/lib/clustering/fingerprint';
import { TemplateMerger } from '@/lib/clustering/template-merger';

const keysOf = (messages: string[], type?: string): string[] => clusterBatch(messages.map((message) => ({ message, type })));
const distinct = (keys: string[]): number => new Set(keys).size;

describe('TemplateMerger / clusterBatch', () => {
  it('merges a word column once a mask shows the position varies', () => {
    const keys = keysOf(['Invalid user admin from 10.0.0.1', 'Invalid user oracle from 10.0.0.2', 'Invalid user user123 from 10.0.0.3']);
    expect(distinct(keys)).toBe(1);
  });

  it('merges a column with enough distinct words around shared context, but not three', () => {
    const countries = ['IE', 'GB', 'DE', 'FR', 'NL'].map((c) => `postcode "X1" not found for country ${c}`);
    expect(distinct(keysOf(countries))).toBe(1);
    const torus = ['x+', 'y+', 'z+'].map((d) => `12 torus receiver ${d} input pipe error(s) detected and corrected`);
    expect(distinct(keysOf(torus))).toBe(3);
  });

  it('never merges codes, even many of them', () => {
    const statuses = [500, 502, 503, 504, 429].map((s) => `Request failed with status code ${s}`);
    expect(distinct(keysOf(statuses, 'AxiosError'))).toBe(5);
    const errnos = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH'].map((e) => `connect ${e} 10.0.0.1:5432`);
    expect(distinct(keysOf(errnos))).toBe(4);
  });

  it('keeps short messages apart: the varying word is the event', () => {
    expect(distinct(keysOf(['active', 'blocked', 'closing', 'critical', 'normal']))).toBe(5);
    expect(distinct(keysOf(['cupsd startup succeeded', 'hcid startup succeeded', 'klogd startup succeeded', 'sshd startup succeeded']))).toBe(4);
  });

  it('keeps apart templates that differ in a word nobody saw varying', () => {
    const keys = keysOf(['Accepted password for root from 1.1.1.1 port 22 ssh2', 'Failed password for root from 1.1.1.2 port 23 ssh2']);
    expect(distinct(keys)).toBe(2);
  });

  it('lets a mask stand for several tokens when absorbing a rare variant', () => {
    const programs = ['chrome.exe', 'firefox.exe', 'putty.exe', 'qq.exe', 'svchost.exe'];
    const messages = programs.map((p) => `${p} - 10.0.0.1:443 open through proxy proxy.example.com:5070 HTTPS`);
    messages.push('chrome.exe *64 - 10.0.0.9:443 open through proxy proxy.example.com:5070 HTTPS');
    expect(distinct(keysOf(messages))).toBe(1);
  });

  it('borrows evidence: a word proven variable in one event is variable in another', () => {
    const programs = ['chrome.exe', 'firefox.exe', 'putty.exe', 'qq.exe'];
    const messages = programs.map((p) => `${p} - 10.0.0.1:443 open through proxy p:5070 HTTPS`);
    messages.push('putty.exe - 10.0.0.1:443 error : Proxy closed the connection unexpectedly.');
    messages.push('qq.exe - 10.0.0.1:443 error : Proxy closed the connection unexpectedly.');
    const keys = keysOf(messages);
    expect(keys[4]).toBe(keys[5]);
    expect(keys[0]).not.toBe(keys[4]);
  });

  it('merges several digit-less id columns that vary together', () => {
    const names = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
    const surnames = ['SMITH', 'GARCIA', 'ROSSI', 'NOVAK', 'SILVA', 'OLSEN'];
    const codes = ['KXQZT', 'BLMPRW', 'ZZTRQ', 'HJKLMN', 'PQRSTV', 'WXZBC'];
    const bookings = codes.map((c, i) => `booking ${c} not found for passenger ${names[i]} ${surnames[(i * 5) % 6]}`);
    expect(distinct(keysOf(bookings, 'BookingNotFound'))).toBe(1);
    // Three events that differ in three words stay three: too few values to prove anything.
    const errnos = ['Bad file descriptor', 'Block device required', 'No child processes'].map((e) => `creating node map from file /a/17: ${e}`);
    expect(distinct(keysOf([...errnos, 'creating node map from file /a/42: Bad file descriptor']))).toBe(3);
  });

  it('merges a variable run of varying length at one code site', () => {
    const stack = "/app/app/models/subscription.rb:41:in 'Subscription#renew!'";
    const errors = ['Email is invalid', "Name can't be blank", 'Plan must exist', 'Amount must be greater than 0', 'Card token is missing'];
    const messages = [[0], [1, 2], [3, 0, 4], [2, 4], [1]].map((ix) => `Validation failed: ${ix.map((i) => errors[i]).join(', ')}`);
    const keys = clusterBatch(messages.map((message) => ({ type: 'ActiveRecord::RecordInvalid', message, stack })));
    expect(distinct(keys)).toBe(1);
    // The same messages with no code site and no list shape stay apart.
    expect(distinct(keysOf(messages))).toBeGreaterThan(1);
  });

  it('merges lists of one-token items without a frame, but not clauses after a comma', () => {
    const fields = ['email', 'city', 'phone', 'street', 'iban', 'locale'];
    const lists = [[0, 1], [2], [3, 4, 5], [1, 2, 3, 4], [5, 0]].map((ix) => `event has unknown fields: ${ix.map((i) => fields[i]).join(', ')}`);
    expect(distinct(keysOf(lists, 'SchemaError'))).toBe(1);
    const clauses = ['Link has been severed', 'Connection timed out', 'Connection reset by peer', 'No route to host', 'Broken pipe'].map(
      (c) => `ciod: Error reading message prefix on socket to 10.0.0.1:7000, ${c}`,
    );
    expect(distinct(keysOf(clauses))).toBe(5);
  });

  it('never merges across error types or top frames', () => {
    const message = "Cannot read properties of undefined (reading 'id')";
    const at = (fn: string) => `TypeError: ${message}\n    at ${fn} (/app/src/x.ts:1:1)`;
    const keys = clusterBatch([
      { type: 'TypeError', message, stack: at('toOrderDto') },
      { type: 'TypeError', message, stack: at('buildInvoiceLines') },
      { type: 'RangeError', message, stack: at('toOrderDto') },
    ]);
    expect(distinct(keys)).toBe(3);
  });

  it('leaves an unmerged template its ingest key', () => {
    const error = { type: 'Error', message: 'connect ECONNREFUSED 10.0.0.1:6379' };
    expect(clusterBatch([error, { type: 'Error', message: 'something else entirely' }])[0]).toBe(fingerprint(error).key);
    expect(clusterBatch([error], { merge: false })).toEqual([fingerprint(error).key]);
  });

  it('does not depend on arrival order', () => {
    const messages = [
      ...['IE', 'GB', 'DE', 'FR', 'NL'].map((c) => `postcode "X1" not found for country ${c}`),
      'Invalid user admin from 1.1.1.1',
      'Invalid user user123 from 1.1.1.2',
      'Unexpected end of JSON input',
      ...['u', ']', "'", ','].map((t) => `Unexpected token ${t} in JSON at position 12`),
    ];
    const forward = keysOf(messages);
    const order = messages.map((_, i) => i).reverse();
    const backward = keysOf(order.map((i) => messages[i]!));
    expect(order.map((i, j) => [forward[i], backward[j]]).every(([a, b]) => a === b)).toBe(true);
  });

  it('updates an incremental mapping as evidence arrives and reports its clusters', () => {
    const merger = new TemplateMerger();
    const first = merger.assign({ template: 'unknown country IE for postcode lookup' });
    merger.assign({ template: 'unknown country GB for postcode lookup' });
    merger.assign({ template: 'unknown country DE for postcode lookup' });
    const handle = merger.add({ template: 'unknown country IE for postcode lookup' });
    expect(merger.clusterKeyOf(handle)).toBe(first);
    const merged = merger.assign({ template: 'unknown country FR for postcode lookup' });
    expect(merger.clusterKeyOf(handle)).toBe(merged);
    expect(merged).not.toBe(first);
    const [cluster] = merger.clusters();
    expect(cluster).toMatchObject({ key: merged, template: 'unknown country <*> for postcode lookup', count: 5 });
    expect(cluster!.members).toHaveLength(4);
  });

  it('rejects an unknown handle', () => {
    expect(() => new TemplateMerger().clusterKeyOf(3)).toThrow(RangeError);
  });
});
