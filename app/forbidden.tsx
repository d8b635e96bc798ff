// What Next renders, with status 403, where forbidden() is called (app/forbidden/page.tsx).
import Link from 'next/link';

export default function Forbidden() {
  return (
    <div className="center">
      <div className="card signin">
        <h1>Not allowed</h1>
        <p>Your role does not permit this page.</p>
        <Link href="/">Back to your home</Link>
      </div>
    </div>
  );
}
