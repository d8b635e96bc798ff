// GET /api/v1/sources/:source/grouping-rules — the source's grouping rules and their version
// PUT /api/v1/sources/:source/grouping-rules — replace them, { rules, reason } (lead of the owning team, admin); applies to new dead letters; audited
import { jsonRoute } from '@/lib/auth/guard';
import { sourceSettingChange, sourceSettingRoute } from '@/lib/sources/route-shapes';
import { getGroupingRules, setGroupingRules, setGroupingRulesInput, GroupingRulesView } from '@/lib/clustering/set-grouping-rules';

export const GET = jsonRoute('deadletters.read', ({ actor, params }) => getGroupingRules(actor, params.source), {
  ...sourceSettingRoute,
  summary: "The source's grouping rules and their version",
  responses: { 200: { description: 'The rules', view: GroupingRulesView } },
});

export const PUT = jsonRoute('sources.grouping', ({ actor, params, body }) => setGroupingRules(actor, params.source, body), {
  ...sourceSettingChange,
  summary: 'Replace the grouping rules (lead of the owning team, admin)',
  description:
    'Added to the default grouping (error type, template, top frame) of new dead letters: the values of payload JSON paths and headers become part of the fingerprint, and token positions of the template are treated as variable. Open dead letters keep their clusters until the rules are re-applied. Audited as source.grouping with before and after.',
  responses: { 200: { description: 'Saved', view: GroupingRulesView } },
  body: setGroupingRulesInput,
});
