// POST /api/v1/sources/{source}/dead-letters/raw — ingest one dead letter: the body is the payload, Triage-* headers describe it
import { errorResponse } from '@/lib/auth/guard';
import { ingestRaw } from '@/lib/ingest/ingest-dead-letters';

export async function POST(req: Request, ctx: { params: Promise<{ source: string }> }): Promise<Response> {
  try {
    const recorded = await ingestRaw(req, (await ctx.params).source);
    return Response.json({ ...recorded, items: [recorded] }, { status: recorded.created ? 201 : 200 });
  } catch (e) {
    return errorResponse(e);
  }
}
