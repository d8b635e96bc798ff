// Route handlers behind a real HTTP server on a free local port, for clients that speak HTTP
// themselves (the MCP SDK's Streamable HTTP client): the request body and the answer are streamed
// through as Next's server would, so a client sees real status codes, headers and streams.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
export type RouteModule = Record<string, unknown>;

export interface ServedRoutes {
  url: string;
  close: () => Promise<void>;
}

function toRequest(req: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : (Readable.toWeb(req) as ReadableStream<Uint8Array>);
  return new Request(new URL(req.url ?? '/', base), { method: req.method, headers, body, duplex: 'half' } as RequestInit);
}

async function send(res: ServerResponse, answer: Response): Promise<void> {
  res.statusCode = answer.status;
  for (const [k, v] of answer.headers) res.setHeader(k, v);
  if (!answer.body) return void res.end();
  for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/** Serve `routes` (exact path → the route module) until close(); any other path answers 404. */
export async function serveRoutes(routes: Record<string, RouteModule>): Promise<ServedRoutes> {
  let base = '';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const handler = routes[path]?.[req.method ?? 'GET'] as Handler | undefined;
    if (!handler) {
      res.statusCode = routes[path] ? 405 : 404;
      return void res.end();
    }
    Promise.resolve(handler(toRequest(req, base), { params: Promise.resolve({}) }))
      .then((answer) => send(res, answer))
      .catch((e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
