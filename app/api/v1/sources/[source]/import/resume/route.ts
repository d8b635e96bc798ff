// POST /api/v1/sources/:source/import/resume — resume a connector source's import (lead of its team, admin); body { reason? }; audited
import { familyRoute } from '@/lib/auth/guard';
import { answerImportSwitch, importSwitchRoute } from '@/lib/connectors/pause-import';

export const POST = familyRoute(importSwitchRoute, 'sources.import', answerImportSwitch(false), {
  summary: "Resume a connector source's import (lead of the team, admin)",
  description: 'Body { reason? } (optional). Audited as source.import.resume.',
});
