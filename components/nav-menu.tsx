'use client';
// The navigation's links: a column beside the page on a wide screen; on a phone, behind a "Menu"
// button (closed again on every navigation), so the page gets the whole width.
import { usePathname } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';

export function NavMenu({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a navigation (a new pathname) closes the menu
  useEffect(() => setOpen(false), [pathname]);
  return (
    <>
      <button type="button" className="nav-toggle secondary" aria-expanded={open} aria-controls="nav-links" onClick={() => setOpen((o) => !o)}>
        Menu
      </button>
      <div id="nav-links" className="nav-links" data-open={open}>
        {children}
      </div>
    </>
  );
}
