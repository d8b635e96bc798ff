'use server';
import { signOut } from '@/lib/auth/next-auth';

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: '/sign-in' });
}
