// A process that takes the one share of the write budget and holds it (renewing its lease) until
// killed: the admission tests SIGKILL it to show a dead holder's lease comes back by itself.
import { writeBudget } from '@/lib/admission';
import { log } from '@/lib/log';

const lease = await writeBudget().acquire('ingest', { maxWaitMs: 10_000 });
if (!lease) throw new Error('no write budget to hold');
log.info('ready');
setInterval(() => undefined, 60_000);
