// Redrive to another source (SQS's move task takes any queue): a source of the same kind as the
// origin, which names the origin on its allow-list (like SQS's redrive allow policy). The origin
// keeps the task ("one active task per source" counts it), the destination gets the messages.
import type { Tx } from '@/lib/db';
import type { Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { findSource } from '@/lib/model/find-source';
import type { SelectedSource } from './selection';
import { destinationWords } from './destination-words';

export async function resolveDestination(tx: Tx, actor: Principal, origin: SelectedSource, name: string | undefined): Promise<SelectedSource | null> {
  if (!name) return null;
  // Another team's source answers as one that does not exist.
  const dest = await findSource(actor, name, 'deadletters.redrive', tx);
  if (dest.id === origin.id) return null;
  if (dest.kind !== origin.kind) {
    throw new AppError(
      'unprocessable',
      `Source "${dest.name}" is ${dest.kind}, "${origin.name}" is ${origin.kind}: a redrive goes to a source of the same kind`,
      {
        field: 'destination',
      },
    );
  }
  const [row] = await tx.$queryRaw<{ allowed: boolean }[]>`
    SELECT ${origin.id}::uuid = ANY(COALESCE(redrive_allowed_from, '{}')) AS allowed FROM sources WHERE id = ${dest.id}::uuid`;
  if (!row?.allowed) {
    throw new AppError(
      'unprocessable',
      `Source "${dest.name}" does not accept redrives from "${origin.name}": a lead of its team adds "${origin.name}" to its redrive allow-list`,
      {
        field: 'destination',
      },
    );
  }
  if (dest.kind === 'ingest' && !dest.redriveUrl) {
    throw new AppError('unprocessable', `Source "${dest.name}" has no redrive URL yet`, { field: 'destination' });
  }
  return dest;
}

export function describeDestination(source: Pick<SelectedSource, 'kind' | 'name' | 'redriveUrl'>): string {
  return destinationWords(source);
}
