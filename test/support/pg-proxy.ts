// A TCP proxy in front of a (private) Postgres server that can black-hole a session: once armed, the
// next connection whose client sends a statement containing `marker` is cut from the server (which
// ends that session and rolls its transaction back) while the client's socket stays open and is
// never answered. That is what the client sees when postgres.js leaves a query pending after its
// connection died under it: a write with no answer, for good.
import net from 'node:net';

export interface PgProxy {
  /** Connect here instead of the server. */
  port: number;
  /** Black-hole the next `count` sessions that send `marker`. */
  arm(marker: string, count?: number): void;
  /** Sessions black-holed so far. */
  holed(): number;
  close(): Promise<void>;
}

export async function startPgProxy(serverPort: number): Promise<PgProxy> {
  let marker: Buffer | null = null;
  let left = 0;
  let holed = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: serverPort });
    sockets.add(client).add(upstream);
    let hole = false;
    const cut = () => {
      if (hole) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', () => {});
    upstream.on('error', () => {});
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      cut();
    });
    client.on('data', (chunk: Buffer) => {
      if (hole) return; // swallowed: the client waits for an answer that never comes
      if (marker && left > 0 && chunk.includes(marker)) {
        left--;
        holed++;
        hole = true;
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!hole) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    arm(m, count = 1) {
      marker = Buffer.from(m);
      left = count;
    },
    holed: () => holed,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
