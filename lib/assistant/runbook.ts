// The on-call runbook an assistant reads (an MCP resource), and the "triage this alarm" prompt that
// walks it with the tools. The verdicts' advice is the alarms' own (HINTS in lib/model/alarm-rules.ts),
// so the assistant says what the alarm banner and the webhooks say.
import { HINTS } from '@/lib/model/alarm-rules';

export const RUNBOOK_URI = 'triage://runbook';

const hint = (label: keyof typeof HINTS) => `- **${label}**: ${HINTS[label]}.`;

export const RUNBOOK = `# Triage runbook: a source is dead-lettering

Dead letters are messages a consumer could not process, parked with their evidence. Decide each on
purpose: redrive it (send it back) after the cause is fixed, or archive it with a reason. Every
decision is on the audit trail; yours through an assistant say "via assistant".

## 1. Poison or outage first

Read what the errors say before anything else (\`explain_alarm\` for the source, \`list_clusters\`
for the causes). Each cluster carries a verdict from the class of its latest error:

${hint('outage')}
${hint('outage, errors stopped')}
${hint('poison')}

When most errors name no known cause, volume decides:

${hint('probable outage')}
${hint('wave, mixed causes')}
${hint('probable poison')}

## 2. Diagnose before you redrive

- Read the cluster (\`get_cluster\`): its template, what it is grouped by, its samples, its trend.
- Read a few dead letters (\`get_dead_letter\`): the error, the failure history, the receive and redrive
  counts. Values Triage masks stay masked for an assistant; a person reveals one in Triage, with a reason.
- A redrive of a poison cluster before the fix is deployed fails again: it comes back as the next generation.

## 3. Redrive rate-limited, and only when it can work

- \`preview_redrive\` first: how many, how many are loops (past the source's max redrives, skipped),
  whether it waits for approval, an active task, an arriving outage.
- \`start_redrive\` with a rate well below the downstream's capacity (default 10/s), a canary for a
  first try, and a reason. A redrive above the source's approval threshold waits for a second person:
  an assistant never approves, so tell the user who can (a lead of the team, or an admin).
- An assistant never redrives a cluster classified as an outage: whether the downstream is healthy
  again is a person's word. Say so, and what to check.
- Archive (\`archive_dead_letter\`, \`archive_cluster\`) only what is invalid for good, with a reason.

## 4. Watch the drain

- \`get_redrive\`: sent, acknowledged, dead again, skipped, failed of total. Dead again rising means the
  cause is not fixed: the breaker pauses the task at 20% of a window of 50.
- \`source_alarms\`: depth and oldest age fall as the redrive acknowledges; the SLA state shows what is
  near or past its deadline.
`;

export function triageAlarmPrompt(source: string): string {
  return `Triage the dead-letter alarm of the source "${source}" with Triage's tools, following the runbook (${RUNBOOK_URI}):
1. Call explain_alarm for "${source}": say the verdict (poison or outage) and what it was read from.
2. Call source_alarms for "${source}": which alarms are raised, and the SLA state (oldest age, near deadline, breached).
3. Call list_clusters with source "${source}": name the largest open causes with their verdict, trend and owner.
4. For the main cluster, call get_cluster and read one or two samples with get_dead_letter: what fails, and why.
5. Recommend, do not act yet: for an outage, check the downstream and leave the dead letters parked; for poison, what to fix before a redrive; for a redrive, the preview_redrive of the selection and a rate.
Start a redrive or an archive only when I ask, with a reason; one that waits for approval needs a person.`;
}
