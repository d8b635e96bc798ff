// A TCP port free on 127.0.0.1 right now (the browser tests and the ingest bench start the app on one).
import { createServer } from 'node:net';

export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
