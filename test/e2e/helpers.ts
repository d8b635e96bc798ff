import path from 'node:path';

// Per port, so side-by-side e2e runs (each on its own port) keep their sign-ins apart.
const run = process.env.E2E_PORT ?? 'default';

export const stateFile = (email: string) => path.join('test-results', '.auth', run, `${email}.json`);
export const as = (email: string) => ({ storageState: stateFile(email) });
