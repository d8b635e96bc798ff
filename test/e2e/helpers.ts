import path from 'node:path';

export const stateFile = (email: string) => path.join('test-results', '.auth', `${email}.json`);
export const as = (email: string) => ({ storageState: stateFile(email) });
