import type { Metadata } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = { title: 'Triage', description: 'Dead-letter-queue control plane' };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request, so Next can put the proxy's CSP nonce on its scripts (a page
  // prerendered at build time carries none, and the CSP would block it).
  await connection();
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
