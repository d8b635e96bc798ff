// POST /api/v1/sources/:source/import/pause — pause a connector source's import (lead of its team, admin); body { reason? }; audited
import { familyRoute } from '@/lib/auth/guard';
import { answerImportSwitch, importSwitchRoute } from '@/lib/connectors/pause-import';

export const POST = familyRoute(importSwitchRoute, 'sources.import', answerImportSwitch(true), {
  summary: "Pause a connector source's import (lead of the team, admin); messages wait on the broker",
  description: 'Body { reason? } (optional). The connectors worker stops after the batch in flight. Audited as source.import.pause.',
});
