// Every kind of source: Triage's own broker runtime, the ingest API, and the connector kinds
// (lib/connectors). Mirrors the SourceKind enum of prisma/schema.prisma.
import { CONNECTOR_KINDS } from '@/lib/connectors/types';

export const SOURCE_KINDS = ['builtin', 'ingest', ...CONNECTOR_KINDS] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
