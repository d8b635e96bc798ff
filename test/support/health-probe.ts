// Calls GET /api/health's handler once and prints its status and body (for test/unit/health.test.ts).
import { GET } from '@/app/api/health/route';

const res = await GET(new Request('http://triage.test/api/health'));
process.stdout.write(JSON.stringify({ status: res.status, body: await res.text() }));
process.exit(0);
