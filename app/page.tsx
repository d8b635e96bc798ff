// / — sends each role to its home
import { redirect } from 'next/navigation';
import { HOME } from '@/lib/auth';
import { pageActor } from '@/lib/auth/guard';

export const dynamic = 'force-dynamic';

export default async function Home() {
  const actor = await pageActor();
  redirect(HOME[actor.role]);
}
