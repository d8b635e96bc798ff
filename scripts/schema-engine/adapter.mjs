// The driver adapter the Wasm schema engine runs on: @prisma/adapter-pg, plus the two things it
// gets wrong for Migrate (as of adapter-pg 7.10).
import { randomUUID } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';

// Postgres's internal one-byte "char" type (oid 18: pg_class.relkind, pg_constraint.contype, …)
// shows up all over the engine's catalog queries, but adapter-pg has no mapping for it and fails
// the query with UnsupportedNativeDataType. Its text form is a plain string, so report such
// columns as text (oid 25) before the adapter looks at them. Done in the pg Client, which both
// pool queries (callback style) and transaction queries (promise style) go through.
const CHAR_OID = 18;
const TEXT_OID = 25;
const charAsText = (result) => {
  for (const r of [].concat(result ?? [])) {
    for (const field of r.fields ?? []) if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  }
  return result;
};
class Client extends pg.Client {
  query(config, values, callback) {
    if (typeof values === 'function') [values, callback] = [undefined, values];
    if (callback) return super.query(config, values, (err, res) => callback(err, err ? res : charAsText(res)));
    const pending = super.query(config, values);
    return typeof pending?.then === 'function' ? pending.then(charAsText) : pending;
  }
}

// `?schema=` selects the Postgres schema, as it does for the native engine.
const schemaOf = (url) => new URL(url).searchParams.get('schema') ?? 'public';
const connect = async (url) => {
  const adapter = await new PrismaPg({ connectionString: url, Client }, { schema: schemaOf(url) }).connect();
  // adapter-pg's executeScript splits the script on ";", which cuts dollar-quoted function bodies
  // (triggers in hand-written migrations) apart. A query without parameters goes over the simple
  // protocol, which runs a whole multi-statement script as psql and the native engine do.
  adapter.executeScript = async (script) => {
    try {
      await adapter.underlyingDriver().query(script);
    } catch (error) {
      adapter.onError(error);
    }
  };
  return adapter;
};
const sameDatabase = (a, b) => {
  const [x, y] = [new URL(a), new URL(b)];
  return x.host === y.host && x.pathname === y.pathname && schemaOf(a) === schemaOf(b);
};
const quote = (name) => `"${name.replaceAll('"', '""')}"`;

// A SqlMigrationAwareDriverAdapterFactory for the configured datasource ({ url, shadowDatabaseUrl }).
export class PgMigrateAdapterFactory {
  provider = 'postgres';
  adapterName = '@prisma/adapter-pg';
  #shadowDbs = new Set();

  constructor({ url, shadowDatabaseUrl }) {
    if (!url) throw new Error('No datasource url: set datasource.url in prisma.config.ts');
    this.url = url;
    this.shadowDatabaseUrl = shadowDatabaseUrl;
  }

  connect() {
    return connect(this.url);
  }

  // The engine asks for a shadow database for `migrate dev` / `migrate diff --from-migrations`, and
  // expects an empty one each time. Like the native engine: a configured shadowDatabaseUrl gets
  // its schema emptied (the Wasm engine doesn't do it); otherwise create a throwaway database next
  // to the main one and drop it afterwards.
  // Not adapter-pg's own connectToShadowDb: it derives the shadow pool as {...config, database},
  // which a connectionString overrides (so it would migrate the main database), and on dispose
  // it drops the database while its own pool still holds connections to it.
  async connectToShadowDb() {
    if (this.shadowDatabaseUrl) {
      if (sameDatabase(this.url, this.shadowDatabaseUrl)) {
        throw new Error('shadowDatabaseUrl points at the main database; it must be a separate, disposable one');
      }
      const adapter = await connect(this.shadowDatabaseUrl);
      const schema = quote(schemaOf(this.shadowDatabaseUrl));
      await adapter.executeScript(`DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
      return adapter;
    }
    const name = `prisma_migrate_shadow_db_${randomUUID()}`;
    const admin = new pg.Client({ connectionString: this.url });
    await admin.connect();
    let adapter;
    try {
      await admin.query(`CREATE DATABASE ${quote(name)}`);
      const url = new URL(this.url);
      url.pathname = `/${name}`;
      adapter = await connect(url.href);
    } catch (e) {
      await admin.query(`DROP DATABASE IF EXISTS ${quote(name)}`).catch(() => {});
      await admin.end();
      throw e;
    }
    const closePool = adapter.dispose.bind(adapter);
    let dropped;
    const drop = () =>
      (dropped ??= (async () => {
        this.#shadowDbs.delete(drop);
        await closePool(); // close our pool first, then FORCE away anything that still lingers
        try {
          await admin.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
        } finally {
          await admin.end();
        }
      })());
    this.#shadowDbs.add(drop);
    adapter.dispose = drop;
    return adapter;
  }

  // Drop shadow databases the engine did not dispose of (e.g. when a command failed midway).
  async dropShadowDbs() {
    await Promise.allSettled([...this.#shadowDbs].map((drop) => drop()));
  }
}
