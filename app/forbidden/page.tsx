// /forbidden — where the guard sends a page a role may not open (lib/auth/guard.ts): it answers 403
// with app/forbidden.tsx, so a client sees the refusal in the status, not only in the text.
import { forbidden } from 'next/navigation';

export default function ForbiddenPage(): never {
  forbidden();
}
