// After a change to clusters (archive, merge, split, undo): their pages, the list and the inbox.
import { revalidatePath } from 'next/cache';

export function refreshClusters(...ids: string[]) {
  for (const id of ids) revalidatePath(`/clusters/${id}`);
  revalidatePath('/clusters');
  revalidatePath('/inbox');
}
