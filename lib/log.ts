import pino from 'pino';
import { env } from './env';

export const log = pino(
  {
    level: env().LOG_LEVEL,
    base: undefined,
    redact: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization'],
  },
  env().LOG_TO === 'stderr' ? pino.destination(2) : undefined,
);
