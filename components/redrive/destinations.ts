// The sources a redrive start form offers as its destination: those the actor may redrive into (the
// form shows the origin's kind; the destination's allow-list decides on the server).
import type { Principal } from '@/lib/auth';
import { listSources } from '@/lib/sources/list-sources';

export async function redriveDestinations(actor: Principal): Promise<{ name: string; kind: string }[]> {
  return (await listSources(actor, 'deadletters.redrive')).map((s) => ({ name: s.name, kind: s.kind }));
}
